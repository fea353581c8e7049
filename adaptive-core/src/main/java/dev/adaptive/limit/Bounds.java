package dev.adaptive.limit;

/**
 * The validated [min, max] range and starting point shared by every adaptive {@link Limit},
 * plus the checks their builders use so that every option fails with the same kind of message:
 * {@code "<option> must be <rule>: <value>"}. Immutable.
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
        atLeast("minLimit", min, 1);
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

    static int atLeast(String option, int value, int least) {
        if (value < least) {
            throw new IllegalArgumentException(option + " must be >= " + least + ": " + value);
        }
        return value;
    }

    static int between(String option, int value, int least, int most) {
        if (value < least || value > most) {
            throw new IllegalArgumentException(option + " must be within [" + least + ", " + most + "]: " + value);
        }
        return value;
    }

    static double between(String option, double value, double least, double most) {
        if (!(value >= least && value <= most)) {
            throw new IllegalArgumentException(option + " must be within [" + least + ", " + most + "]: " + value);
        }
        return value;
    }

    // The negated comparisons below are deliberate: they reject NaN along with out-of-range values.

    static double atLeast(String option, double value, double least) {
        if (!(value >= least) || Double.isInfinite(value)) {
            throw new IllegalArgumentException(option + " must be finite and >= " + least + ": " + value);
        }
        return value;
    }

    static double greaterThan(String option, double value, double bound) {
        if (!(value > bound) || Double.isInfinite(value)) {
            throw new IllegalArgumentException(option + " must be finite and > " + bound + ": " + value);
        }
        return value;
    }

    /** For factors that must really change something: strictly between 0 and 1. */
    static double openUnit(String option, double value) {
        if (!(value > 0 && value < 1)) {
            throw new IllegalArgumentException(option + " must be > 0 and < 1: " + value);
        }
        return value;
    }

    static double halfOpenUnit(String option, double value) {
        if (!(value > 0 && value <= 1)) {
            throw new IllegalArgumentException(option + " must be > 0 and <= 1: " + value);
        }
        return value;
    }

    static double closedUnit(String option, double value) {
        if (!(value >= 0 && value <= 1)) {
            throw new IllegalArgumentException(option + " must be >= 0 and <= 1: " + value);
        }
        return value;
    }
}
