package dev.adaptive.config;

import dev.adaptive.limit.Aimd;
import dev.adaptive.limit.FixedLimit;
import dev.adaptive.limit.Gradient2;
import dev.adaptive.limit.Limit;
import dev.adaptive.limit.Vegas;

/**
 * The limit algorithms an {@link AdaptiveConfig} names, by the option names every face reads
 * ({@code vegas}, {@code aimd}, {@code gradient2}, {@code fixed}). A program that needs an
 * algorithm's own options builds the {@link Limit} itself and hands it to the face instead.
 */
public enum Algorithm {

    /** {@link Vegas}, the default: keeps the downstream's queue short, read from latency. */
    VEGAS,
    /** {@link Aimd}: grows additively while latency is stable, decreases on errors. */
    AIMD,
    /** {@link Gradient2}: follows the ratio of long- to short-term latency. */
    GRADIENT2,
    /** {@link FixedLimit}: always exactly {@code maxLimit}. */
    FIXED;

    /**
     * @param initialLimit the limit before any sample
     * @param minLimit     the lowest limit
     * @param maxLimit     the highest limit; with {@link #FIXED}, the limit
     * @return the algorithm with these bounds
     */
    Limit limit(int initialLimit, int minLimit, int maxLimit) {
        return switch (this) {
            case VEGAS -> Vegas.builder().initialLimit(initialLimit).minLimit(minLimit).maxLimit(maxLimit).build();
            case AIMD -> Aimd.builder().initialLimit(initialLimit).minLimit(minLimit).maxLimit(maxLimit).build();
            case GRADIENT2 -> Gradient2.builder().initialLimit(initialLimit).minLimit(minLimit).maxLimit(maxLimit)
                    .build();
            case FIXED -> FixedLimit.of(maxLimit);
        };
    }
}
