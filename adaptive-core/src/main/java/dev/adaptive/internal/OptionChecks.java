package dev.adaptive.internal;

import java.time.Duration;

/**
 * The option checks the builders of the limits and of the guard share: each throws
 * {@link IllegalArgumentException} naming the option and the value. Not API: its package is
 * internal and may change without notice. Stateless.
 */
public final class OptionChecks {

    private OptionChecks() {
    }

    public static int atLeast(String option, int value, int least) {
        if (value < least) {
            throw new IllegalArgumentException(option + " must be >= " + least + ": " + value);
        }
        return value;
    }

    public static int between(String option, int value, int least, int most) {
        if (value < least || value > most) {
            throw new IllegalArgumentException(option + " must be within [" + least + ", " + most + "]: " + value);
        }
        return value;
    }

    public static double between(String option, double value, double least, double most) {
        if (!(value >= least && value <= most)) {
            throw new IllegalArgumentException(option + " must be within [" + least + ", " + most + "]: " + value);
        }
        return value;
    }

    // The negated comparisons below are deliberate: they reject NaN along with out-of-range values.

    public static double atLeast(String option, double value, double least) {
        if (!(value >= least) || Double.isInfinite(value)) {
            throw new IllegalArgumentException(option + " must be finite and >= " + least + ": " + value);
        }
        return value;
    }

    public static double greaterThan(String option, double value, double bound) {
        if (!(value > bound) || Double.isInfinite(value)) {
            throw new IllegalArgumentException(option + " must be finite and > " + bound + ": " + value);
        }
        return value;
    }

    /** For factors that must really change something: strictly between 0 and 1. */
    public static double openUnit(String option, double value) {
        if (!(value > 0 && value < 1)) {
            throw new IllegalArgumentException(option + " must be > 0 and < 1: " + value);
        }
        return value;
    }

    public static double halfOpenUnit(String option, double value) {
        if (!(value > 0 && value <= 1)) {
            throw new IllegalArgumentException(option + " must be > 0 and <= 1: " + value);
        }
        return value;
    }

    public static double closedUnit(String option, double value) {
        if (!(value >= 0 && value <= 1)) {
            throw new IllegalArgumentException(option + " must be >= 0 and <= 1: " + value);
        }
        return value;
    }

    public static Duration between(String option, Duration value, Duration least, Duration most) {
        if (value == null || value.compareTo(least) < 0 || value.compareTo(most) > 0) {
            throw new IllegalArgumentException(option + " must be between " + least + " and " + most + ": " + value);
        }
        return value;
    }

    public static Duration positive(String option, Duration value, Duration most) {
        if (value == null || value.isNegative() || value.isZero() || value.compareTo(most) > 0) {
            throw new IllegalArgumentException(option + " must be positive and at most " + most + ": " + value);
        }
        return value;
    }
}
