package dev.adaptive;

import dev.adaptive.limit.FixedLimit;
import dev.adaptive.limit.Outcome;
import dev.adaptive.retry.RetryPolicy;
import dev.adaptive.spi.Execution;
import dev.adaptive.time.VirtualTime;
import dev.adaptive.trace.TraceEvent;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The signal contract, row by row, in virtual time. */
class AdaptiveExecutorTest {

    private final VirtualTime time = new VirtualTime();
    private final List<TraceEvent> events = new ArrayList<>();
    private final List<Long> starts = new ArrayList<>();

    private Limiter limiter(int n) {
        return Limiter.builder().limit(FixedLimit.of(n)).time(time).traceListener(events::add).build();
    }

    private static RetryPolicy.Builder noJitter() {
        return RetryPolicy.builder().exponential().minDelay(Duration.ofMillis(100)).maxDelay(Duration.ofSeconds(30)).noJitter();
    }

    /** A task that answers after {@code latency} with the next scripted reply. */
    private AsyncTask<String> scripted(Duration latency, Object... replies) {
        AtomicInteger calls = new AtomicInteger();
        return ctx -> {
            starts.add(time.nanoTime());
            Object reply = replies[Math.min(calls.getAndIncrement(), replies.length - 1)];
            return Replies.<String>after(time, latency, reply); // null never answers
        };
    }

    private static long ms(long millis) {
        return Duration.ofMillis(millis).toNanos();
    }

    @Test
    void successCompletesAfterOneAttempt() {
        AdaptiveExecutor ex = AdaptiveExecutor.builder(limiter(2)).build();
        Execution<String> e = ex.start(7, scripted(Duration.ofMillis(40), "ok"), null);
        time.runUntilIdle();
        assertThat(e.result()).isCompletedWithValue("ok");
        assertThat(e.attempts()).isEqualTo(1);
        assertThat(events).filteredOn(TraceEvent.TaskEnd.class::isInstance).singleElement()
                .satisfies(ev -> {
                    TraceEvent.TaskEnd end = (TraceEvent.TaskEnd) ev;
                    assertThat(end.index()).isEqualTo(7);
                    assertThat(end.rttNanos()).isEqualTo(ms(40));
                    assertThat(end.outcome()).isEqualTo(Outcome.SUCCESS);
                });
        assertThat(ex.limiter().inflight()).isZero();
    }

    @Test
    void eachAttemptKnowsWhenItWasGrantedItsSlot() {
        AdaptiveExecutor ex = AdaptiveExecutor.builder(limiter(1)).retryPolicy(noJitter().retries(1).build()).build();
        List<Long> granted = new ArrayList<>();
        AtomicInteger calls = new AtomicInteger();
        time.advance(Duration.ofMillis(5));
        Execution<String> holder = ex.start(0, ctx -> {
            granted.add(ctx.startNanos());
            return Replies.<String>after(time, Duration.ofMillis(50), "a");
        }, null);
        Execution<String> queued = ex.start(1, ctx -> {
            granted.add(ctx.startNanos());
            Object reply = calls.getAndIncrement() == 0 ? new IllegalStateException("once") : "b";
            return Replies.<String>after(time, Duration.ofMillis(10), reply);
        }, null);
        time.runUntilIdle();
        // The holder at 5 ms; the queued task when the holder frees the one slot at 55; its retry
        // when its 10 ms attempt and the 100 ms backoff are over, at 165.
        assertThat(granted).containsExactly(ms(5), ms(55), ms(165));
        assertThat(holder.result()).isCompletedWithValue("a");
        assertThat(queued.result()).isCompletedWithValue("b");
    }

    @Test
    void errorsConsumeRetriesWithExponentialBackoffThenFailWithTheLastCause() {
        AdaptiveExecutor ex = AdaptiveExecutor.builder(limiter(2)).retryPolicy(noJitter().retries(2).build()).build();
        IllegalStateException last = new IllegalStateException("third");
        Execution<String> e = ex.start(0, scripted(Duration.ofMillis(10),
                new IllegalStateException("first"), new IllegalStateException("second"), last), null);
        time.runUntilIdle();
        // attempt 1 at 0, fails at 10; +100 -> attempt 2 at 110, fails at 120; +200 -> attempt 3 at 320
        assertThat(starts).containsExactly(0L, ms(110), ms(320));
        assertThat(e.result()).isCompletedExceptionally();
        assertThat(e.result().handle((v, t) -> OutcomeClassifier.unwrap(t)).join()).isSameAs(last);
        assertThat(e.attempts()).isEqualTo(3);
        assertThat(ex.limiter().stats().congestionEvents()).isEqualTo(3);
        assertThat(events).filteredOn(TraceEvent.Retry.class::isInstance).extracting(ev -> ((TraceEvent.Retry) ev).delay())
                .containsExactly(Duration.ofMillis(100), Duration.ofMillis(200));
    }

    @Test
    void rateLimitPausesTheLimiterAndRetriesWithoutConsumingRetries() {
        Limiter limiter = limiter(4);
        AdaptiveExecutor ex = AdaptiveExecutor.builder(limiter).retryPolicy(noJitter().retries(0).build()).build();
        Execution<String> e = ex.start(0, scripted(Duration.ofMillis(10),
                new RateLimitedException(Duration.ofSeconds(1)), "ok"), null);
        time.advance(Duration.ofMillis(10));
        assertThat(limiter.isRatePaused()).isTrue();
        // another task submitted during the pause waits for it too
        Execution<String> other = ex.start(1, scripted(Duration.ofMillis(10), "ok"), null);
        time.runUntilIdle();
        assertThat(e.result()).isCompletedWithValue("ok");
        assertThat(other.result()).isCompletedWithValue("ok");
        assertThat(starts).containsExactly(0L, ms(1010), ms(1010));
        assertThat(limiter.stats().rateLimitEvents()).isEqualTo(1);
        assertThat(events).filteredOn(TraceEvent.Retry.class::isInstance).singleElement()
                .satisfies(ev -> {
                    TraceEvent.Retry r = (TraceEvent.Retry) ev;
                    assertThat(r.rateLimited()).isTrue();
                    assertThat(r.readyAtNanos()).isEqualTo(ms(1010));
                    assertThat(r.delay()).isEqualTo(Duration.ofSeconds(1));
                });
    }

    @Test
    void rateLimitBudgetIsCappedByMaxRateLimitRetries() {
        AdaptiveExecutor ex = AdaptiveExecutor.builder(limiter(1))
                .retryPolicy(noJitter().retries(5).maxRateLimitRetries(2).build()).build();
        Execution<String> e = ex.start(0, scripted(Duration.ofMillis(10), new RateLimitedException(Duration.ofSeconds(1))), null);
        time.runUntilIdle();
        assertThat(e.attempts()).isEqualTo(3);
        assertThat(e.result()).isCompletedExceptionally();
        assertThat(e.result().handle((v, t) -> OutcomeClassifier.unwrap(t)).join()).isInstanceOf(RateLimitedException.class);
    }

    @Test
    void timeoutFiresCancellationReleasesTheSlotAndConsumesARetry() {
        Limiter limiter = limiter(1);
        AdaptiveExecutor ex = AdaptiveExecutor.builder(limiter).taskTimeout(Duration.ofSeconds(1))
                .retryPolicy(noJitter().retries(1).build()).build();
        List<TaskContext> contexts = new ArrayList<>();
        Execution<String> e = ex.start(0, ctx -> {
            contexts.add(ctx);
            starts.add(time.nanoTime());
            return new CompletableFuture<>(); // slow loris
        }, null);
        time.runUntilIdle();
        assertThat(starts).containsExactly(0L, ms(1100));
        assertThat(e.result().handle((v, t) -> OutcomeClassifier.unwrap(t)).join()).isInstanceOf(TaskTimeoutException.class);
        assertThat(contexts).allSatisfy(c -> assertThat(c.cancellation().reason()).isInstanceOf(TaskTimeoutException.class));
        assertThat(limiter.inflight()).isZero();
    }

    @Test
    void stopPoolExceptionIsNeverRetried() {
        AdaptiveExecutor ex = AdaptiveExecutor.builder(limiter(1)).retryPolicy(noJitter().retries(5).build()).build();
        Execution<String> e = ex.start(0, scripted(Duration.ofMillis(5), new StopPoolException("enough")), null);
        time.runUntilIdle();
        assertThat(e.attempts()).isEqualTo(1);
        assertThat(e.result().handle((v, t) -> OutcomeClassifier.unwrap(t)).join()).isInstanceOf(StopPoolException.class);
    }

    @Test
    void classifierTurnsAResultIntoARateLimitAndAThrowingClassifierFallsBack() {
        Limiter limiter = limiter(2);
        AdaptiveExecutor ex = AdaptiveExecutor.builder(limiter).retryPolicy(noJitter().retries(0).build())
                .classifier((result, error) -> {
                    if ("429".equals(result)) {
                        return Outcome.rateLimited(Duration.ofMillis(500));
                    }
                    if ("boom".equals(result)) {
                        throw new IllegalStateException("classifier bug");
                    }
                    return null;
                }).build();
        Execution<String> e = ex.start(0, scripted(Duration.ofMillis(10), "429", "boom"), null);
        time.runUntilIdle();
        assertThat(e.result()).isCompletedWithValue("boom");
        assertThat(starts).containsExactly(0L, ms(510));
        assertThat(limiter.stats().classifierFailures()).as("the throw, not the null answers").isEqualTo(1);
    }

    @Test
    void aClassifierThatAnswersNullAsksForTheDefaultAndIsNotCountedAsFailing() {
        Limiter limiter = limiter(2);
        AdaptiveExecutor ex = AdaptiveExecutor.builder(limiter).retryPolicy(noJitter().retries(0).build())
                .classifier((result, error) -> null).build();
        Execution<String> ok = ex.start(0, scripted(Duration.ofMillis(10), "ok"), null);
        Execution<String> failed = ex.start(1, scripted(Duration.ofMillis(10), new IllegalStateException("500")), null);
        time.runUntilIdle();
        assertThat(ok.result()).isCompletedWithValue("ok");
        assertThat(failed.result()).isCompletedExceptionally();
        assertThat(limiter.stats().successes()).isEqualTo(1);
        assertThat(limiter.stats().congestionEvents()).isEqualTo(1);
        assertThat(limiter.stats().classifierFailures()).isZero();
    }

    /** A value whose {@code toString()} throws, as a lazy entity without its session does. */
    private static final class Unprintable {
        @Override
        public String toString() {
            throw new StackOverflowError("toString bug");
        }
    }

    @Test
    void aValueClassifiedAsAFailureWhoseToStringThrowsStillEndsItsTaskAndFreesItsSlot() {
        Limiter limiter = limiter(1);
        AdaptiveExecutor ex = AdaptiveExecutor.builder(limiter).retryPolicy(noJitter().retries(0).build())
                .classifier((value, error) -> value instanceof Unprintable ? Outcome.DROPPED : null).build();
        AdaptiveExecutor rateLimited = AdaptiveExecutor.builder(limiter).retryPolicy(noJitter().retries(0).build())
                .classifier((value, error) -> value instanceof Unprintable ? Outcome.rateLimited(Duration.ofMillis(100)) : null)
                .build();
        Execution<Object> dropped = ex.start(0, ctx -> CompletableFuture.completedFuture(new Unprintable()), null);
        Execution<Object> refused = rateLimited.start(1, ctx -> CompletableFuture.completedFuture(new Unprintable()), null);
        Execution<Object> next = ex.start(2, ctx -> CompletableFuture.completedFuture("next"), null);
        time.runUntilIdle();
        assertThat(dropped.result()).failsWithin(Duration.ZERO).withThrowableOfType(java.util.concurrent.ExecutionException.class)
                .havingCause().isInstanceOf(ClassifiedFailureException.class)
                .withMessageContaining(Unprintable.class.getName() + " (its toString() threw java.lang.StackOverflowError)");
        assertThat(refused.result()).failsWithin(Duration.ZERO).withThrowableOfType(java.util.concurrent.ExecutionException.class)
                .havingCause().isInstanceOf(RateLimitedException.class);
        assertThat(next.result()).isCompletedWithValue("next");
        assertThat(limiter.inflight()).isZero();
    }

    @Test
    void ignoredFailureIsRetriedButNotSampled() {
        Limiter limiter = limiter(2);
        AdaptiveExecutor ex = AdaptiveExecutor.builder(limiter).retryPolicy(noJitter().retries(1).build())
                .classifier((r, err) -> err instanceof IllegalArgumentException ? Outcome.IGNORED : null).build();
        Execution<String> e = ex.start(0, scripted(Duration.ofMillis(10), new IllegalArgumentException("404"), "ok"), null);
        time.runUntilIdle();
        assertThat(e.result()).isCompletedWithValue("ok");
        assertThat(limiter.stats().congestionEvents()).isZero();
    }

    @Test
    void cancelDropsPendingRetryAndFiresRunningAttemptsCancellation() {
        Limiter limiter = limiter(1);
        AdaptiveExecutor ex = AdaptiveExecutor.builder(limiter).retryPolicy(noJitter().retries(3).build()).build();
        List<TaskContext> contexts = new ArrayList<>();
        Execution<String> running = ex.start(0, ctx -> {
            contexts.add(ctx);
            return new CompletableFuture<>();
        }, null);
        Execution<String> queued = ex.start(1, scripted(Duration.ofMillis(1), "never"), null);
        time.runUntilIdle();
        IllegalStateException reason = new IllegalStateException("pool cancelled");
        assertThat(queued.cancel(reason)).isTrue();
        assertThat(running.cancel(reason)).isTrue();
        assertThat(running.cancel(reason)).isFalse();
        assertThat(contexts.get(0).cancellation().isCancelled()).isTrue();
        time.runUntilIdle();
        assertThat(limiter.inflight()).isZero();
        assertThat(limiter.waiting()).isZero();
        assertThat(starts).isEmpty();
    }

    @Test
    void cancelFreesTheRunningAttemptsSlotBeforeTheResultCompletes() {
        // Regression: the result used to complete first, so a pool finishing its run on that
        // completion could still see the slot held.
        Limiter limiter = limiter(1);
        AdaptiveExecutor ex = AdaptiveExecutor.builder(limiter).build();
        Execution<String> running = ex.start(0, ctx -> new CompletableFuture<>(), null);
        List<Integer> inflightSeen = new ArrayList<>();
        running.result().whenComplete((v, t) -> inflightSeen.add(limiter.inflight()));
        assertThat(limiter.inflight()).isEqualTo(1);
        assertThat(running.cancel(new IllegalStateException("stop"))).isTrue();
        assertThat(inflightSeen).containsExactly(0);
        assertThat(running.cancel(new IllegalStateException("again"))).isFalse();
    }

    @Test
    void cancelWithoutAReasonIsRefusedAndLeavesTheAttemptRunning() {
        // Regression: a null reason used to stop the attempt and free its slot, then fail on
        // completing the result, leaving an execution that never ended.
        Limiter limiter = limiter(1);
        AdaptiveExecutor ex = AdaptiveExecutor.builder(limiter).build();
        CompletableFuture<String> answer = new CompletableFuture<>();
        List<Boolean> cancelled = new ArrayList<>();
        Execution<String> running = ex.start(0, ctx -> {
            ctx.cancellation().onCancel(() -> cancelled.add(true));
            return answer;
        }, null);
        assertThatThrownBy(() -> running.cancel(null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("reason");
        assertThat(limiter.inflight()).as("the slot is still the attempt's").isEqualTo(1);
        assertThat(cancelled).isEmpty();
        answer.complete("ok");
        assertThat(running.result()).isCompletedWithValue("ok");
        assertThat(limiter.inflight()).isZero();
    }

    @Test
    void noAttemptStartsInsideAnAnnouncedRetryAfterWindow() {
        Limiter limiter = limiter(3);
        AdaptiveExecutor ex = AdaptiveExecutor.builder(limiter).retryPolicy(noJitter().build()).build();
        AtomicInteger n = new AtomicInteger();
        AsyncTask<String> task = ctx -> {
            starts.add(time.nanoTime());
            CompletableFuture<String> f = new CompletableFuture<>();
            boolean limited = n.incrementAndGet() == 2;
            time.schedule(() -> {
                if (limited) {
                    f.completeExceptionally(new RateLimitedException(Duration.ofSeconds(2)));
                } else {
                    f.complete("ok");
                }
            }, Duration.ofMillis(50));
            return f;
        };
        List<CompletableFuture<String>> all = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            all.add(ex.start(i, task, null).result());
        }
        time.runUntilIdle();
        assertThat(all).allSatisfy(f -> assertThat(f).isCompletedWithValue("ok"));
        long pauseStart = ms(50);
        long pauseEnd = ms(2050);
        assertThat(starts).noneMatch(s -> s > pauseStart && s < pauseEnd);
        assertThat(starts).hasSize(13);
    }

    @Test
    void synchronousThrowAndNullStageAreFailedAttempts() {
        AdaptiveExecutor ex = AdaptiveExecutor.builder(limiter(1)).retryPolicy(RetryPolicy.none()).build();
        CompletableFuture<Object> thrown = ex.execute(ctx -> {
            throw new IllegalStateException("sync");
        });
        CompletableFuture<Object> nul = ex.execute(ctx -> (CompletionStage<Object>) null);
        time.runUntilIdle();
        assertThat(thrown).isCompletedExceptionally();
        assertThat(nul.handle((v, t) -> OutcomeClassifier.unwrap(t)).join()).isInstanceOf(NullPointerException.class);
        assertThat(ex.limiter().inflight()).isZero();
    }

    @Test
    void policyMaxRetryAfterCapsTheLimiterPause() {
        Limiter limiter = limiter(1);
        AdaptiveExecutor ex = AdaptiveExecutor.builder(limiter)
                .retryPolicy(noJitter().maxRetryAfter(Duration.ofSeconds(5)).build()).build();
        Execution<String> e = ex.start(0, scripted(Duration.ofMillis(10),
                new RateLimitedException(Duration.ofDays(3650)), "ok"), null);
        time.runUntilIdle();
        assertThat(e.result()).isCompletedWithValue("ok");
        assertThat(starts).containsExactly(0L, ms(5010));
    }
}
