package dev.adaptive.guard;

import java.time.Duration;

/** The option checks of this package: each names the option and the value. Stateless. */
final class Checks {

    private Checks() {
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

    // Negated comparisons on purpose: they reject NaN with the out-of-range values.

    static double atLeast(String option, double value, double least) {
        if (!(value >= least) || Double.isInfinite(value)) {
            throw new IllegalArgumentException(option + " must be finite and >= " + least + ": " + value);
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

    static Duration positive(String option, Duration value, Duration most) {
        if (value == null || value.isNegative() || value.isZero() || value.compareTo(most) > 0) {
            throw new IllegalArgumentException(option + " must be positive and at most " + most + ": " + value);
        }
        return value;
    }
}
