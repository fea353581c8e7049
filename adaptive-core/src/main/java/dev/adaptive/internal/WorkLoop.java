package dev.adaptive.internal;

import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A lock-free work loop: whoever has news for a piece of serial work calls {@link #signal()};
 * exactly one pass runs at a time, and a signal that arrives while a pass runs only counts, so
 * the running loop makes one more pass for it instead of a second pass starting beside it.
 * Signals from inside a pass therefore never recurse, and a stream of synchronous news runs in
 * constant stack depth.
 *
 * <p>The loop is parameterised by the executor its passes run on: {@code Runnable::run} runs
 * them on the signalling thread (the thread with the news does the work, and nothing else
 * serialises it); an executor that hops onto one event-loop context runs every pass there, so
 * the work needs no locks beyond this counter and never runs on another thread.
 *
 * <p>A pass may hand its thread back before its work is done (an event loop must not be held by
 * a long input): it returns {@code false} after arranging for {@link #resume()} to be called
 * later. The loop stays claimed meanwhile, so signals still only count, and the resumed pass
 * covers them.
 *
 * <p>A pass must not throw: the loop would stay claimed and never run again; catch inside it.
 * Not API: its package is internal and may change without notice. Thread-safe.
 */
public final class WorkLoop {

    /** One pass over the serial work. */
    @FunctionalInterface
    public interface Pass {
        /**
         * @return {@code true} once the pass has done what the news it saw asked for;
         *         {@code false} if it yielded and arranged for {@link WorkLoop#resume()}
         */
        boolean run();
    }

    private final AtomicInteger wip = new AtomicInteger();
    private final Executor executor;
    private final Pass pass;
    // Made once: a signal that starts the loop allocates nothing.
    private final Runnable drain = () -> drain(1);
    private final Runnable resumed = () -> drain(wip.get());

    /**
     * @param executor where passes run; {@code Runnable::run} for the signalling thread
     * @param pass     the work; must not throw
     */
    public WorkLoop(Executor executor, Pass pass) {
        this.executor = Objects.requireNonNull(executor, "executor");
        this.pass = Objects.requireNonNull(pass, "pass");
    }

    /** Says that there is news: runs a pass now (through the executor) unless one is running. */
    public void signal() {
        if (wip.getAndIncrement() == 0) {
            executor.execute(drain);
        }
    }

    /** Continues after a pass that yielded; call once per yield, never otherwise. */
    public void resume() {
        executor.execute(resumed);
    }

    private void drain(int missed) {
        // Every signal counted before a pass starts is covered by that pass: after it, take
        // those off and go round again only for the ones that came during it.
        for (;;) {
            if (!pass.run()) {
                return; // yielded: still claimed, resume() goes on
            }
            missed = wip.addAndGet(-missed);
            if (missed == 0) {
                return;
            }
        }
    }
}
