package dev.adaptive.queue;

import dev.adaptive.internal.Nanos;
import dev.adaptive.time.Scheduler;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.BiConsumer;

/**
 * Retries waiting out their backoff delay. While the queue runs, each is armed on the
 * scheduler; while it does not, each is frozen with the delay it has left, so a pause or stop
 * neither shortens nor lengthens a backoff. Not thread-safe: the queue calls it under its lock.
 */
final class DelayedRetries {

    private final Scheduler scheduler;
    /** Called by the scheduler, without the lock, with the job and the token of its timer. */
    private final BiConsumer<Job<?>, Object> onDue;
    private final Set<Job<?>> jobs = new LinkedHashSet<>();

    DelayedRetries(Scheduler scheduler, BiConsumer<Job<?>, Object> onDue) {
        this.scheduler = scheduler;
        this.onDue = onDue;
    }

    /**
     * @param delayNanos the delay, positive
     * @param armed      whether the queue runs; if not, the delay stays frozen until {@link #thaw}
     */
    void add(Job<?> job, long delayNanos, boolean armed, long now) {
        job.remainingNanos = delayNanos;
        jobs.add(job);
        if (armed) {
            arm(job, now);
        }
    }

    /**
     * @return {@code true}, and the job is no longer delayed, if {@code token} is its current
     *         timer; {@code false} for a timer that was frozen, withdrawn or cleared meanwhile
     */
    boolean takeIfCurrent(Job<?> job, Object token) {
        if (job.timerToken != token || !jobs.remove(job)) {
            return false;
        }
        job.timer = null;
        job.timerToken = null;
        return true;
    }

    /** @return whether the job was delayed; it no longer is */
    boolean remove(Job<?> job) {
        if (!jobs.remove(job)) {
            return false;
        }
        disarm(job);
        return true;
    }

    /** Cancels every timer, keeping what each delay has left. */
    void freeze(long now) {
        for (Job<?> job : jobs) {
            if (job.timer != null) {
                disarm(job);
                job.remainingNanos = Math.max(0, Nanos.between(now, job.dueNanos));
            }
        }
    }

    /** @return the jobs with nothing left to wait, removed; the others are armed again */
    List<Job<?>> thaw(long now) {
        List<Job<?>> ready = new ArrayList<>();
        for (Job<?> job : new ArrayList<>(jobs)) {
            if (job.timer != null) {
                continue;
            }
            if (job.remainingNanos <= 0) {
                jobs.remove(job);
                ready.add(job);
            } else {
                arm(job, now);
            }
        }
        return ready;
    }

    /** @return every delayed job, each disarmed; none is delayed any more */
    List<Job<?>> clear() {
        List<Job<?>> all = new ArrayList<>(jobs);
        all.forEach(DelayedRetries::disarm);
        jobs.clear();
        return all;
    }

    int size() {
        return jobs.size();
    }

    boolean isEmpty() {
        return jobs.isEmpty();
    }

    private void arm(Job<?> job, long now) {
        Object token = new Object();
        job.timerToken = token;
        job.dueNanos = Nanos.plus(now, job.remainingNanos);
        job.timer = scheduler.schedule(() -> onDue.accept(job, token), job.remainingNanos);
    }

    private static void disarm(Job<?> job) {
        if (job.timer != null) {
            job.timer.cancel();
            job.timer = null;
            job.timerToken = null;
        }
    }
}
