package dev.adaptive.examples.server;

import java.time.Duration;

/**
 * Parameters of the flaky API model of the project's benchmark scenarios (S3 by default):
 * latency {@code base * (1 + (max(0, n - soft) / soft)^2)} for the n-th request in flight,
 * times a uniform factor in {@code [1 - jitter, 1 + jitter]}; past {@code hard} in flight,
 * a 429 after 2 ms with {@code Retry-After: retryAfterSeconds}.
 *
 * <p>Defaults ({@link #s3()}): base 40 ms, soft 6, hard 12, Retry-After 1 s, jitter 0.
 * Immutable; a bad value fails with {@link IllegalArgumentException} naming it.
 *
 * @param baseMs            latency of an unloaded request, in milliseconds, &ge; 1
 * @param soft              in-flight count above which latency grows, &ge; 1
 * @param hard              in-flight count above which the server answers 429, &ge; soft
 * @param retryAfterSeconds the {@code Retry-After} announced with each 429, &ge; 1
 * @param jitter            symmetric latency jitter, in [0, 1)
 */
public record FlakyModel(int baseMs, int soft, int hard, int retryAfterSeconds, double jitter) {

    /** Validates every parameter. */
    public FlakyModel {
        if (baseMs < 1) {
            throw new IllegalArgumentException("base-ms must be >= 1: " + baseMs);
        }
        if (soft < 1) {
            throw new IllegalArgumentException("soft must be >= 1: " + soft);
        }
        if (hard < soft) {
            throw new IllegalArgumentException("hard must be >= soft (" + soft + "): " + hard);
        }
        if (retryAfterSeconds < 1) {
            throw new IllegalArgumentException("retry-after must be >= 1 second: " + retryAfterSeconds);
        }
        if (!(jitter >= 0 && jitter < 1)) {
            throw new IllegalArgumentException("jitter must be in [0, 1): " + jitter);
        }
    }

    /** @return the S3 scenario: base 40 ms, soft 6, hard 12, Retry-After 1 s, no jitter */
    public static FlakyModel s3() {
        return new FlakyModel(40, 6, 12, 1, 0.0);
    }

    /**
     * @param inflight requests in flight at the server, the new one included
     * @param uniform  a uniform random number in [0, 1) for the jitter
     * @return how long the server takes to answer that request
     */
    public Duration latency(int inflight, double uniform) {
        double over = Math.max(0, inflight - soft) / (double) soft;
        double factor = (1 + over * over) * (1 - jitter + 2 * jitter * uniform);
        return Duration.ofNanos(Math.round(baseMs * 1_000_000L * factor));
    }

    /**
     * @param inflight requests in flight at the server, the new one included
     * @return whether that request is refused with 429
     */
    public boolean overHardCap(int inflight) {
        return inflight > hard;
    }
}
