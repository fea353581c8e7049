package dev.adaptive;

import dev.adaptive.internal.Nanos;
import dev.adaptive.retry.RetryBudget;

import java.util.concurrent.atomic.LongAdder;

/**
 * A limiter's count of a {@link RetryBudget}: first attempts and retries in a sliding window of
 * {@value #BUCKETS} buckets, so that the window forgets in steps of a tenth of itself. Thread-safe:
 * retries, bucket changes and reports under this object's monitor; a first attempt in the newest
 * bucket (all but one in a tenth of the window) takes no monitor, only an adder, since every
 * exchange makes one and the monitor cost each of them two atomic writes and, with several
 * senders, a contended lock.
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
    /** {@link #newest}, for {@link #firstAttempt}'s test outside the monitor; written under it. */
    private volatile long published = Long.MIN_VALUE;
    /**
     * First attempts counted outside the monitor, to be added to the newest bucket before it
     * changes or is read. One that races a change of bucket may land in the next: it is then
     * forgotten a tenth of the window late, never early.
     */
    private final LongAdder unfolded = new LongAdder();
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
    void firstAttempt(long now) {
        long newestSoFar = published;
        if (newestSoFar != Long.MIN_VALUE && Math.floorDiv(now, bucketNanos) <= newestSoFar) {
            // The newest bucket (an older reading counts in it too, as slot() says).
            unfolded.increment();
            return;
        }
        synchronized (this) {
            fold();
            firsts[slot(now)]++;
            firstSum++;
        }
    }

    /**
     * @param now a retry is wanted
     * @return whether the budget allows it; if so it is counted
     */
    synchronized boolean tryRetry(long now) {
        fold();
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
        fold();
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
        if (bucket != newest) {
            newest = bucket;
            published = bucket;
        }
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

    /** Adds the first attempts counted outside the monitor to the newest bucket; under the monitor. */
    private void fold() {
        long n = unfolded.sumThenReset();
        if (n != 0 && newest != Long.MIN_VALUE) {
            int s = (int) Math.floorMod(newest, (long) BUCKETS);
            firsts[s] += n;
            firstSum += n;
        }
    }

    private void clear(int i) {
        firstSum -= firsts[i];
        retrySum -= retries[i];
        firsts[i] = 0;
        retries[i] = 0;
        slotOf[i] = Long.MIN_VALUE;
    }
}
