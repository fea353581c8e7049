package dev.adaptive;

import dev.adaptive.internal.Nanos;
import dev.adaptive.retry.RetryBudget;

/**
 * A limiter's count of a {@link RetryBudget}: first attempts and retries in a sliding window of
 * {@value #BUCKETS} buckets, so that the window forgets in steps of a tenth of itself. Thread-safe,
 * under this object's monitor (one short critical section per attempt).
 */
final class RetryAllowance {

    static final int BUCKETS = 10;

    private final RetryBudget budget;
    private final long bucketNanos;
    private final double floor;
    private final long[] firsts = new long[BUCKETS];
    private final long[] retries = new long[BUCKETS];
    /** The bucket number (time / bucket width) each slot holds. */
    private final long[] slotOf = new long[BUCKETS];
    /** The newest bucket counted in; no reading takes the window back from it. */
    private long newest = Long.MIN_VALUE;
    private long firstSum;
    private long retrySum;
    private long refused;

    RetryAllowance(RetryBudget budget) {
        this.budget = budget;
        this.bucketNanos = Math.max(1, Nanos.of(budget.window()) / BUCKETS);
        this.floor = budget.minPerSecond() * budget.window().toNanos() / 1e9;
        java.util.Arrays.fill(slotOf, Long.MIN_VALUE);
    }

    /** @param now a first attempt starts */
    synchronized void firstAttempt(long now) {
        firsts[slot(now)]++;
        firstSum++;
    }

    /**
     * @param now a retry is wanted
     * @return whether the budget allows it; if so it is counted
     */
    synchronized boolean tryRetry(long now) {
        int s = slot(now);
        if (retrySum + 1 > budget.ratio() * firstSum + floor) {
            refused++;
            return false;
        }
        retries[s]++;
        retrySum++;
        return true;
    }

    /** @return a message saying what the budget held, for the refusal's error */
    synchronized String describe() {
        return retrySum + " retries against " + firstSum + " first attempts in the last " + budget.window()
                + " (retryBudgetRatio=" + budget.ratio() + ", retryBudgetMinPerSecond=" + budget.minPerSecond() + ")";
    }

    synchronized long refused() {
        return refused;
    }

    /**
     * @return the slot of {@code now}'s bucket, emptied of an older bucket's counts first; a
     *         reading older than the newest bucket counts in the newest
     */
    private int slot(long now) {
        // Readings come from several threads (a lease's start stamped on another), and one may
        // stand in for a reading the ticker could not make (an executor's attempt's start): one
        // that old, taken as it is, found a newer bucket in its slot and emptied it, forgetting
        // retries still in the window.
        long bucket = Math.max(Math.floorDiv(now, bucketNanos), newest);
        newest = bucket;
        int s = (int) Math.floorMod(bucket, (long) BUCKETS);
        if (slotOf[s] != bucket) {
            // Every slot between the last one used and this one is older than the window now.
            for (int i = 0; i < BUCKETS; i++) {
                if (slotOf[i] != Long.MIN_VALUE && bucket - slotOf[i] >= BUCKETS) {
                    clear(i);
                }
            }
            clear(s);
            slotOf[s] = bucket;
        }
        return s;
    }

    private void clear(int i) {
        firstSum -= firsts[i];
        retrySum -= retries[i];
        firsts[i] = 0;
        retries[i] = 0;
        slotOf[i] = Long.MIN_VALUE;
    }
}
