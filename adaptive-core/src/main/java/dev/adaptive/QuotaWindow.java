package dev.adaptive;

import dev.adaptive.internal.Nanos;
import dev.adaptive.retry.Quota;

/**
 * The quota a server announced, as a limiter keeps it: how many requests it will still accept
 * until its window renews. While a window is open, {@link #bound} is what the limiter may
 * have in flight: every request in flight is one the announced count does not yet cover, so a
 * start is admitted only while in-flight is below what remains. Thread-safe: changes are made
 * under this object's monitor, and {@link #bound} is read without it on the acquire path.
 *
 * <ul>
 *   <li>An announcement opens a window when none is open (or the open one has renewed): what
 *       remains is what it says, until its reset.</li>
 *   <li>Within an open window, what remains only goes down: the lowest count announced wins
 *       (answers overtake each other), and an answer without an announcement counts as one
 *       request spent. The renewal is the earliest announced: servers round the time to it up
 *       to whole seconds, so each answer's reset, read when it arrives, is at or after the
 *       server's, and the earliest is the closest.</li>
 *   <li>An announcement whose reset is zero says the window renews now: it holds nothing.</li>
 *   <li>At the renewal the window closes and the bound is lifted, until the next announcement.</li>
 * </ul>
 */
final class QuotaWindow {

    /** No window: nothing bounds the in-flight count. */
    static final int NONE = Integer.MAX_VALUE;

    private final long maxResetNanos;
    /** What the limiter may have in flight: {@link #NONE}, or what remains of the open window. */
    volatile int bound = NONE;
    private boolean open;
    private long remaining;
    private long resetAtNanos;
    private long lastStartNanos;
    /** Whether a start was granted since the open window opened: its first start goes at once. */
    private boolean startedInWindow;
    /** Whether the hold of the open window (what remains at or below in flight) has been told. */
    private boolean holdTold;

    /** @param maxResetNanos the cap on a window's reset, as on a Retry-After pause */
    QuotaWindow(long maxResetNanos) {
        this.maxResetNanos = maxResetNanos;
    }

    /**
     * An answer ended.
     *
     * @param quota    what it announced, or {@code null}
     * @param now      the ticker reading
     * @return the reset of a window it opened or moved, for the limiter to arm its end at
     *         ({@link #expire(long, long)} with it); {@code 0} if none
     */
    synchronized long settled(Quota quota, long now) {
        if (open && Nanos.between(resetAtNanos, now) >= 0) {
            close();
        }
        if (quota == null) {
            if (open && remaining > 0) {
                remaining--; // it was sent, so it spent quota the answer did not account for
                bound = (int) Math.min(remaining, NONE - 1);
            }
            return 0;
        }
        long wait = Math.min(Nanos.of(quota.reset()), maxResetNanos);
        if (wait <= 0) {
            return 0;
        }
        long resetAt = Nanos.plus(now, wait);
        long armAt = 0;
        if (!open) {
            open = true;
            holdTold = false;
            startedInWindow = false;
            remaining = quota.remaining();
            resetAtNanos = resetAt;
            armAt = resetAt;
        } else {
            remaining = Math.min(remaining, quota.remaining());
            if (Nanos.between(resetAtNanos, resetAt) < 0) {
                resetAtNanos = resetAt;
                armAt = resetAt;
            }
        }
        bound = (int) Math.min(remaining, NONE - 1);
        return armAt;
    }

    /**
     * @param inflight in flight once the answer's slot is freed
     * @return whether a hold begins now: the first time in this window that what remains is at
     *         or below what is in flight
     */
    synchronized boolean holdBegins(int inflight) {
        if (!open || holdTold || remaining > inflight) {
            return false;
        }
        holdTold = true;
        return true;
    }

    /** @return the renewal of the open window, or 0 */
    synchronized long resetAtNanos() {
        return open ? resetAtNanos : 0;
    }

    /** @return what remains of the open window, or -1 */
    synchronized long remaining() {
        return open ? remaining : -1;
    }

    /**
     * The renewal armed for {@code armedAt} is due.
     *
     * @param armedAt what {@link #settled} returned when the timer was armed
     * @param now     the ticker reading
     * @return {@code 0} if the window closed (the bound is lifted); how long it still has if the
     *         timer fired before its reset by {@code now} (a scheduler early, or a ticker behind
     *         it), for the limiter to look again then; {@code -1} if it moved (its own timer
     *         ends it), or another window opened since
     */
    synchronized long expire(long armedAt, long now) {
        if (!open || resetAtNanos != armedAt) {
            return -1;
        }
        long left = Nanos.between(now, resetAtNanos);
        if (left > 0) {
            return left;
        }
        close();
        return 0;
    }

    /**
     * The renewal for {@code armedAt} cannot be timed (the scheduler refused its timer, or the
     * ticker threw when it fired): the window it would have ended closes now, rather than bound
     * dispatch with nothing to lift it.
     *
     * @param armedAt what {@link #settled} returned
     * @return whether the window closed; {@code false} if it had moved or another had opened
     */
    synchronized boolean expireUntimed(long armedAt) {
        if (open && resetAtNanos == armedAt) {
            close();
            return true;
        }
        return false;
    }

    /**
     * For a limiter that spreads what remains over the window: the earliest next start.
     *
     * @param now      the ticker reading
     * @param inflight in flight now
     * @return {@code now} or earlier to admit a start now, or a later reading
     */
    synchronized long notBefore(long now, int inflight) {
        long left = remaining - inflight;
        if (!open || left <= 0 || !startedInWindow) {
            return now; // nothing to spread, or the bound holds every start anyway
        }
        // The starts left go evenly over [last start, reset): the last start's own share
        // of that time comes first, so none lands on the reset itself.
        long spacing = Nanos.between(lastStartNanos, resetAtNanos) / (left + 1);
        return Nanos.plus(lastStartNanos, spacing);
    }

    /** @param now the start the limiter just granted */
    synchronized void started(long now) {
        lastStartNanos = now;
        startedInWindow = open;
    }

    private void close() {
        open = false;
        bound = NONE;
    }
}
