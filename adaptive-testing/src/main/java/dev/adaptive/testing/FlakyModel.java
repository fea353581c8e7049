package dev.adaptive.testing;

import java.time.Duration;
import java.util.Objects;

/**
 * The parameters of the flaky API model and its latency law, the one the tests, the examples
 * and the benchmarks call (a {@link FlakyDownstream} runs it on a clock, a
 * {@link FlakyHttpServer} behind HTTP).
 *
 * <p>A request that arrives when {@code n} requests are in flight (counting itself) is refused
 * after {@link #REFUSAL_LATENCY} if {@code n > hard}: a 429 with {@code Retry-After:
 * retryAfter}, or a 500 for the {@code overCapErrorShare} of refusals. Otherwise it is answered
 * after {@link #congestedMillis(int) base * (1 + (max(0, n - soft) / soft)^2)} milliseconds,
 * times a uniform factor in {@code [1 - jitter, 1 + jitter]}, times {@code tailFactor} with
 * the {@code tailProbability}; with the {@code transientProbability} that answer is a 500.
 *
 * <p>{@link #s3()} (base 40 ms, soft 6, hard 12, {@code Retry-After: 1}, no noise) is the
 * default scenario of the examples; {@link #holding(long)} a server that answers every request
 * after a fixed time and never refuses. Immutable; a bad value fails with
 * {@link IllegalArgumentException} naming it.
 *
 * @param baseMillis           latency of a request at or below {@code soft} in flight, in
 *                             milliseconds; positive
 * @param soft                 the in-flight count above which latency grows; at least 1
 * @param hard                 the in-flight count above which requests are refused; at least
 *                             {@code soft}
 * @param retryAfter           the {@code Retry-After} a refusal announces; positive
 * @param jitter               the latency's spread either way, as a share; in {@code [0, 1)}
 * @param tailProbability      the share of answers slowed by {@code tailFactor}; in {@code [0, 1]}
 * @param tailFactor           how much slower a tail answer is; at least 1
 * @param transientProbability the share of answers within capacity that are a 500; in {@code [0, 1]}
 * @param overCapErrorShare    the share of refusals that are a 500 instead of a 429; in {@code [0, 1]}
 */
public record FlakyModel(double baseMillis, int soft, int hard, Duration retryAfter, double jitter,
                         double tailProbability, double tailFactor, double transientProbability,
                         double overCapErrorShare) {

    /** How long a refusal past the hard cap takes: a little work on the server, not none. */
    public static final Duration REFUSAL_LATENCY = Duration.ofMillis(2);

    /**
     * Validates.
     *
     * @param baseMillis latency at or below {@code soft} in flight, in milliseconds
     * @param soft the in-flight count above which latency grows
     * @param hard the in-flight count above which requests are refused
     * @param retryAfter the {@code Retry-After} of a refusal
     * @param jitter the latency's spread either way, as a share
     * @param tailProbability the share of answers slowed by {@code tailFactor}
     * @param tailFactor how much slower a tail answer is
     * @param transientProbability the share of answers within capacity that are a 500
     * @param overCapErrorShare the share of refusals that are a 500 instead of a 429
     */
    public FlakyModel {
        Objects.requireNonNull(retryAfter, "retryAfter");
        if (!(baseMillis > 0)) {
            throw new IllegalArgumentException("base must be > 0 ms: " + baseMillis);
        }
        if (soft < 1) {
            throw new IllegalArgumentException("soft must be >= 1: " + soft);
        }
        if (hard < soft) {
            throw new IllegalArgumentException("hard must be >= soft (" + soft + "): " + hard);
        }
        if (retryAfter.isNegative() || retryAfter.isZero()) {
            throw new IllegalArgumentException("retry-after must be positive: " + retryAfter);
        }
        if (!(jitter >= 0 && jitter < 1)) {
            throw new IllegalArgumentException("jitter must be in [0, 1): " + jitter);
        }
        if (!(tailFactor >= 1)) {
            throw new IllegalArgumentException("tail factor must be >= 1: " + tailFactor);
        }
        probability("tailProbability", tailProbability);
        probability("transientProbability", transientProbability);
        probability("overCapErrorShare", overCapErrorShare);
    }

    private static void probability(String name, double p) {
        if (!(p >= 0 && p <= 1)) {
            throw new IllegalArgumentException(name + " must be in [0, 1]: " + p);
        }
    }

    /**
     * A model without noise: no jitter, no tail, no transient errors, every refusal a 429.
     *
     * @param baseMillis latency at or below {@code soft} in flight, in milliseconds
     * @param soft       the in-flight count above which latency grows
     * @param hard       the in-flight count above which requests are refused with 429
     * @param retryAfter the {@code Retry-After} of a refusal
     * @return the model
     */
    public static FlakyModel of(double baseMillis, int soft, int hard, Duration retryAfter) {
        return new FlakyModel(baseMillis, soft, hard, retryAfter, 0, 0, 1, 0, 0);
    }

    /** @return the S3 scenario: base 40 ms, soft 6, hard 12, {@code Retry-After: 1}, no noise */
    public static FlakyModel s3() {
        return of(40, 6, 12, Duration.ofSeconds(1));
    }

    /**
     * @param holdMillis how long every request is held before its 200, at least 1
     * @return a model that answers every request after exactly that long and never refuses
     */
    public static FlakyModel holding(long holdMillis) {
        return of(holdMillis, Integer.MAX_VALUE, Integer.MAX_VALUE, Duration.ofSeconds(1));
    }

    /**
     * The latency law, before jitter and tail.
     *
     * @param n requests in flight at the server, counting the new one
     * @return the latency of an answer within capacity, in milliseconds
     */
    public double congestedMillis(int n) {
        double over = Math.max(0, n - soft) / (double) soft;
        return baseMillis * (1 + over * over);
    }

    /** @return whether latency is flat up to the hard cap ({@code soft == hard}) */
    public boolean flat() {
        return soft == hard;
    }
}
