package dev.adaptive.queue;

/**
 * The outcomes one rate decision is made on. Not thread-safe: the queue changes it under its
 * lock. A window is replaced, never reused, so an attempt can tell by identity whether the
 * window it started in is still open.
 */
final class ObservationWindow {

    final long startNanos;
    final long endNanos;
    int started;
    int succeeded;
    int failed;
    int uncounted;
    /** Attempts started in this window and not settled; used by {@link AdjustmentTiming#SETTLED}. */
    int outstanding;
    /** {@link AdjustmentTiming#SETTLED}: the interval is over, the decision waits for {@code outstanding == 0}. */
    boolean closedForStarts;

    ObservationWindow(long startNanos, long intervalNanos) {
        this.startNanos = startNanos;
        this.endNanos = startNanos + intervalNanos;
    }

    void record(boolean failedAttempt, boolean countsAgainstRate) {
        if (!failedAttempt) {
            succeeded++;
        } else if (countsAgainstRate) {
            failed++;
        } else {
            uncounted++;
        }
    }

    /** @return whether anything started or settled in this window */
    boolean sawAnything() {
        return started > 0 || succeeded > 0 || failed > 0 || uncounted > 0;
    }

    RateObservation observe(int rate, int minRate, int maxRate, int errorsPerInterval, long now) {
        return new RateObservation(rate, minRate, maxRate, started, succeeded, failed, uncounted, errorsPerInterval,
                startNanos, now);
    }
}
