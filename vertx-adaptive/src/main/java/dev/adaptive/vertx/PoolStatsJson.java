package dev.adaptive.vertx;

import dev.adaptive.pool.ConcurrencySegment;
import dev.adaptive.pool.PoolStats;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/**
 * The JSON form of a pool run's {@link PoolStats}, for logs, the event bus and HTTP answers.
 * Durations are in milliseconds. Stateless and thread-safe.
 */
public final class PoolStatsJson {

    private PoolStatsJson() {
    }

    /**
     * @param stats a run's stats
     * @return {@code {finalConcurrency, maxConcurrencyReached, congestionEvents, rateLimitEvents,
     *         totalRetries, totalAttempts, accepted, succeeded, failed, elapsedMs,
     *         performanceData: [{concurrency, durationMs}], performanceDataTruncated,
     *         timeAtConcurrencyMs: {limit: ms}, callbackFailures, stopReason?, stopCause?}}
     */
    public static JsonObject toJson(PoolStats stats) {
        JsonArray segments = new JsonArray();
        for (ConcurrencySegment s : stats.performanceData()) {
            segments.add(new JsonObject().put("concurrency", s.concurrency()).put("durationMs", s.duration().toMillis()));
        }
        JsonObject atLimit = new JsonObject();
        stats.timeAtConcurrency().forEach((limit, d) -> atLimit.put(String.valueOf(limit), d.toMillis()));
        JsonObject json = new JsonObject()
                .put("finalConcurrency", stats.finalConcurrency())
                .put("maxConcurrencyReached", stats.maxConcurrencyReached())
                .put("congestionEvents", stats.congestionEvents())
                .put("rateLimitEvents", stats.rateLimitEvents())
                .put("totalRetries", stats.totalRetries())
                .put("totalAttempts", stats.totalAttempts())
                .put("accepted", stats.accepted())
                .put("succeeded", stats.succeeded())
                .put("failed", stats.failed())
                .put("elapsedMs", stats.elapsed().toMillis())
                .put("performanceData", segments)
                .put("performanceDataTruncated", stats.performanceDataTruncated())
                .put("timeAtConcurrencyMs", atLimit)
                .put("callbackFailures", stats.callbackFailures());
        stats.stopCause().ifPresent(stop -> json.put("stopReason", stop.reason().name())
                .put("stopCause", String.valueOf(stop.getMessage())));
        return json;
    }
}
