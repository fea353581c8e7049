package dev.adaptive.time;

import java.util.concurrent.RejectedExecutionException;

/**
 * A {@link Scheduler} on a {@link VirtualTime} that fails as a user's scheduler may, and the
 * engine must survive without leaking a slot or leaving work pending: it throws
 * {@link RejectedExecutionException} from {@link #schedule} while {@link #rejecting} is set, as
 * a shut-down executor does, and the handles it returns throw {@link #cancelThrows} from
 * {@link Cancellable#cancel()} while that is set, leaving their task scheduled (it runs when due).
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

    /** @param time the virtual time that runs what is accepted */
    public RejectingScheduler(VirtualTime time) {
        this.time = time;
    }

    @Override
    public Cancellable schedule(Runnable task, long delayNanos) {
        if (rejecting) {
            throw new RejectedExecutionException("scheduler shut down");
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
