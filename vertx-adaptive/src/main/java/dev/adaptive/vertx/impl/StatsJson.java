package dev.adaptive.vertx.impl;

import dev.adaptive.Limiter;
import dev.adaptive.LimiterStats;
import io.vertx.core.json.JsonObject;

import java.util.Map;

/** The JSON form of a limiter's stats, as {@code AdaptiveLimiter.stats()} and the stats publication show it. */
public final class StatsJson {

    private StatsJson() {
    }

    /**
     * @param name    the limiter's name
     * @param limiter the engine
     * @return a snapshot as JSON
     */
    public static JsonObject of(String name, Limiter limiter) {
        LimiterStats s = limiter.stats();
        long until = limiter.pausedUntilNanos();
        long pausedForMs = until == 0 ? 0 : Math.max(0, (until - limiter.ticker().nanoTime() + 999_999) / 1_000_000);
        JsonObject metrics = new JsonObject();
        for (Map.Entry<String, Double> e : limiter.limitState().metrics().entrySet()) {
            double v = e.getValue();
            // JSON has no NaN or infinity; an algorithm's "not yet known" would break encoding.
            metrics.put(e.getKey(), Double.isFinite(v) ? v : null);
        }
        return new JsonObject()
                .put("name", name)
                .put("limit", s.limit())
                .put("localLimit", limiter.localLimit())
                .put("inflight", s.inflight())
                .put("waiting", s.waiting())
                .put("maxLimitReached", s.maxLimitReached())
                .put("congestionEvents", s.congestionEvents())
                .put("rateLimitEvents", s.rateLimitEvents())
                .put("ratePaused", s.ratePaused())
                .put("pausedForMs", pausedForMs)
                .put("state", s.state().name())
                .put("listenerFailures", s.listenerFailures())
                .put("algorithm", limiter.algorithm().name())
                .put("metrics", metrics);
    }
}
