package dev.adaptive.queue;

import dev.adaptive.retry.Backoff;
import dev.adaptive.time.RejectingScheduler;
import dev.adaptive.time.VirtualTime;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@link ThrottledQueue} on a scheduler that rejects (as a shut-down executor's does): its
 * pacing wake-ups, the waits of its delayed retries and their thaw on resume must neither throw
 * at the caller nor leave a job, a slot or a count behind.
 */
class QueueSchedulerRejectsTest {


    private final VirtualTime time = new VirtualTime();
    private final RejectingScheduler scheduler = new RejectingScheduler(time);

    private ThrottledQueue queue() {
        return ThrottledQueue.builder().minRate(1000).interval(Duration.ofSeconds(1)).ticker(time).scheduler(scheduler)
                .retries(1).retryBackoff(Backoff.constant(Duration.ofMillis(100))).build();
    }

    /** A backoff whose wait the scheduler refused is not kept as a delayed retry. */
    @Test
    void aBackoffWaitTheSchedulerRejectsIsNotCountedAsADelayedRetry() {
        ThrottledQueue q = queue();
        AtomicInteger calls = new AtomicInteger();
        CompletableFuture<Object> r = q.submit(ctx -> {
            calls.incrementAndGet();
            scheduler.rejecting = true; // shut down while the attempt runs
            return CompletableFuture.failedFuture(new IllegalStateException("down"));
        });
        scheduler.rejecting = false;
        time.advance(Duration.ofSeconds(10));

        assertThat(r).isCompletedExceptionally();          // the retry could not be timed: it ends
        assertThat(q.awaitIdle()).isDone();                 // the queue's own bookkeeping agrees
        assertThat(calls).hasValue(1);
        QueueState s = q.state();
        assertThat(s.delayedRetries()).as("delayedRetries of an idle queue: " + s).isZero();
        assertThat(s.idle()).as("state().idle() of a queue whose awaitIdle completed").isTrue();
    }

    /**
     * A retry whose backoff was frozen by a pause: resume() arms it; if the scheduler rejects,
     * thaw() throws under the lock after the status is already RUNNING, so the wait is never
     * armed again (resume() now does nothing) and the job's future never completes.
     */
    @Test
    void aFrozenRetryWhoseTimerIsRejectedOnResumeStillEndsItsJob() {
        ThrottledQueue q = queue();
        CompletableFuture<Object> answer = new CompletableFuture<>();
        CompletableFuture<Object> r = q.submit(ctx -> ctx.attempt() == 1 ? answer : CompletableFuture.completedFuture("ok"));
        q.pause();
        answer.completeExceptionally(new IllegalStateException("down")); // its backoff is frozen
        assertThat(q.state().delayedRetries()).isEqualTo(1);

        scheduler.rejecting = true;
        Throwable thrown = null;
        try {
            q.resume();
        } catch (RejectedExecutionException e) {
            thrown = e;
        }
        scheduler.rejecting = false; // even if it accepts again
        q.resume();
        time.advance(Duration.ofMinutes(10));

        assertThat(q.state().status()).isEqualTo(QueueStatus.RUNNING);
        assertThat(r).as("resume() threw " + thrown + "; the job").isDone();
        assertThat(q.awaitIdle()).isDone();
    }

    /**
     * A submit to a stopped queue restarts it, thawing the frozen retries under the lock after
     * the new job is already in the queue's live set: the rejection escapes submit() (documented
     * never to throw), the caller gets no future, and the job stays live for ever.
     */
    @Test
    void aSubmitThatRestartsAStoppedQueueWhoseSchedulerRejectsNeitherThrowsNorLeaksTheJob() {
        ThrottledQueue q = ThrottledQueue.builder().minRate(1000).interval(Duration.ofSeconds(1)).ticker(time)
                .scheduler(scheduler).retries(1).retryBackoff(Backoff.constant(Duration.ofMillis(100)))
                .maxQueueSize(2).build();
        CompletableFuture<Object> answer = new CompletableFuture<>();
        CompletableFuture<Object> first = q.submit(ctx -> ctx.attempt() == 1 ? answer : CompletableFuture.completedFuture("ok"));
        q.stop();
        answer.completeExceptionally(new IllegalStateException("down")); // its backoff is frozen

        scheduler.rejecting = true;
        CompletableFuture<Object> second = null;
        Throwable thrown = null;
        try {
            second = q.submit(ctx -> CompletableFuture.completedFuture("second"));
        } catch (Throwable t) {
            thrown = t;
        }
        scheduler.rejecting = false;
        time.advance(Duration.ofMinutes(10));

        Throwable threw = thrown;
        CompletableFuture<Object> third = q.submit(ctx -> CompletableFuture.completedFuture("third"));
        time.advance(Duration.ofMinutes(10));
        SoftAssertions.assertSoftly(soft -> {
            soft.assertThat(threw).as("submit() threw").isNull();
            soft.assertThat(first).as("the frozen retry's job").isDone();
            soft.assertThat(q.awaitIdle()).as("awaitIdle").isDone();
            soft.assertThat(third).as("a later submit within maxQueueSize=2").isCompletedWithValue("third");
        });
    }

    /**
     * LimiterCore.armGateWake stores the GateWake before scheduler.schedule(): a rejected
     * schedule leaves a wake with a null timer that counts as "an earlier wake-up is armed"
     * for ever (and cancelGateWake dereferences its null timer).
     */
    @Test
    void aPacingWakeUpTheSchedulerRejectsOnceDoesNotStallTheQueueForEver() {
        ThrottledQueue q = ThrottledQueue.builder().minRate(1).interval(Duration.ofSeconds(1)).ticker(time)
                .scheduler(scheduler).build();
        CompletableFuture<Object> first = q.submit(ctx -> CompletableFuture.completedFuture("first"));
        scheduler.rejecting = true; // the second start must wait a second: its wake-up is rejected
        CompletableFuture<Object> second = null;
        Throwable thrown = null;
        try {
            second = q.submit(ctx -> CompletableFuture.completedFuture("second"));
        } catch (Throwable t) {
            thrown = t;
        }
        scheduler.rejecting = false; // accepts again
        Throwable threw = thrown;
        CompletableFuture<Object> sent = second;
        Throwable thirdThrew = null;
        CompletableFuture<Object> third = null;
        try {
            third = q.submit(ctx -> CompletableFuture.completedFuture("third"));
        } catch (Throwable t) {
            thirdThrew = t;
        }
        time.advance(Duration.ofMinutes(10));
        Throwable t3 = thirdThrew;
        CompletableFuture<Object> f3 = third;
        SoftAssertions.assertSoftly(soft -> {
            soft.assertThat(first).isCompletedWithValue("first");
            soft.assertThat(threw).as("second submit() threw").isNull();
            soft.assertThat(sent).as("second, 10 min later at 1/s").isNotNull().isDone();
            soft.assertThat(t3).as("third submit() threw, the scheduler accepting again").isNull();
            soft.assertThat(f3).as("third, 10 min later at 1/s").isNotNull().isCompletedWithValue("third");
            soft.assertThat(q.state().pending()).as("pending").isZero();
        });
    }
}
