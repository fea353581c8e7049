package dev.adaptive.time;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A {@link Scheduler} on a {@link VirtualTime} that fails as a user's scheduler may, and the
 * engine must survive without leaking a slot or leaving work pending: it throws
 * {@link RejectedExecutionException} from {@link #schedule} while {@link #rejecting} is set, as
 * a shut-down executor does, and the handles it returns throw {@link #cancelThrows} from
 * {@link Cancellable#cancel()} while that is set, leaving their task scheduled (it runs when due).
 * {@link #refuseNext(int)} makes it refuse a given number of timers and then accept again, as a
 * saturated executor that rejects for a while does.
 */
public final class RejectingScheduler implements Scheduler {

    private final VirtualTime time;
    /** While set, every {@link #schedule} throws. */
    public volatile boolean rejecting;
    /**
     * While set, a cancel of any handle this scheduler returned throws it, and cancels nothing.
     * An {@code Error}: the hardest case, which a {@code catch (Exception e)} lets through.
     */
    public volatile Error cancelThrows;
    private final AtomicInteger refusalsLeft = new AtomicInteger();
    private final AtomicInteger refused = new AtomicInteger();

    /** @param time the virtual time that runs what is accepted */
    public RejectingScheduler(VirtualTime time) {
        this.time = time;
    }

    /** The next {@code n} timers asked for are refused, whatever {@link #rejecting} says; then it accepts again. */
    public void refuseNext(int n) {
        refusalsLeft.set(n);
    }

    /** @return the timers refused so far, for either reason */
    public int refused() {
        return refused.get();
    }

    @Override
    public Cancellable schedule(Runnable task, long delayNanos) {
        if (rejecting) {
            refused.incrementAndGet();
            throw new RejectedExecutionException("scheduler shut down");
        }
        if (refusalsLeft.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
            refused.incrementAndGet();
            throw new RejectedExecutionException("scheduler saturated");
        }
        Cancellable scheduled = time.schedule(task, delayNanos);
        return () -> {
            Error broken = cancelThrows;
            if (broken != null) {
                throw broken;
            }
            return scheduled.cancel();
        };
    }
}
