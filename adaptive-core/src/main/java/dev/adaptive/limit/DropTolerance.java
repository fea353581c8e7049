package dev.adaptive.limit;

import dev.adaptive.internal.OptionChecks;

/**
 * How many errors an adaptive limit shrugs off: an exponentially weighted share of failed
 * attempts over roughly the last {@code 4 / tolerance} attempts, compared with the tolerance.
 * Five failures close together read as a share above a tolerance of 5%, a single one never
 * does: an isolated transient error is not an overload, a run of them is. Immutable.
 */
final class DropTolerance {

    private final double tolerance;
    private final double horizon;

    /**
     * @param tolerance the share of recent attempts, 0 to 1, that may fail before drops count as
     *                  an overload; 0 makes every drop one
     * @throws IllegalArgumentException naming {@code dropTolerance} and the value
     */
    DropTolerance(double tolerance) {
        this.tolerance = OptionChecks.closedUnit("dropTolerance", tolerance);
        this.horizon = tolerance > 0 ? Math.ceil(4 / tolerance) : 1;
    }

    double tolerance() {
        return tolerance;
    }

    /**
     * @param rate   the share so far
     * @param failed whether the attempt just ended was a drop
     * @return the share after it
     */
    double after(double rate, boolean failed) {
        double next = rate + ((failed ? 1 : 0) - rate) / horizon;
        // A share below one in a million is none: this lets a state settle back to itself.
        return next < 1e-6 ? 0 : next;
    }

    /** @param rate a share made by {@link #after} @return whether it is past the tolerance */
    boolean exceeded(double rate) {
        return rate > tolerance;
    }
}
