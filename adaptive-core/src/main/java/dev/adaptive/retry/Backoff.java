package dev.adaptive.retry;

import dev.adaptive.internal.Nanos;

import java.time.Duration;
import java.util.Objects;
import java.util.function.DoubleSupplier;

/**
 * How long to wait before a retry after an error: a {@link Kind} of growth from
 * {@code minDelay}, capped at {@code maxDelay}, with optional symmetric jitter.
 *
 * <p>For the {@code n}-th retry (1-based) the delay before jitter is {@code minDelay} for
 * {@link Kind#CONSTANT}, {@code minDelay * n} for {@link Kind#LINEAR} and
 * {@code minDelay * 2^(n-1)} for {@link Kind#EXPONENTIAL}, saturating instead of overflowing,
 * then capped at {@code maxDelay}. Jitter then scales it by a factor drawn uniformly from
 * {@code [1 - jitter, 1 + jitter)}, and the result is clamped to {@code [0, maxDelay]}: jitter
 * may go below {@code minDelay}, never above {@code maxDelay}.
 *
 * <p>Defaults where a factory leaves them open: {@code minDelay} {@link #DEFAULT_MIN_DELAY}
 * (100 ms), {@code maxDelay} {@link #DEFAULT_MAX_DELAY} (30 s), {@code jitter} 0 (none).
 *
 * <p>An immutable value; thread-safe.
 *
 * @param kind     how the delay grows with the retry number
 * @param minDelay the base delay, {@code >= 0}
 * @param maxDelay the cap, {@code >= minDelay}
 * @param jitter   the jitter fraction in {@code [0, 1]}; 0 means none
 */
public record Backoff(Kind kind, Duration minDelay, Duration maxDelay, double jitter) {

    /** The default base delay: 100 ms. */
    public static final Duration DEFAULT_MIN_DELAY = Duration.ofMillis(100);
    /** The default cap: 30 s. */
    public static final Duration DEFAULT_MAX_DELAY = Duration.ofSeconds(30);

    /** How the delay grows with the retry number. */
    public enum Kind {
        /** Every retry waits {@code minDelay}. */
        CONSTANT,
        /** The {@code n}-th retry waits {@code minDelay * n}. */
        LINEAR,
        /** The {@code n}-th retry waits {@code minDelay * 2^(n-1)}. */
        EXPONENTIAL
    }

    /**
     * Validates.
     *
     * @param kind     how the delay grows with the retry number
     * @param minDelay the base delay, {@code >= 0}
     * @param maxDelay the cap, {@code >= minDelay}
     * @param jitter   the jitter fraction in {@code [0, 1]}; 0 means none
     * @throws NullPointerException     if {@code kind}, {@code minDelay} or {@code maxDelay} is null
     * @throws IllegalArgumentException if {@code minDelay} is negative, {@code maxDelay} is below
     *                                  {@code minDelay}, or {@code jitter} is NaN or outside [0, 1]
     */
    public Backoff {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(minDelay, "minDelay");
        Objects.requireNonNull(maxDelay, "maxDelay");
        if (minDelay.isNegative()) {
            throw new IllegalArgumentException("minDelay must be >= 0: " + minDelay);
        }
        if (maxDelay.compareTo(minDelay) < 0) {
            throw new IllegalArgumentException("maxDelay must be >= minDelay (" + minDelay + "): " + maxDelay);
        }
        if (!(jitter >= 0 && jitter <= 1)) {
            throw new IllegalArgumentException("jitter must be in [0, 1]: " + jitter);
        }
    }

    /**
     * @param delay the delay before every retry, {@code >= 0}
     * @return a constant backoff without jitter; {@code maxDelay} is the larger of
     *         {@code delay} and {@link #DEFAULT_MAX_DELAY}, so that added jitter is symmetric
     * @throws NullPointerException     if {@code delay} is null
     * @throws IllegalArgumentException if {@code delay} is negative
     */
    public static Backoff constant(Duration delay) {
        Objects.requireNonNull(delay, "minDelay");
        Duration max = delay.compareTo(DEFAULT_MAX_DELAY) > 0 ? delay : DEFAULT_MAX_DELAY;
        return new Backoff(Kind.CONSTANT, delay, max, 0);
    }

    /**
     * @param base the delay before the first retry, {@code >= 0}
     * @param max  the cap, {@code >= base}
     * @return a linear backoff without jitter
     * @throws NullPointerException     if an argument is null
     * @throws IllegalArgumentException as the {@linkplain Backoff constructor}
     */
    public static Backoff linear(Duration base, Duration max) {
        return new Backoff(Kind.LINEAR, base, max, 0);
    }

    /**
     * @param base the delay before the first retry, {@code >= 0}
     * @param max  the cap, {@code >= base}
     * @return an exponential backoff without jitter
     * @throws NullPointerException     if an argument is null
     * @throws IllegalArgumentException as the {@linkplain Backoff constructor}
     */
    public static Backoff exponential(Duration base, Duration max) {
        return new Backoff(Kind.EXPONENTIAL, base, max, 0);
    }

    /**
     * @param fraction the jitter in [0, 1]; 0.2 spreads delays over ±20%
     * @return a copy of this backoff with that jitter
     * @throws IllegalArgumentException if {@code fraction} is NaN or outside [0, 1]
     */
    public Backoff withJitter(double fraction) {
        return new Backoff(kind, minDelay, maxDelay, fraction);
    }

    /**
     * The delay before the {@code retry}-th retry.
     *
     * @param retry  1 for the first retry
     * @param random the source of jitter, read once and only if {@code jitter > 0}; a value
     *               that is NaN or outside [0, 1), or anything it throws (an {@code Error}
     *               included), means "no jitter" for this delay
     * @return the delay, within [0, maxDelay]
     * @throws IllegalArgumentException if {@code retry < 1}
     * @throws NullPointerException     if {@code random} is null
     */
    public Duration delay(int retry, DoubleSupplier random) {
        if (retry < 1) {
            throw new IllegalArgumentException("retry must be >= 1: " + retry);
        }
        Objects.requireNonNull(random, "random");
        long capNanos = Nanos.of(maxDelay);
        long nanos = Math.min(unjitteredNanos(retry), capNanos);
        if (jitter > 0) {
            double r = draw(random);
            if (!Double.isNaN(r)) {
                // A double cast saturates, and the cap absorbs any rounding upwards.
                nanos = Math.max(0, Math.min((long) (nanos * (1 + jitter * (2 * r - 1))), capNanos));
            }
        }
        // Returning maxDelay itself keeps a cap beyond ~292 years exact.
        return nanos >= capNanos ? maxDelay : Duration.ofNanos(nanos);
    }

    private long unjitteredNanos(int retry) {
        long base = Nanos.of(minDelay);
        return switch (kind) {
            case CONSTANT -> base;
            case LINEAR -> base > Long.MAX_VALUE / retry ? Long.MAX_VALUE : base * retry;
            case EXPONENTIAL -> {
                int shift = retry - 1;
                if (base == 0) {
                    yield 0;
                }
                yield shift >= 63 || base > (Long.MAX_VALUE >> shift) ? Long.MAX_VALUE : base << shift;
            }
        };
    }

    /** @return r in [0, 1), or NaN ("no jitter") when the supplier misbehaves */
    private static double draw(DoubleSupplier random) {
        double r;
        try {
            r = random.getAsDouble();
        } catch (Throwable misbehaving) {
            // Anything, an Error included: one delay without jitter beats a task lost.
            return Double.NaN;
        }
        return r >= 0 && r < 1 ? r : Double.NaN;
    }
}
