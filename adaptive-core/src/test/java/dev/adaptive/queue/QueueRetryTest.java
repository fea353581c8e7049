package dev.adaptive.queue;

import dev.adaptive.AsyncTask;
import dev.adaptive.ClassifiedFailureException;
import dev.adaptive.limit.Outcome;
import dev.adaptive.RateLimitedException;
import dev.adaptive.RetryBudgetExhaustedException;
import dev.adaptive.StopPoolException;
import dev.adaptive.retry.Backoff;
import dev.adaptive.retry.RetryBudget;
import dev.adaptive.trace.TraceEvent;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.DoubleSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/** Failures, retries on both budgets, classifiers and their failure modes, Retry-After holds. */
class QueueRetryTest extends QueueFixture {

    private static final Duration SECOND = Duration.ofSeconds(1);

    @AfterEach
    void noTaskThrew() {
        assertNoUncaught();
    }

    /** 1000 per second: pacing never holds a retry back, so its start shows the delay alone. */
    private ThrottledQueueBuilder fast() {
        return builder(1000, SECOND);
    }

    private List<Long> attemptsOfAlwaysFailing(Backoff backoff, DoubleSupplier random) {
        ThrottledQueue q = fast().retries(3).retryBackoff(backoff).random(random).build();
        CompletableFuture<Object> r = q.submit(task(Duration.ZERO, new IllegalStateException("down")));
        time.runUntilIdle();
        assertThat(r).isCompletedExceptionally();
        return startTimes();
    }

    @Test
    void fixedLinearAndExponentialBackoffCountTheFirstRetryAsOne() {
        assertThat(attemptsOfAlwaysFailing(Backoff.constant(millis(100)), () -> 0.5))
                .containsExactly(0L, ms(100), ms(200), ms(300));
        starts.clear();
        time.advance(SECOND);
        long t0 = time.nanoTime();
        assertThat(attemptsOfAlwaysFailing(Backoff.linear(millis(100), Duration.ofSeconds(30)), () -> 0.5))
                .containsExactly(t0, t0 + ms(100), t0 + ms(300), t0 + ms(600));
        starts.clear();
        time.advance(SECOND);
        long t1 = time.nanoTime();
        assertThat(attemptsOfAlwaysFailing(Backoff.exponential(millis(100), Duration.ofSeconds(30)), () -> 0.5))
                .containsExactly(t1, t1 + ms(100), t1 + ms(300), t1 + ms(700));
    }

    @Test
    void theCapAppliesBeforeAndAfterJitter() {
        assertThat(attemptsOfAlwaysFailing(Backoff.exponential(millis(100), millis(250)), () -> 0.5))
                .containsExactly(0L, ms(100), ms(300), ms(550));
        starts.clear();
        time.advance(SECOND);
        long t0 = time.nanoTime();
        // 0.999 scales by 1.499: 149.9 ms, then 200 -> 299.8 capped at 250, then 250 -> capped.
        assertThat(attemptsOfAlwaysFailing(Backoff.exponential(millis(100), millis(250)).withJitter(0.5), () -> 0.999))
                .containsExactly(t0, t0 + 149_900_000L, t0 + 149_900_000L + ms(250), t0 + 149_900_000L + ms(500));
    }

    @Test
    void jitterIsSymmetricAndDrawnFromTheInjectedRandom() {
        Backoff jittered = Backoff.exponential(millis(100), Duration.ofSeconds(30)).withJitter(0.5);
        assertThat(attemptsOfAlwaysFailing(jittered, () -> 0.0)).containsExactly(0L, ms(50), ms(150), ms(350));
        starts.clear();
        time.advance(SECOND);
        long t0 = time.nanoTime();
        assertThat(attemptsOfAlwaysFailing(jittered, () -> 0.75))
                .containsExactly(t0, t0 + ms(125), t0 + ms(375), t0 + ms(875));
    }

    @Test
    void aRandomSourceThatThrowsOrReturnsGarbageMeansNoJitter() {
        Backoff jittered = Backoff.exponential(millis(100), Duration.ofSeconds(30)).withJitter(0.5);
        List<DoubleSupplier> broken = List.of(() -> Double.NaN, () -> 1.5, () -> -0.1, () -> {
            throw new IllegalStateException("random broke");
        });
        for (DoubleSupplier random : broken) {
            starts.clear();
            time.advance(SECOND);
            long t0 = time.nanoTime();
            assertThat(attemptsOfAlwaysFailing(jittered, random))
                    .containsExactly(t0, t0 + ms(100), t0 + ms(300), t0 + ms(700));
        }
    }

    @Test
    void onlyTrueFromTheRetryClassifierRetriesAndItSeesEachAttempt() {
        List<Integer> asked = new ArrayList<>();
        ThrottledQueue q = fast().retries(5).retryClassifier((cause, attempt) -> {
            asked.add(attempt);
            return attempt < 2;
        }).build();
        IllegalStateException last = new IllegalStateException("second");
        CompletableFuture<Object> r = q.submit(task(millis(10), new IllegalStateException("first"), last));
        time.runUntilIdle();
        assertThat(asked).containsExactly(1, 2);
        assertThat(starts).hasSize(2);
        assertThat(r).failsWithin(Duration.ZERO).withThrowableOfType(Exception.class).havingCause().isSameAs(last);
    }

    @Test
    void aThrowingRetryClassifierMeansRetryWithinTheBudget() {
        ThrottledQueue q = fast().retries(2).retryClassifier((cause, attempt) -> {
            throw new IllegalStateException("broken classifier");
        }).build();
        CompletableFuture<Object> r = q.submit(task(millis(10), new IllegalStateException("down")));
        time.runUntilIdle();
        assertThat(starts).extracting(Start::attempt).containsExactly(1, 2, 3);
        assertThat(r).isCompletedExceptionally();
        assertThat(q.state()).extracting(QueueState::started, QueueState::failed, QueueState::retried)
                .containsExactly(3L, 3L, 2L);
    }

    @Test
    void aFalseResultIsASuccessUnlessTheClassifierSaysOtherwise() {
        ThrottledQueue plain = fast().retries(1).build();
        CompletableFuture<Object> value = plain.submit(task(millis(10), false, true));
        time.runUntilIdle();
        assertThat(value).isCompletedWithValue(false);
        assertThat(plain.state()).extracting(QueueState::started, QueueState::failed).containsExactly(1L, 0L);

        ThrottledQueue q = fast().retries(1)
                .classifier((result, error) -> Boolean.FALSE.equals(result) ? Outcome.DROPPED : null).build();
        CompletableFuture<Object> recovered = q.submit(task(millis(10), false, true));
        CompletableFuture<Object> failing = q.submit(task(millis(10), false));
        time.runUntilIdle();
        assertThat(recovered).isCompletedWithValue(true);
        assertThat(failing).failsWithin(Duration.ZERO).withThrowableOfType(Exception.class).havingCause()
                .isInstanceOfSatisfying(ClassifiedFailureException.class, e -> {
                    assertThat(e.result()).isEqualTo(false);
                    assertThat(e.outcome()).isEqualTo(Outcome.DROPPED);
                });
    }

    @Test
    void aThrowingTaskAndANullStageAreFailedAttempts() {
        ThrottledQueue q = fast().build();
        IllegalArgumentException thrown = new IllegalArgumentException("thrown");
        AsyncTask<String> throwing = ctx -> {
            throw thrown;
        };
        AsyncTask<String> nullStage = ctx -> null;
        CompletableFuture<String> a = q.submit(throwing);
        CompletableFuture<String> b = q.submit(nullStage);
        time.runUntilIdle();
        assertThat(a).failsWithin(Duration.ZERO).withThrowableOfType(Exception.class).havingCause().isSameAs(thrown);
        assertThat(b).failsWithin(Duration.ZERO).withThrowableOfType(Exception.class).havingCause()
                .isInstanceOf(NullPointerException.class);
        assertThat(q.state().failed()).isEqualTo(2);
    }

    @Test
    void aThrowingOutcomeClassifierFallsBackToTheDefault() {
        ThrottledQueue q = fast().classifier((result, error) -> {
            throw new IllegalStateException("broken classifier");
        }).build();
        CompletableFuture<Object> ok = q.submit(task(millis(10), "fine"));
        CompletableFuture<Object> no = q.submit(task(millis(10), new IllegalStateException("no")));
        CompletableFuture<Object> falseValue = q.submit(task(millis(10), false));
        time.runUntilIdle();
        assertThat(ok).isCompletedWithValue("fine");
        assertThat(no).isCompletedExceptionally();
        assertThat(falseValue).isCompletedWithValue(false);
    }

    /** 300 tasks that fail once, each retry after 100 ms: 300 retries inside one 10 s window. */
    private List<CompletableFuture<Object>> threeHundredFailingOnce(ThrottledQueue q) {
        List<CompletableFuture<Object>> results = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            results.add(q.submit(task(Duration.ZERO, new IllegalStateException("once"), "ok")));
        }
        time.runUntilIdle();
        return results;
    }

    @Test
    void theRetryBudgetIsTheOneGiven() {
        ThrottledQueueBuilder b = fast().retries(3).retryBackoff(Backoff.constant(millis(100)));

        // The default allows 0.2 × 300 first attempts + 10 per second × 10 s = 160 of the 300.
        ThrottledQueue byDefault = b.build();
        List<CompletableFuture<Object>> refused = threeHundredFailingOnce(byDefault);
        assertThat(byDefault.limiter().retryBudget()).isEqualTo(RetryBudget.defaults());
        assertThat(byDefault.state().started()).isEqualTo(460);
        assertThat(refused).filteredOn(CompletableFuture::isCompletedExceptionally).hasSize(140)
                .allSatisfy(f -> assertThat(f).failsWithin(Duration.ZERO).withThrowableOfType(Exception.class)
                        .havingCause().isInstanceOf(RetryBudgetExhaustedException.class));

        // Ratio 0, 1 per second × 10 s: 10 retries.
        RetryBudget tight = new RetryBudget(0, 1, Duration.ofSeconds(10));
        ThrottledQueue tightQueue = b.retryBudget(tight).build();
        List<CompletableFuture<Object>> mostlyRefused = threeHundredFailingOnce(tightQueue);
        assertThat(tightQueue.limiter().retryBudget()).isSameAs(tight);
        assertThat(tightQueue.state().started()).isEqualTo(310);
        assertThat(mostlyRefused).filteredOn(CompletableFuture::isCompletedExceptionally).hasSize(290);

        ThrottledQueue unlimited = b.retryBudget(RetryBudget.unlimited()).build();
        List<CompletableFuture<Object>> all = threeHundredFailingOnce(unlimited);
        assertThat(unlimited.limiter().retryBudget()).isSameAs(RetryBudget.unlimited());
        assertThat(all).allSatisfy(f -> assertThat(f).isCompletedWithValue("ok"));
        assertThat(unlimited.state().started()).isEqualTo(600);
        assertThat(unlimited.limiter().stats().retriesRefused()).isZero();
    }

    @Test
    void aRetryTheBudgetRefusedWaitsAgainAndCountsOnceInRetried() {
        ThrottledQueue q = fast().retries(3).retryBackoff(Backoff.constant(millis(100))).build();
        List<CompletableFuture<Object>> results = threeHundredFailingOnce(q);
        QueueState s = q.state();
        long refusals = q.limiter().stats().retriesRefused();
        long refusedForGood = results.stream().filter(CompletableFuture::isCompletedExceptionally).count();
        SoftAssertions.assertSoftly(soft -> {
            // More refusals than tasks they ended: the others sent a refused retry to wait another
            // backoff and ask again, its retries counted as spent. It is the same retry, no new one.
            soft.assertThat(refusedForGood).as("tasks the budget ended").isEqualTo(140);
            soft.assertThat(refusals).as("refusals").isGreaterThan(refusedForGood);
            soft.assertThat(s.retried()).as("retried").isEqualTo(300);
            soft.assertThat(events).filteredOn(TraceEvent.Retry.class::isInstance).as("Retry events").hasSize(300);
            soft.assertThat(q.limiter().stats().errorRetries()).as("the limiter's errorRetries").isEqualTo(300);
            soft.assertThat(s.started()).as("started").isEqualTo(460);
        });
    }

    @Test
    void aRateLimitedAnswerHoldsTheWholeQueueUntilRetryAfterOnItsOwnBudget() {
        ThrottledQueue q = builder(10, SECOND).build(); // retries 0: the rate-limit budget is separate
        List<CompletableFuture<Object>> results = new ArrayList<>();
        results.add(q.submit(task(millis(50), new RateLimitedException(Duration.ofSeconds(2)), "ok")));
        for (int i = 0; i < 3; i++) {
            results.add(q.submit(task(millis(50))));
        }
        advanceTo(1000);
        QueueState held = q.state();
        assertThat(held.holdUntilNanos()).hasValue(ms(2050));
        assertThat(held).extracting(QueueState::pending, QueueState::retried).containsExactly(4, 1L);
        time.runUntilIdle();
        assertThat(startTimes()).containsExactly(0L, ms(2050), ms(2150), ms(2250), ms(2350));
        assertThat(starts.get(1)).extracting(Start::index, Start::attempt).containsExactly(0L, 2);
        assertThat(results).allSatisfy(f -> assertThat(f).isCompletedWithValue("ok"));
        assertThat(events).filteredOn(TraceEvent.RatePause.class::isInstance).singleElement()
                .isEqualTo(new TraceEvent.RatePause("queue", ms(50), ms(2050), Duration.ofSeconds(2)));
        assertThat(events).filteredOn(TraceEvent.Retry.class::isInstance).singleElement()
                .isInstanceOfSatisfying(TraceEvent.Retry.class, r -> {
                    assertThat(r.rateLimited()).isTrue();
                    assertThat(r.readyAtNanos()).isEqualTo(ms(2050));
                    assertThat(r.delay()).isEqualTo(Duration.ofSeconds(2));
                });
    }

    @Test
    void aHostileRetryAfterIsCappedByMaxRetryAfter() {
        ThrottledQueue q = builder(10, SECOND).maxRetryAfter(Duration.ofSeconds(5)).build();
        q.submit(task(millis(50), new RateLimitedException(Duration.ofDays(1000)), "ok"));
        time.runUntilIdle();
        assertThat(startTimes()).containsExactly(0L, ms(5050));
    }

    @Test
    void theRateLimitBudgetRunsOut() {
        ThrottledQueue q = builder(10, SECOND).maxRateLimitRetries(1).retries(5).build();
        CompletableFuture<Object> r = q.submit(task(millis(50), new RateLimitedException(SECOND)));
        time.runUntilIdle();
        assertThat(startTimes()).containsExactly(0L, ms(1050));
        assertThat(r).failsWithin(Duration.ZERO).withThrowableOfType(Exception.class).havingCause()
                .isInstanceOf(RateLimitedException.class);
    }

    @Test
    void aRateLimitWithoutRetryAfterWaitsTheBackoffAndHoldsNothing() {
        ThrottledQueue q = builder(10, SECOND).retryBackoff(Backoff.constant(millis(300))).build();
        q.submit(task(millis(50), new RateLimitedException((Duration) null), "ok"));
        advanceTo(60);
        assertThat(q.state().holdUntilNanos()).isEmpty();
        assertThat(q.state().delayedRetries()).isEqualTo(1);
        time.runUntilIdle();
        assertThat(startTimes()).containsExactly(0L, ms(350));
    }

    @Test
    void aResultClassifiedAsRateLimitedHoldsTheQueueToo() {
        ThrottledQueue q = builder(10, SECOND).classifier((result, error) ->
                "429".equals(result) ? Outcome.rateLimited(SECOND) : null).build();
        CompletableFuture<Object> r = q.submit(task(millis(50), "429", "200"));
        time.runUntilIdle();
        assertThat(startTimes()).containsExactly(0L, ms(1050));
        assertThat(r).isCompletedWithValue("200");
    }

    @Test
    void aStopPoolExceptionIsNeverRetriedAndAbortsTheQueue() {
        ThrottledQueue q = builder(10, SECOND).retries(3).build();
        StopPoolException stop = new StopPoolException("credentials revoked");
        CompletableFuture<Object> first = q.submit(task(millis(50), stop));
        CompletableFuture<Object> second = q.submit(task(millis(50)));
        time.runUntilIdle();
        assertThat(starts).hasSize(1);
        assertThat(first).failsWithin(Duration.ZERO).withThrowableOfType(Exception.class).havingCause().isSameAs(stop);
        assertThat(second).failsWithin(Duration.ZERO).withThrowableOfType(Exception.class).havingCause()
                .isInstanceOf(QueueAbortedException.class).havingCause().isSameAs(stop);
        assertThat(q.state().status()).isEqualTo(QueueStatus.ABORTED);
    }

    @Test
    void cancellingTheFutureWithdrawsAPendingTaskOrADelayedRetry() {
        ThrottledQueue q = builder(10, SECOND).retries(1).retryBackoff(Backoff.constant(SECOND)).build();
        q.pause();
        CompletableFuture<Object> a = q.submit(task(millis(50)));
        CompletableFuture<Object> b = q.submit(task(millis(50)));
        CompletableFuture<Object> c = q.submit(task(millis(50), new IllegalStateException("once"), "ok"));
        b.cancel(false);
        assertThat(q.pending()).isEqualTo(2);
        q.resume();
        advanceTo(300);
        assertThat(q.state().delayedRetries()).isEqualTo(1);
        c.cancel(false);
        assertThat(q.state().delayedRetries()).isZero();
        assertThat(q.awaitIdle()).isCompleted();
        time.runUntilIdle();
        assertThat(starts).extracting(Start::index).containsExactly(0L, 2L);
        assertThat(a).isCompletedWithValue("ok");
    }

    @Test
    void cancellingARunningTasksFutureStopsItsRetries() {
        ThrottledQueue q = builder(10, SECOND).retries(3).build();
        CompletableFuture<Object> r = q.submit(task(millis(100), new IllegalStateException("down")));
        advanceTo(50);
        r.cancel(false);
        time.runUntilIdle();
        assertThat(starts).hasSize(1);
        assertThat(q.state()).extracting(QueueState::failed, QueueState::retried, QueueState::idle)
                .containsExactly(1L, 0L, true);
    }

    @Test
    void traceEventsDescribeStartsEndsAndRetriesAndAThrowingListenerIsCounted() {
        ThrottledQueue q = builder(10, SECOND).retries(1).concurrency(4)
                .traceListener(e -> {
                    throw new IllegalStateException("listener bug");
                }).build();
        q.submit(task(millis(40), new IllegalStateException("once"), "ok"));
        time.runUntilIdle();
        assertThat(events).hasSize(5);
        assertThat(events.get(0)).isEqualTo(new TraceEvent.TaskStart("queue", 0, 0, 1, 4, 1));
        assertThat(events.get(1)).isInstanceOfSatisfying(TraceEvent.TaskEnd.class, e -> {
            assertThat(e.rttNanos()).isEqualTo(ms(40));
            assertThat(e.outcome()).isEqualTo(Outcome.DROPPED);
            assertThat(e.error()).hasMessage("once");
        });
        assertThat(events.get(2)).isInstanceOfSatisfying(TraceEvent.Retry.class, e -> {
            assertThat(e.attempt()).isEqualTo(1);
            assertThat(e.rateLimited()).isFalse();
            assertThat(e.delay()).isZero();
        });
        assertThat(events.get(3)).isEqualTo(new TraceEvent.TaskStart("queue", ms(100), 0, 2, 4, 1));
        assertThat(events.get(4)).isInstanceOfSatisfying(TraceEvent.TaskEnd.class,
                e -> assertThat(e.outcome()).isEqualTo(Outcome.SUCCESS));
        assertThat(q.state().listenerFailures()).isEqualTo(5);
    }
}
