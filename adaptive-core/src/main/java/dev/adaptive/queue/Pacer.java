package dev.adaptive.queue;

/**
 * Where the next start may go, for a rate of {@code rate} starts per interval. Not thread-safe:
 * the queue calls it under its lock.
 *
 * <p><b>Evenly spaced.</b> Starts go on a grid: the {@code k}-th slot of a round is
 * {@code epoch + floor(k * interval / rate)}, so slots never drift from rounding (3 per second
 * start at 0, 333_333_333, 666_666_666 and 1_000_000_000 ns). A start may run a little after
 * its slot (a real scheduler wakes up late); up to {@link #tolerance} late it stays on the
 * grid, so timer latency does not slow the rate down, and the next round begins that much
 * later, so that no window of one interval ever holds more than {@code rate} starts. A start
 * later than that (the queue was empty, held or at its concurrency bound) begins a new grid:
 * lost slots are never made up with a burst.
 *
 * <p><b>Bursts.</b> A burst window opens at the first start after the last one closed; up to
 * {@code rate} starts go in it at once, the next waits for {@code epoch + interval}.
 */
final class Pacer {

    /** The lateness that keeps a start on the grid even when one slot is shorter: a timer's wake-up latency. */
    static final long TIMER_SLACK_NANOS = 1_000_000;

    private final long intervalNanos;
    private final boolean evenly;
    private boolean fresh = true;
    private long epoch;
    private long count;
    private long lastStart;
    /** The latest any start of this round ran after its slot; the next round begins that much later. */
    private long maxLate;
    private boolean regrid;

    Pacer(long intervalNanos, boolean evenly) {
        this.intervalNanos = intervalNanos;
        this.evenly = evenly;
    }

    /** @return the earliest ticker reading, not before {@code now}, at which a start may go */
    long earliest(long now, int rate) {
        if (fresh) {
            return now;
        }
        long at;
        if (evenly) {
            at = epoch + offset(count, rate);
        } else {
            long end = epoch + intervalNanos;
            at = now - end >= 0 || count < rate ? now : end;
        }
        return at - now > 0 ? at : now;
    }

    /** Records a start at {@code now}, which must not be before {@link #earliest}. */
    void started(long now, int rate) {
        if (evenly) {
            // After a rate change the next start opens a new grid wherever it runs: its lateness
            // is the decision's, not a timer's.
            long late = fresh || regrid ? Long.MAX_VALUE : now - (epoch + offset(count, rate));
            if (late > tolerance(rate)) {
                epoch = now;
                count = 0;
                maxLate = 0;
            } else if (late > maxLate) {
                maxLate = late;
            }
            count++;
            if (count >= rate) {
                // Rebase every round so count * remainder cannot overflow.
                epoch += offset(count, rate) + maxLate;
                count = 0;
                maxLate = 0;
            }
        } else if (fresh || now - (epoch + intervalNanos) >= 0) {
            epoch = now;
            count = 1;
        } else {
            count++;
        }
        fresh = false;
        regrid = false;
        lastStart = now;
    }

    /** @return how late a start may run and stay on the grid: one slot, or the timer slack if longer */
    long tolerance(int rate) {
        return Math.max(intervalNanos / rate, TIMER_SLACK_NANOS);
    }

    /** A new rate spaces the next start from the last one; a burst window just gets the new budget. */
    void rateChanged() {
        if (evenly && !fresh) {
            epoch = lastStart;
            count = 1;
            maxLate = 0;
            regrid = true;
        }
    }

    /** Forgets the past: the next start may go at once. */
    void reset() {
        fresh = true;
    }

    /** {@code floor(k * interval / rate)} without overflow for {@code k <= rate}. */
    private long offset(long k, int rate) {
        long whole = intervalNanos / rate;
        long rest = intervalNanos % rate;
        return k * whole + (k * rest) / rate;
    }
}
