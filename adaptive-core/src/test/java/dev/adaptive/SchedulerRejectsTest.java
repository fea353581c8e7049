package dev.adaptive;

import dev.adaptive.limit.FixedLimit;
import dev.adaptive.limit.Outcome;
import dev.adaptive.retry.Quota;
import dev.adaptive.retry.RetryPolicy;
import dev.adaptive.time.RejectingScheduler;
import dev.adaptive.time.VirtualTime;
import dev.adaptive.trace.TraceEvent;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A user-supplied scheduler that rejects (a shut-down ScheduledExecutorService throws
 * RejectedExecutionException) must not leak a slot, pause the limiter for good, or leave an
 * execution's result pending forever.
 */
class SchedulerRejectsTest {


    private final VirtualTime time = new VirtualTime();
    private final RejectingScheduler scheduler = new RejectingScheduler(time);

    private Limiter limiter(int n) {
        return Limiter.builder().limit(FixedLimit.of(n)).ticker(time).scheduler(scheduler).build();
    }

    /** Suspicion (b): LimiterCore.onRelease calls pauseFor before its try/finally. */
    @Test
    void aRateLimitedReleaseWhoseRetryAfterTimerIsRejectedStillFreesTheSlotAndThePauseEnds() {
        Limiter limiter = limiter(2);
        Lease lease = limiter.tryAcquire().orElseThrow();
        releaseWhileTheSchedulerRejects(lease, Outcome.rateLimited(Duration.ofSeconds(5)));
        time.advance(Duration.ofMinutes(10));

        assertThat(lease.isReleased()).isTrue(); // a second release() cannot fix it
        SoftAssertions.assertSoftly(soft -> {
            soft.assertThat(limiter.inflight()).as("slot freed").isZero();
            soft.assertThat(limiter.isRatePaused()).as("pause ended 10 min after a 5 s Retry-After").isFalse();
        });
    }

    /** ExecutionImpl.runAttempt arms the task timeout outside any try: the first attempt's lease leaks. */
    @Test
    void aTaskTimeoutTimerRejectedAtTheStartOfAnAttemptDoesNotLeakTheSlot() {
        Limiter limiter = limiter(1);
        AdaptiveExecutor executor = AdaptiveExecutor.builder(limiter).taskTimeout(Duration.ofSeconds(1)).build();
        scheduler.rejecting = true;
        CompletableFuture<String> result = null;
        try {
            result = executor.execute(ctx -> CompletableFuture.completedFuture("ok"));
        } catch (RejectedExecutionException thrownToTheCaller) {
            // the caller got no future, but the limiter granted a slot for it
        }
        scheduler.rejecting = false;
        time.runUntilIdle();

        assertThat(limiter.inflight()).as("slot of the attempt that never ran").isZero();
        // and the next call on a limiter of 1 is not stuck behind the leaked slot
        CompletableFuture<String> next = executor.execute(ctx -> CompletableFuture.completedFuture("next"));
        time.runUntilIdle();
        assertThat(next).isCompletedWithValue("next");
    }

    /** Same, when the lease arrives through a queued acquisition: the exception vanishes in a callback. */
    @Test
    void aTaskTimeoutTimerRejectedForAQueuedAttemptStillEndsItsResult() {
        Limiter limiter = limiter(1);
        AdaptiveExecutor executor = AdaptiveExecutor.builder(limiter).taskTimeout(Duration.ofSeconds(1)).build();
        Lease blocker = limiter.tryAcquire().orElseThrow();
        CompletableFuture<String> queued = executor.execute(ctx -> CompletableFuture.completedFuture("ok"));
        scheduler.rejecting = true;
        blocker.release(Outcome.SUCCESS); // grants the queued attempt, whose timer is rejected
        scheduler.rejecting = false;
        time.advance(Duration.ofMinutes(10));

        assertThat(queued).as("the queued call's result").isDone();
        assertThat(limiter.inflight()).as("slot freed").isZero();
    }

    /** ExecutionImpl.act -> retryAfter: a backoff timer the scheduler rejects leaves the result pending. */
    @Test
    void aBackoffTimerRejectedAfterAFailedAttemptStillEndsTheResult() {
        Limiter limiter = limiter(1);
        AdaptiveExecutor executor = AdaptiveExecutor.builder(limiter)
                .retryPolicy(RetryPolicy.builder().retries(2).constant().minDelay(Duration.ofMillis(100)).noJitter().build()).build();
        CompletableFuture<String> attempt = new CompletableFuture<>();
        CompletableFuture<String> result = executor.execute(ctx -> attempt);
        scheduler.rejecting = true;
        attempt.completeExceptionally(new java.io.IOException("boom")); // failed: retry after 100 ms
        scheduler.rejecting = false;
        time.advance(Duration.ofMinutes(10));

        assertThat(limiter.inflight()).isZero();
        assertThat(result).as("result of an execution whose retry could not be scheduled").isDone();
    }
    /**
     * As above, with a listener for every event: the retry whose backoff could not be timed never
     * runs, so it is neither counted in the stats' retries nor traced as a {@code Retry}; its
     * result ends with its attempt's failure, the refusal suppressed in it.
     */
    @Test
    void aRetryWhoseBackoffTimerIsRejectedIsNeitherCountedNorTraced() {
        java.util.List<TraceEvent> events = new java.util.concurrent.CopyOnWriteArrayList<>();
        Limiter limiter = Limiter.builder().limit(FixedLimit.of(1)).ticker(time).scheduler(scheduler)
                .traceListener(events::add).build();
        AdaptiveExecutor executor = AdaptiveExecutor.builder(limiter)
                .retryPolicy(RetryPolicy.builder().retries(2).constant().minDelay(Duration.ofMillis(100)).noJitter().build()).build();
        CompletableFuture<String> attempt = new CompletableFuture<>();
        CompletableFuture<String> result = executor.execute(ctx -> attempt);
        scheduler.rejecting = true;
        attempt.completeExceptionally(new java.io.IOException("boom")); // failed: retry after 100 ms, refused
        scheduler.rejecting = false;
        time.advance(Duration.ofMinutes(10));

        Throwable end = result.handle((v, e) -> e).getNow(null);
        SoftAssertions.assertSoftly(soft -> {
            soft.assertThat(end).as("the result's failure").hasMessage("boom");
            soft.assertThat(end == null ? null : end.getSuppressed()).as("suppressed in it")
                    .hasOnlyElementsOfType(RejectedExecutionException.class).hasSize(1);
            soft.assertThat(limiter.stats().errorRetries()).as("errorRetries").isZero();
            soft.assertThat(limiter.stats().retries()).as("retries").isZero();
            soft.assertThat(events).filteredOn(TraceEvent.Retry.class::isInstance).as("Retry events").isEmpty();
        });
    }

    /** Through the executor: a 429 with Retry-After whose pause timer is rejected; the call must still end. */
    @Test
    void aRateLimitedAttemptWhosePauseTimerIsRejectedStillEndsAndFreesItsSlot() {
        Limiter limiter = limiter(1);
        AdaptiveExecutor executor = AdaptiveExecutor.builder(limiter)
                .retryPolicy(RetryPolicy.builder().retries(0).maxRateLimitRetries(1).build()).build();
        CompletableFuture<String> attempt = new CompletableFuture<>();
        CompletableFuture<String> result = executor.execute(ctx -> attempt);
        scheduler.rejecting = true;
        attempt.completeExceptionally(new RateLimitedException("429", Duration.ofSeconds(5)));
        scheduler.rejecting = false;
        time.advance(Duration.ofMinutes(10));

        SoftAssertions.assertSoftly(soft -> {
            soft.assertThat(limiter.inflight()).as("slot freed").isZero();
            soft.assertThat(limiter.isRatePaused()).as("pause over").isFalse();
            soft.assertThat(result).as("the rate-limited call's result").isDone();
        });
    }
    /**
     * LimiterCore.onRelease arms the renewal of an announced quota's window before it frees the
     * slot: a rejected timer unwound the release there, so the slot stayed counted for good.
     */
    @Test
    void aReleaseAnnouncingAQuotaWhoseRenewalTimerIsRejectedStillFreesTheSlotAndHoldsNothingForGood() {
        Limiter limiter = limiter(2);
        Lease lease = limiter.tryAcquire().orElseThrow();
        releaseWhileTheSchedulerRejects(lease, Outcome.SUCCESS.withQuota(new Quota(0, Duration.ofSeconds(5))));
        time.advance(Duration.ofMinutes(10));

        assertThat(lease.isReleased()).isTrue(); // a second release() cannot fix it
        SoftAssertions.assertSoftly(soft -> {
            soft.assertThat(limiter.inflight()).as("slot freed").isZero();
            soft.assertThat(limiter.tryAcquire()).as("a window no timer ends holds nothing").isPresent();
        });
    }

    /** Same through the executor: the exception unwound the attempt's end, and the call never ended. */
    @Test
    void anAttemptAnnouncingAQuotaWhoseRenewalTimerIsRejectedStillEnds() {
        Limiter limiter = limiter(1);
        AdaptiveExecutor executor = AdaptiveExecutor.builder(limiter)
                .classifier((value, error) -> Outcome.SUCCESS.withQuota(new Quota(0, Duration.ofSeconds(5)))).build();
        CompletableFuture<String> attempt = new CompletableFuture<>();
        CompletableFuture<String> result = executor.execute(ctx -> attempt);
        scheduler.rejecting = true;
        attempt.complete("ok");
        scheduler.rejecting = false;
        time.advance(Duration.ofMinutes(10));

        SoftAssertions.assertSoftly(soft -> {
            soft.assertThat(result).as("the call's result").isCompletedWithValue("ok");
            soft.assertThat(limiter.inflight()).as("slot freed").isZero();
        });
    }

    /** LimiterCore.enqueue queues the waiter, then arms its waitTimeout: a rejection leaves an orphan in the queue. */
    @Test
    void anAcquireWhoseWaitTimeoutIsRejectedLeavesNoOrphanWaiterToSwallowTheNextSlot() {
        Limiter limiter = Limiter.builder().limit(FixedLimit.of(1)).ticker(time).scheduler(scheduler)
                .waitTimeout(Duration.ofSeconds(30)).build();
        Lease held = limiter.tryAcquire().orElseThrow();
        scheduler.rejecting = true;
        try {
            limiter.acquire(); // the caller gets an exception, not a future
        } catch (RejectedExecutionException expected) {
            // nobody holds the acquisition now
        }
        scheduler.rejecting = false;
        held.release(Outcome.SUCCESS);
        time.runUntilIdle();

        SoftAssertions.assertSoftly(soft -> {
            soft.assertThat(limiter.waiting()).as("waiting").isZero();
            soft.assertThat(limiter.inflight()).as("the freed slot went to nobody").isZero();
        });
    }

    /** Releases {@code lease} with {@code outcome} while the scheduler rejects every timer. */
    private void releaseWhileTheSchedulerRejects(Lease lease, Outcome outcome) {
        scheduler.rejecting = true;
        try {
            lease.release(outcome);
        } catch (RejectedExecutionException expectedOrNot) {
            // whether it reaches the caller matters less than what it leaves behind
        } finally {
            scheduler.rejecting = false;
        }
    }
}
