package dev.adaptive.vertx;

import io.vertx.core.json.JsonObject;

import java.time.Duration;

/**
 * How long a run spent at one limit.
 *
 * @param concurrency the limit
 * @param duration    the time spent at it
 */
public record ConcurrencySegment(int concurrency, Duration duration) {

    /** @return {@code {"concurrency": n, "durationMs": ms}} */
    public JsonObject toJson() {
        return new JsonObject().put("concurrency", concurrency).put("durationMs", duration.toMillis());
    }
}
