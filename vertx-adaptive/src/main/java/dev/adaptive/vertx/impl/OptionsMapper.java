package dev.adaptive.vertx.impl;

import dev.adaptive.Adapt;
import dev.adaptive.limit.Aimd;
import dev.adaptive.limit.FixedLimit;
import dev.adaptive.limit.Gradient2;
import dev.adaptive.limit.Limit;
import dev.adaptive.limit.Vegas;
import dev.adaptive.retry.RetryPolicy;
import dev.adaptive.vertx.AdaptiveOptions;

import java.time.Duration;

/**
 * Turns the JSON-friendly {@link AdaptiveOptions} into the engine's values. The engine's own
 * builders check the relations between options (min &lt;= max, minDelay &lt;= maxDelay), so their
 * messages name the option and the value.
 */
public final class OptionsMapper {

    private OptionsMapper() {
    }

    /**
     * @param o options
     * @return the algorithm they name, with their bounds
     */
    public static Limit limit(AdaptiveOptions o) {
        int initial = o.getInitialLimit();
        return switch (o.getAlgorithm()) {
            case "aimd" -> Aimd.builder().minLimit(o.getMinLimit()).maxLimit(o.getMaxLimit())
                    .initialLimit(initial).build();
            case "gradient2" -> Gradient2.builder().minLimit(o.getMinLimit()).maxLimit(o.getMaxLimit())
                    .initialLimit(initial).build();
            case "fixed" -> FixedLimit.of(initial);
            default -> Vegas.builder().minLimit(o.getMinLimit()).maxLimit(o.getMaxLimit())
                    .initialLimit(initial).build();
        };
    }

    /**
     * @param o options
     * @return their retry policy
     */
    public static RetryPolicy retryPolicy(AdaptiveOptions o) {
        RetryPolicy.Builder b = RetryPolicy.builder()
                .retries(o.getRetries())
                .minDelay(Duration.ofMillis(o.getMinDelay()))
                .maxDelay(Duration.ofMillis(o.getMaxDelay()))
                .jitter(o.getJitter())
                .maxRateLimitRetries(o.getMaxRateLimitRetries())
                .maxRetryAfter(Duration.ofMillis(o.getMaxRetryAfter()));
        switch (o.getBackoff()) {
            case "linear" -> b.linear();
            case "constant" -> b.constant();
            default -> b.exponential();
        }
        return b.build();
    }

    /**
     * @param o options
     * @return which signals move the limit
     */
    public static Adapt adapt(AdaptiveOptions o) {
        return Adapt.of(o.isAdaptOnLatency(), o.isAdaptOnErrors(), o.isAdaptOnRateLimit());
    }

    /**
     * @param millis a duration option in ms, 0 meaning none
     * @return the duration, or {@code null} for none
     */
    public static Duration optional(long millis) {
        return millis <= 0 ? null : Duration.ofMillis(millis);
    }
}
