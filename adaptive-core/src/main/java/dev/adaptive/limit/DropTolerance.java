package dev.adaptive.limit;

import dev.adaptive.internal.OptionChecks;

/**
 * How many errors an adaptive limit shrugs off. It keeps two exponentially weighted shares of
 * failed attempts: the recent one, over roughly the last {@code 4 / tolerance} attempts, and the
 * usual one, over eight times as many. Drops count as an overload when the recent share exceeds
 * the usual one by more than the tolerance, and by more than three standard deviations of the
 * recent share's own noise at the usual rate.
 *
 * <p>Why two shares: many downstreams fail a steady few percent of calls whatever the load (a
 * flaky dependency behind them, a bad replica). Those failures say nothing about concurrency, and
 * against a fixed tolerance of 5% a steady 3% of them crosses it by chance every few hundred
 * calls: the limit halved again and again on a server with room to spare. What an overload adds
 * is a rise above what the downstream usually does. The usual share moves by 1/{@code 32 / tolerance}
 * per attempt, so a burst of errors raises it little and is still read as one; a downstream
 * that has failed nothing yet is judged exactly as against the tolerance alone. Five failures
 * close together read as a share above a tolerance of 5%, a single one never does.
 *
 * <p>A tolerance of 0 makes every drop an overload, whatever the usual share. Immutable.
 */
final class DropTolerance {

    /** Standard deviations of the recent share's noise that a rise must exceed. */
    private static final double Z = 3;
    /** How many times longer the usual share's horizon is than the recent one's. */
    private static final int USUAL = 8;
    /** The smallest tolerance above 0 whose drops still move the shares past their rounding. */
    static final double MIN = 1e-4;

    private final double tolerance;
    private final double horizon;
    private final double usualHorizon;

    /**
     * @param tolerance the share of recent attempts, 0 to 1, that may fail beyond the usual share
     *                  before drops count as an overload; 0 makes every drop one
     * @throws IllegalArgumentException naming {@code dropTolerance} and the value
     */
    DropTolerance(double tolerance) {
        this.tolerance = OptionChecks.closedUnit("dropTolerance", tolerance);
        if (tolerance > 0 && tolerance < MIN) {
            // One drop moves the share by a quarter of the tolerance; below this it would be
            // rounded away as it is counted, and drops would never count at all.
            throw new IllegalArgumentException("dropTolerance must be 0 (every drop counts) or within [" + MIN
                    + ", 1]: " + tolerance);
        }
        this.horizon = tolerance > 0 ? Math.ceil(4 / tolerance) : 1;
        this.usualHorizon = USUAL * horizon;
    }

    double tolerance() {
        return tolerance;
    }

    /**
     * @param share  the shares so far
     * @param failed whether the attempt just ended was a drop
     * @return the shares after it; {@code share} itself if neither moved
     */
    DropShare after(DropShare share, boolean failed) {
        double recent = next(share.recent(), failed, horizon);
        double usual = next(share.usual(), failed, usualHorizon);
        if (recent == share.recent() && usual == share.usual()) {
            return share;
        }
        return recent == 0 && usual == 0 ? DropShare.NONE : new DropShare(recent, usual);
    }

    private static double next(double rate, boolean failed, double horizon) {
        double next = rate + ((failed ? 1 : 0) - rate) / horizon;
        // A share below one in a million is none: this lets a state settle back to itself.
        return next < 1e-6 ? 0 : next;
    }

    /** @param share shares made by {@link #after} @return whether the recent one is past the tolerance */
    boolean exceeded(DropShare share) {
        if (tolerance == 0) {
            return share.recent() > 0;
        }
        double usual = share.usual();
        // The recent share's standard deviation if attempts failed independently at the usual rate.
        double noise = Math.sqrt(usual * (1 - usual) / (2 * horizon - 1));
        return share.recent() > usual + Math.max(tolerance, Z * noise);
    }
}
