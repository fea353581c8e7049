package dev.adaptive.internal;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs passes of one piece of work, one thread at a time, without a lock: whoever has news for
 * the work calls {@link #run(Runnable)}; if no thread is in the loop, the caller enters it and
 * runs passes until no call came in during the last one; if one is, the caller only marks that
 * another pass is due and returns at once, and the thread in the loop runs that pass before it
 * leaves.
 *
 * <p>Why: news is never lost (a call that arrives while a pass runs gets a pass after it), the
 * work never runs concurrently with itself, and work that causes more work (a granted slot
 * whose task completes at once and frees the slot again) becomes iteration in the loop instead
 * of recursion, so any number of synchronous steps run in constant stack depth.
 *
 * <p>A pass must not throw: the loop would stay marked busy and every later call would only
 * mark a pass due. Callers that run user code in a pass catch what it throws.
 *
 * <p>Thread-safe. Not API: its package is internal and may change without notice.
 */
public final class WorkLoop {

    /** Calls since the loop was entered that still want a pass; 0 when no thread is in it. */
    private final AtomicInteger due = new AtomicInteger();

    /**
     * Runs {@code pass} now and again for every call that arrives meanwhile, or, if another
     * thread is in the loop, leaves a pass due for it.
     *
     * @param pass the work; runs on the calling thread if it enters the loop
     */
    public void run(Runnable pass) {
        if (due.getAndIncrement() != 0) {
            return;
        }
        int missed = 1;
        for (;;) {
            pass.run();
            missed = due.addAndGet(-missed);
            if (missed == 0) {
                return;
            }
        }
    }
}
