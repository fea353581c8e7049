package dev.adaptive.limit;

import dev.adaptive.internal.OptionChecks;

/**
 * The validated [min, max] range and starting point shared by every adaptive {@link Limit}; the
 * builders' other options go through {@link OptionChecks}, so that every option fails with the
 * same kind of message: {@code "<option> must be <rule>: <value>"}. Immutable.
 *
 * @param initial the limit before any sample
 * @param min     the smallest limit, at least 1
 * @param max     the largest limit
 */
record Bounds(int initial, int min, int max) {

    static final int DEFAULT_INITIAL = 5;
    static final int DEFAULT_MIN = 1;
    static final int DEFAULT_MAX = Integer.MAX_VALUE;

    /**
     * @param initial    the requested initial limit
     * @param initialSet whether the user chose {@code initial}; an unset default is moved into
     *                   [min, max] instead of failing, so {@code maxLimit(3)} alone is valid
     * @throws IllegalArgumentException naming the option and the value
     */
    static Bounds of(int initial, boolean initialSet, int min, int max) {
        OptionChecks.atLeast("minLimit", min, 1);
        if (max < min) {
            throw new IllegalArgumentException("maxLimit must be >= minLimit (" + min + "): " + max);
        }
        if (!initialSet) {
            initial = Math.max(min, Math.min(max, initial));
        } else if (initial < min || initial > max) {
            throw new IllegalArgumentException(
                    "initialLimit must be within [minLimit, maxLimit] = [" + min + ", " + max + "]: " + initial);
        }
        return new Bounds(initial, min, max);
    }

    /** Clamps an integer computation done in {@code long} so that it cannot overflow first. */
    int clamp(long value) {
        return (int) Math.max(min, Math.min(max, value));
    }

    /** Clamps a fractional estimate; NaN, which no algorithm should produce, falls to min. */
    double clamp(double value) {
        if (!(value >= min)) {
            return min;
        }
        return Math.min(max, value);
    }

    /** Floors a fractional limit into [min, max]. */
    int floor(double value) {
        return (int) clamp(Math.floor(clamp(value)));
    }
}
