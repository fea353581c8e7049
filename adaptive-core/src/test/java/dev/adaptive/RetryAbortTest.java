package dev.adaptive;

import dev.adaptive.limit.FixedLimit;
import dev.adaptive.retry.RetryBudget;
import dev.adaptive.retry.RetryClassifier;
import dev.adaptive.retry.RetryPolicy;
import dev.adaptive.time.VirtualTime;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A retry policy's veto ({@link RetryPolicy.Builder#abortIf}): an attempt whose failure it
 * accepts ends the execution with that failure, with no retry of either budget, while the
 * attempt is released with its own outcome, so that a rate limit still reaches the limiter as
 * one and pauses it for its Retry-After. A veto that throws means "do not abort".
 */
class RetryAbortTest {

    private final VirtualTime time = new VirtualTime();

    @AfterEach
    void nothingThrewOnTheScheduler() {
        assertThat(time.uncaught()).isEmpty();
    }

    private Limiter limiter() {
        return Limiter.builder().limit(FixedLimit.of(1)).time(time).build();
    }

    private static RetryPolicy.Builder atOnce() {
        return RetryPolicy.builder().retries(3).constant().minDelay(Duration.ZERO).noJitter();
    }

    /** A task that answers each attempt, after 10 ms, with the next of {@code replies} (the last one again once they run out). */
    private AsyncTask<String> answering(List<Integer> attempts, Object... replies) {
        return ctx -> {
            attempts.add(ctx.attempt());
            return Replies.after(time, Duration.ofMillis(10), replies[Math.min(ctx.attempt(), replies.length) - 1]);
        };
    }

    @Test
    void aRateLimitedAttemptTheVetoAcceptsIsNotRetriedAndTheLimiterStillPausesForItsRetryAfter() {
        Limiter limiter = limiter();
        RateLimitedException limited = new RateLimitedException("429", Duration.ofSeconds(5));
        List<Integer> attempts = new ArrayList<>();
        CompletableFuture<String> result = AdaptiveExecutor.builder(limiter)
                .retryPolicy(atOnce().abortIf((error, attempt) -> true).build()).build()
                .execute(answering(attempts, limited, "ok"));

        time.advance(Duration.ofMillis(10));

        assertThat(result).failsWithin(Duration.ZERO).withThrowableOfType(ExecutionException.class)
                .havingCause().isSameAs(limited);
        assertThat(attempts).containsExactly(1);
        LimiterStats stats = limiter.stats();
        assertThat(stats.rateLimitEvents()).as("released as rate-limited, not as a drop").isEqualTo(1);
        assertThat(stats.congestionEvents()).isZero();
        assertThat(stats.rateLimitRetries()).isZero();
        assertThat(stats.inflight()).isZero();
        assertThat(limiter.isRatePaused()).isTrue();
        CompletableFuture<Lease> next = limiter.acquire();
        time.advance(Duration.ofMillis(4_999));
        assertThat(next).as("held by the Retry-After").isNotDone();
        time.advance(Duration.ofMillis(1));
        assertThat(next).isCompleted();
    }

    @Test
    void anOrdinaryFailureTheVetoAcceptsIsNotRetried() {
        Limiter limiter = limiter();
        IllegalStateException down = new IllegalStateException("down");
        List<Integer> attempts = new ArrayList<>();
        CompletableFuture<String> result = AdaptiveExecutor.builder(limiter)
                .retryPolicy(atOnce().abortIf((error, attempt) -> true).build()).build()
                .execute(answering(attempts, down, "ok"));

        time.runUntilIdle();

        assertThat(result).failsWithin(Duration.ZERO).withThrowableOfType(ExecutionException.class)
                .havingCause().isSameAs(down);
        assertThat(attempts).containsExactly(1);
        assertThat(limiter.stats().congestionEvents()).isEqualTo(1);
        assertThat(limiter.stats().retries()).isZero();
        assertThat(limiter.inflight()).isZero();
    }

    /** The veto is asked with each failure and the attempt's number; what it does not accept is retried as before. */
    @Test
    void theVetoJudgesEachFailureAndLetsTheOthersRetry() {
        Limiter limiter = limiter();
        List<String> asked = new ArrayList<>();
        RetryClassifier onSecurity = RetryClassifier.on(SecurityException.class);
        SecurityException denied = new SecurityException("denied");
        List<Integer> attempts = new ArrayList<>();
        CompletableFuture<String> result = AdaptiveExecutor.builder(limiter)
                .retryPolicy(atOnce().abortIf((error, attempt) -> {
                    asked.add(attempt + ": " + error.getMessage());
                    return onSecurity.shouldRetry(error, attempt);
                }).build()).build()
                .execute(answering(attempts, new RateLimitedException("429", Duration.ZERO),
                        new IllegalStateException("down"), denied, "ok"));

        time.runUntilIdle();

        assertThat(result).failsWithin(Duration.ZERO).withThrowableOfType(ExecutionException.class)
                .havingCause().isSameAs(denied);
        assertThat(asked).containsExactly("1: 429", "2: down", "3: denied");
        assertThat(attempts).containsExactly(1, 2, 3);
        assertThat(limiter.stats().rateLimitRetries()).isEqualTo(1);
        assertThat(limiter.stats().errorRetries()).isEqualTo(1);
    }

    /** A veto that throws (an Error too) means "do not abort": both budgets apply as without it. */
    @Test
    void aVetoThatThrowsDoesNotAbort() {
        Limiter limiter = limiter();
        List<Integer> attempts = new ArrayList<>();
        CompletableFuture<String> result = AdaptiveExecutor.builder(limiter)
                .retryPolicy(atOnce().abortIf((error, attempt) -> {
                    throw new AssertionError("a broken veto");
                }).build()).build()
                .execute(answering(attempts, new RateLimitedException("429", Duration.ZERO),
                        new IllegalStateException("down"), "ok"));

        time.runUntilIdle();

        assertThat(result).isCompletedWithValue("ok");
        assertThat(attempts).containsExactly(1, 2, 3);
        assertThat(limiter.inflight()).isZero();
    }

    /** An aborted failure asks no retry budget: nothing is refused, nothing spent. */
    @Test
    void anAbortedRateLimitDoesNotAskTheRetryBudget() {
        Limiter limiter = Limiter.builder().limit(FixedLimit.of(1)).time(time)
                .retryBudget(new RetryBudget(0.0, 0.0, Duration.ofSeconds(10))).build();
        RateLimitedException limited = new RateLimitedException("429", Duration.ZERO);
        CompletableFuture<String> result = AdaptiveExecutor.builder(limiter)
                .retryPolicy(atOnce().abortIf((error, attempt) -> true).build()).build()
                .execute(answering(new ArrayList<>(), limited));

        time.runUntilIdle();

        assertThat(result).failsWithin(Duration.ZERO).withThrowableOfType(ExecutionException.class)
                .havingCause().isSameAs(limited);
        assertThat(limiter.stats().retriesRefused()).isZero();
    }
}
