package dev.adaptive;

import dev.adaptive.limit.FixedLimit;
import dev.adaptive.retry.RetryPolicy;
import dev.adaptive.spi.Execution;
import dev.adaptive.time.RejectingScheduler;
import dev.adaptive.time.VirtualTime;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An attempt's task-timeout timer whose {@code cancel()} throws (the user's scheduler's handle;
 * an {@code Error}, the hardest case) as the attempt settles before its timeout, or as the
 * execution is cancelled while the attempt runs: the attempt ends all the same, its slot is
 * freed and the result completes; the timer that fires later finds the attempt settled.
 */
class AttemptTimerCancelTest {

    private final VirtualTime time = new VirtualTime();
    private final RejectingScheduler scheduler = new RejectingScheduler(time);

    @AfterEach
    void nothingThrewOnTheScheduler() {
        assertThat(time.uncaught()).isEmpty();
    }

    private AdaptiveExecutor executor(Limiter limiter) {
        return AdaptiveExecutor.builder(limiter).taskTimeout(Duration.ofSeconds(1)).retryPolicy(RetryPolicy.none())
                .build();
    }

    private Limiter limiter() {
        return Limiter.builder().limit(FixedLimit.of(1)).ticker(time).scheduler(scheduler).build();
    }

    @Test
    void anAttemptThatAnswersBeforeItsTimeoutEndsThoughItsTimersCancelThrows() {
        Limiter limiter = limiter();
        scheduler.cancelThrows = new InternalError("cancel broke");
        CompletableFuture<String> result = executor(limiter).execute(ctx -> Replies.after(time, Duration.ofMillis(10), "ok"));

        time.advance(Duration.ofMillis(10));

        assertThat(result).isCompletedWithValue("ok");
        assertThat(limiter.inflight()).isZero();
        assertThat(limiter.stats().successes()).isEqualTo(1);
        assertThat(limiter.stats().limitFailures()).as("the cancel that threw, counted").isEqualTo(1);
        time.runUntilIdle(); // the timeout's timer, not cancelled, fires
        assertThat(limiter.stats().congestionEvents()).as("the late timer finds the attempt settled").isZero();
    }

    @Test
    void aCancelOfARunningAttemptFreesItsSlotThoughItsTimersCancelThrows() {
        Limiter limiter = limiter();
        scheduler.cancelThrows = new InternalError("cancel broke");
        Execution<String> e = executor(limiter).start(0, ctx -> new CompletableFuture<>(), null);
        IllegalStateException stopped = new IllegalStateException("stopped");

        assertThat(e.cancel(stopped)).isTrue();

        assertThat(e.result()).failsWithin(Duration.ZERO).withThrowableOfType(ExecutionException.class)
                .havingCause().isSameAs(stopped);
        assertThat(limiter.inflight()).isZero();
        assertThat(limiter.stats().limitFailures()).as("the cancel that threw, counted").isEqualTo(1);
        time.runUntilIdle();
        assertThat(limiter.stats().congestionEvents()).as("the late timer finds the attempt settled").isZero();
    }
}
