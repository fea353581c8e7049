package dev.adaptive.queue;

/**
 * Where the next start may go, for a rate of {@code rate} starts per interval. Not thread-safe:
 * the queue calls it under its lock.
 *
 * <p><b>Evenly spaced.</b> The {@code k}-th start after an epoch goes at
 * {@code epoch + floor(k * interval / rate)}, so slots never drift from rounding (3 per second
 * start at 0, 333_333_333, 666_666_666 and 1_000_000_000 ns). A start later than its slot
 * (the queue was empty, held or at its concurrency bound) becomes the new epoch: lost slots are
 * never made up with a burst.
 *
 * <p><b>Bursts.</b> A burst window opens at the first start after the last one closed; up to
 * {@code rate} starts go in it at once, the next waits for {@code epoch + interval}.
 */
final class Pacer {

    private final long intervalNanos;
    private final boolean evenly;
    private boolean fresh = true;
    private long epoch;
    private long count;
    private long lastStart;

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
            if (fresh || now - (epoch + offset(count, rate)) > 0) {
                epoch = now;
                count = 0;
            }
            count++;
            if (count >= rate) {
                // Rebase every full interval so count * remainder cannot overflow.
                epoch += offset(count, rate);
                count = 0;
            }
        } else if (fresh || now - (epoch + intervalNanos) >= 0) {
            epoch = now;
            count = 1;
        } else {
            count++;
        }
        fresh = false;
        lastStart = now;
    }

    /** A new rate spaces the next start from the last one; a burst window just gets the new budget. */
    void rateChanged() {
        if (evenly && !fresh) {
            epoch = lastStart;
            count = 1;
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
