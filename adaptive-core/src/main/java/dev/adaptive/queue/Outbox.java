package dev.adaptive.queue;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * Effects decided under the queue's lock (start a task, complete a future, tell a listener) and
 * run after it is released, in the order they were decided, by one thread at a time.
 *
 * <p>Why: user code must never run under the lock (it may call back into the queue or block),
 * and a task that completes synchronously would otherwise settle, dispatch and start the next
 * task recursively, growing the stack with every task. Here a nested {@link #drain()} just
 * records that more work arrived, and the outer loop runs it.
 */
final class Outbox {

    private final Queue<Runnable> effects = new ConcurrentLinkedQueue<>();
    private final AtomicInteger wip = new AtomicInteger();
    private final LongAdder failures = new LongAdder();

    /** Must be called under the queue's lock, so that the order of effects is the lock order. */
    void post(Runnable effect) {
        effects.add(effect);
    }

    /** Runs every posted effect unless another thread is already doing so. Never under the lock. */
    void drain() {
        if (wip.getAndIncrement() != 0) {
            return;
        }
        int missed = 1;
        for (;;) {
            Runnable effect;
            while ((effect = effects.poll()) != null) {
                try {
                    effect.run();
                } catch (Throwable t) {
                    // Effects guard user code themselves; this only keeps a bug in one from
                    // stranding the effects behind it. An Error too: rethrowing it would leave
                    // the work counter up, and every later effect (future completions, the next
                    // starts) would wait for a drain that never comes.
                    failures.increment();
                }
            }
            missed = wip.addAndGet(-missed);
            if (missed == 0) {
                return;
            }
        }
    }

    long failures() {
        return failures.sum();
    }
}
