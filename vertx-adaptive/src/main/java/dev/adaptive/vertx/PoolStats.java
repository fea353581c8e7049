package dev.adaptive.vertx;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.List;

/**
 * What one {@link AdaptivePool} run did. The event counts are the limiter's during the run: if
 * the limiter is shared with other callers, their events are counted too.
 *
 * @param finalConcurrency      the limit when the run ended
 * @param maxConcurrencyReached the highest limit during the run
 * @param congestionEvents      drops (errors, timeouts) during the run
 * @param rateLimitEvents       rate-limit answers during the run
 * @param totalRetries          retries of the run's items, both budgets
 * @param performanceData       the limits the run went through, in order, with the time at each
 */
public record PoolStats(int finalConcurrency, int maxConcurrencyReached, long congestionEvents, long rateLimitEvents,
                        long totalRetries, List<ConcurrencySegment> performanceData) {

    /**
     * Copies the segments.
     *
     * @param finalConcurrency      the limit when the run ended
     * @param maxConcurrencyReached the highest limit during the run
     * @param congestionEvents      drops during the run
     * @param rateLimitEvents       rate-limit answers during the run
     * @param totalRetries          retries of the run's items
     * @param performanceData       the limits the run went through, with the time at each
     */
    public PoolStats {
        performanceData = List.copyOf(performanceData);
    }

    /** @return the stats as JSON, segments as {@code performanceData: [{concurrency, durationMs}]} */
    public JsonObject toJson() {
        JsonArray segments = new JsonArray();
        performanceData.forEach(s -> segments.add(s.toJson()));
        return new JsonObject()
                .put("finalConcurrency", finalConcurrency)
                .put("maxConcurrencyReached", maxConcurrencyReached)
                .put("congestionEvents", congestionEvents)
                .put("rateLimitEvents", rateLimitEvents)
                .put("totalRetries", totalRetries)
                .put("performanceData", segments);
    }
}
