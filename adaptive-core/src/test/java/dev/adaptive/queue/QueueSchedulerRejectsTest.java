package dev.adaptive.queue;

import dev.adaptive.retry.Backoff;
import dev.adaptive.time.RejectingScheduler;
import dev.adaptive.time.VirtualTime;
import dev.adaptive.trace.TraceEvent;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
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

    /** What a submit while the scheduler rejects gave: its future, or what it threw. */
    private record Submitted(CompletableFuture<Object> future, Throwable thrown) {
    }

    /** Submits a task answering {@code value} while the scheduler rejects, then lets it accept again. */
    private Submitted submitWhileRejecting(ThrottledQueue q, String value) {
        scheduler.rejecting = true;
        try {
            return new Submitted(q.submit(ctx -> CompletableFuture.completedFuture(value)), null);
        } catch (Throwable t) {
            return new Submitted(null, t);
        } finally {
            scheduler.rejecting = false;
        }
    }


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
     * A backoff whose wait the scheduler refused ends its job: the retry never runs, so nothing
     * counts it, neither the queue's {@code retried}, nor its limiter's retries, nor a
     * {@code Retry} trace event. The one that follows, armed, counts in all three.
     */
    @Test
    void aRetryWhoseWaitTheSchedulerRefusedIsNotCounted() {
        List<TraceEvent> events = new CopyOnWriteArrayList<>();
        ThrottledQueue q = ThrottledQueue.builder().minRate(1000).interval(Duration.ofSeconds(1)).ticker(time)
                .scheduler(scheduler).traceListener(events::add).retries(1)
                .retryBackoff(Backoff.constant(Duration.ofMillis(100))).build();
        CompletableFuture<Object> refused = q.submit(ctx -> {
            scheduler.rejecting = true; // shut down while the attempt runs
            return CompletableFuture.failedFuture(new IllegalStateException("down"));
        });
        scheduler.rejecting = false;
        time.advance(Duration.ofSeconds(10));
        assertThat(refused).as("the job whose retry could not be timed").isCompletedExceptionally();

        CompletableFuture<Object> retried = q.submit(ctx -> ctx.attempt() == 1
                ? CompletableFuture.failedFuture(new IllegalStateException("down"))
                : CompletableFuture.completedFuture("ok"));
        time.advance(Duration.ofSeconds(10));

        QueueState s = q.state();
        SoftAssertions.assertSoftly(soft -> {
            soft.assertThat(retried).as("the job whose retry was timed").isCompletedWithValue("ok");
            soft.assertThat(s.retried()).as("retried").isEqualTo(1);
            soft.assertThat(q.limiter().stats().errorRetries()).as("the limiter's errorRetries").isEqualTo(1);
            soft.assertThat(events).filteredOn(TraceEvent.Retry.class::isInstance).as("Retry events").hasSize(1);
            soft.assertThat(s.started() - s.retried()).as("first attempts").isEqualTo(2);
        });
    }

    /**
     * A retry whose backoff was frozen by a pause: resume() arms its wait again; if the scheduler
     * rejects that, the retry goes at once rather than never, and its job ends.
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
        assertThat(q.limiter().stats().limitFailures())
                .as("counted by its limiter: the window's timer, refused at the retry's start").isEqualTo(1);
        assertThat(q.state().limitFailures())
                .as("counted in the queue's state: that and the queue's own, the refused wait").isEqualTo(2);
    }

    /**
     * A submit to a stopped queue restarts it and thaws its frozen retries; a scheduler that
     * rejects their waits must not make submit() throw (it never does) nor leave a job live for
     * ever: the retry goes at once, the job ends, the queue's room is given back.
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

        Submitted submitted = submitWhileRejecting(q, "second");
        time.advance(Duration.ofMinutes(10));

        CompletableFuture<Object> third = q.submit(ctx -> CompletableFuture.completedFuture("third"));
        time.advance(Duration.ofMinutes(10));
        SoftAssertions.assertSoftly(soft -> {
            soft.assertThat(submitted.thrown()).as("submit() threw").isNull();
            soft.assertThat(first).as("the frozen retry's job").isDone();
            soft.assertThat(q.awaitIdle()).as("awaitIdle").isDone();
            soft.assertThat(third).as("a later submit within maxQueueSize=2").isCompletedWithValue("third");
        });
    }

    /**
     * A pacing wake-up the scheduler refuses is forgotten, not kept as "armed": the next drain
     * arms one again, and the queue goes on at its rate once the scheduler accepts.
     */
    @Test
    void aPacingWakeUpTheSchedulerRejectsOnceDoesNotStallTheQueueForEver() {
        ThrottledQueue q = ThrottledQueue.builder().minRate(1).interval(Duration.ofSeconds(1)).ticker(time)
                .scheduler(scheduler).build();
        CompletableFuture<Object> first = q.submit(ctx -> CompletableFuture.completedFuture("first"));
        // The second start must wait a second: its wake-up is rejected.
        Submitted submitted = submitWhileRejecting(q, "second"); // the scheduler accepts again from here
        Throwable threw = submitted.thrown();
        CompletableFuture<Object> sent = submitted.future();
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

    /** A task that answers after 10 ms of virtual time (timed by the clock, not the scheduler under test). */
    private CompletableFuture<Object> tenMillis() {
        CompletableFuture<Object> f = new CompletableFuture<>();
        time.schedule(() -> f.complete("ok"), Duration.ofMillis(10));
        return f;
    }

    /**
     * The timer of the first observation window is refused (it opens at the first start): the
     * window still ends once its interval is over, and the rate goes on moving, one step per clean
     * interval, instead of staying where it was for the queue's life.
     */
    @Test
    void aWindowTimerTheSchedulerRejectsAtTheFirstStartStillEndsItsWindow() {
        ThrottledQueue q = ThrottledQueue.builder().minRate(1).maxRate(9).interval(Duration.ofSeconds(1)).ticker(time)
                .scheduler(scheduler).build();
        assertThat(q.rate()).isEqualTo(5);
        Submitted first = submitWhileRejecting(q, "first");
        List<CompletableFuture<Object>> rest = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            rest.add(q.submit(ctx -> tenMillis()));
        }
        time.advance(Duration.ofMinutes(1));

        SoftAssertions.assertSoftly(soft -> {
            soft.assertThat(first.thrown()).as("submit() threw").isNull();
            soft.assertThat(rest).as("every job").allMatch(f -> f.isDone() && !f.isCompletedExceptionally());
            soft.assertThat(q.state().rateIncreases()).as("rate increases after the refused timer").isEqualTo(4);
            soft.assertThat(q.rate()).as("rate, four clean intervals on").isEqualTo(9);
            soft.assertThat(time.uncaught()).as("thrown into the scheduler").isEmpty();
        });
    }

    /**
     * The timer of a window that follows another is armed from the first one's end, on the
     * scheduler's thread: refused there, the rate goes on moving too, and nothing is thrown into
     * the scheduler.
     */
    @Test
    void aWindowTimerTheSchedulerRejectsWhenTheNextWindowOpensStillEndsItsWindow() {
        AtomicInteger decisions = new AtomicInteger();
        RateStrategy linear = RateStrategy.linear();
        ThrottledQueue q = ThrottledQueue.builder().minRate(1).maxRate(9).interval(Duration.ofSeconds(1)).ticker(time)
                .scheduler(scheduler).rateStrategy(o -> {
                    if (decisions.incrementAndGet() == 1) {
                        scheduler.rejecting = true; // shut down as the first window ends
                    }
                    return linear.decide(o);
                }).build();
        List<CompletableFuture<Object>> jobs = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            jobs.add(q.submit(ctx -> tenMillis()));
        }
        time.advance(Duration.ofMillis(1_000));
        assertThat(decisions).hasValue(1);
        scheduler.rejecting = false;
        jobs.add(q.submit(ctx -> tenMillis())); // a drain, which arms the pacing wake-up refused meanwhile
        time.advance(Duration.ofMinutes(1));

        SoftAssertions.assertSoftly(soft -> {
            soft.assertThat(jobs).as("every job").allMatch(f -> f.isDone() && !f.isCompletedExceptionally());
            soft.assertThat(q.state().rateIncreases()).as("rate increases").isEqualTo(4);
            soft.assertThat(q.rate()).isEqualTo(9);
            soft.assertThat(time.uncaught()).as("thrown into the scheduler").isEmpty();
            soft.assertThat(q.limiter().stats().limitFailures())
                    .as("counted by its limiter: a pacing wake-up and a window's timer at a start, refused").isEqualTo(2);
            soft.assertThat(q.state().limitFailures())
                    .as("counted in the queue's state: those and the queue's own, the next window's timer")
                    .isEqualTo(3);
        });
    }
}
