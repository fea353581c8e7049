package dev.adaptive.vertx.impl;

import dev.adaptive.Limiter;
import dev.adaptive.LimiterStats;
import dev.adaptive.internal.Nanos;
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
        long left = until == 0 ? 0 : Math.max(0, Nanos.between(limiter.ticker().nanoTime(), until));
        long pausedForMs = left / 1_000_000 + (left % 1_000_000 == 0 ? 0 : 1);
        JsonObject metrics = new JsonObject();
        try {
            for (Map.Entry<String, Double> e : limiter.limitState().metrics().entrySet()) {
                double v = e.getValue();
                // JSON has no NaN or infinity; an algorithm's "not yet known" would break encoding.
                metrics.put(e.getKey(), Double.isFinite(v) ? v : null);
            }
        } catch (Throwable brokenLimit) {
            // A user's limit whose metrics cannot be read: the stats still go out, without them.
            metrics.clear();
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
                .put("limitFailures", s.limitFailures())
                .put("algorithm", limiter.algorithm().name())
                .put("metrics", metrics);
    }
}
