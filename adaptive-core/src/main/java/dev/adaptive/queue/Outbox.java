package dev.adaptive.queue;

import dev.adaptive.internal.Listeners;
import dev.adaptive.internal.WorkLoop;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.LongAdder;

/**
 * Effects decided under the queue's lock (tell the limiter its gate changed, queue a retry whose
 * wait is over, cancel the jobs of an abort, complete idle waiters, tell rate listeners) and run
 * after it is released, in the order they were decided, by one thread at a time.
 *
 * <p>Why: user code must never run under the lock (it may call back into the queue or block),
 * and neither may a call into the limiter that can grant a lease, since a grant calls the task.
 * An effect that causes more effects (a retry whose first step completes an idle waiter) does
 * not recurse: a nested {@link #drain()} just records that more work arrived, and the outer
 * loop runs it.
 */
final class Outbox {

    private final Queue<Runnable> effects = new ConcurrentLinkedQueue<>();
    private final WorkLoop loop = new WorkLoop(Runnable::run, () -> {
        runPosted();
        return true;
    });
    private final LongAdder failures = new LongAdder();

    /** Must be called under the queue's lock, so that the order of effects is the lock order. */
    void post(Runnable effect) {
        effects.add(effect);
    }

    /** Runs every posted effect unless another thread is already doing so. Never under the lock. */
    void drain() {
        loop.signal();
    }

    private void runPosted() {
        Runnable effect;
        while ((effect = effects.poll()) != null) {
            // Effects guard user code themselves; this only keeps a bug in one from stranding
            // the effects behind it. An Error too: rethrowing it would leave the loop busy, and
            // every later effect (future completions, the next starts) would wait for a drain
            // that never comes.
            Listeners.tell(effect, null, (e, unused) -> e.run(), failures);
        }
    }

    long failures() {
        return failures.sum();
    }
}
