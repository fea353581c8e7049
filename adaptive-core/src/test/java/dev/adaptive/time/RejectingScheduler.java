package dev.adaptive.time;

import java.util.concurrent.RejectedExecutionException;

/**
 * A {@link Scheduler} on a {@link VirtualTime} that throws {@link RejectedExecutionException}
 * from {@link #schedule} while {@link #rejecting} is set, as a shut-down executor does: what a
 * user's scheduler may do, which the engine must survive without leaking a slot or leaving work
 * pending.
 */
public final class RejectingScheduler implements Scheduler {

    private final VirtualTime time;
    /** While set, every {@link #schedule} throws. */
    public volatile boolean rejecting;

    /** @param time the virtual time that runs what is accepted */
    public RejectingScheduler(VirtualTime time) {
        this.time = time;
    }

    @Override
    public Cancellable schedule(Runnable task, long delayNanos) {
        if (rejecting) {
            throw new RejectedExecutionException("scheduler shut down");
        }
        return time.schedule(task, delayNanos);
    }
}
