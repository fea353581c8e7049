package dev.adaptive.queue;

import dev.adaptive.RejectedException;
import dev.adaptive.retry.Backoff;
import dev.adaptive.retry.RetryBudget;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.UnaryOperator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Build-time validation, defaults, and maxQueueSize. */
class QueueOptionsTest extends QueueFixture {

    private static final Duration SECOND = Duration.ofSeconds(1);

    private void rejects(UnaryOperator<ThrottledQueueBuilder> options, String option, String value) {
        ThrottledQueueBuilder b = options.apply(ThrottledQueue.builder().time(time));
        assertThatThrownBy(b::build).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(option).hasMessageEndingWith(value);
    }

    @Test
    void badOptionsFailAtBuildTimeNamingTheOptionAndTheValue() {
        rejects(b -> b.interval(SECOND), "minRate", "null");
        rejects(b -> b.minRate(0).interval(SECOND), "minRate", "0");
        rejects(b -> b.minRate(-3).interval(SECOND), "minRate", "-3");
        rejects(b -> b.minRate(5).maxRate(3).interval(SECOND), "maxRate", "3");
        rejects(b -> b.minRate(5), "interval", "null");
        rejects(b -> b.minRate(5).interval(Duration.ZERO), "interval", "PT0S");
        rejects(b -> b.minRate(5).interval(Duration.ofSeconds(-1)), "interval", "PT-1S");
        rejects(b -> b.minRate(5).interval(Duration.ofDays(365L * 1000)), "interval", "PT8760000H");
        rejects(b -> b.minRate(5).interval(SECOND).errorsPerInterval(0), "errorsPerInterval", "0");
        rejects(b -> b.minRate(5).interval(SECOND).concurrency(0), "concurrency", "0");
        rejects(b -> b.minRate(5).interval(SECOND).maxQueueSize(0), "maxQueueSize", "0");
        rejects(b -> b.minRate(5).interval(SECOND).retries(-1), "retries", "-1");
        rejects(b -> b.minRate(5).interval(SECOND).maxRateLimitRetries(-2), "maxRateLimitRetries", "-2");
        rejects(b -> b.minRate(5).interval(SECOND).maxRetryAfter(Duration.ZERO), "maxRetryAfter", "PT0S");
        rejects(b -> b.minRate(5).interval(SECOND).maxRetryAfter(null), "maxRetryAfter", "null");
        assertThatThrownBy(() -> RateStrategy.aimd(0, 0.5)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("increaseBy").hasMessageEndingWith("0");
        assertThatThrownBy(() -> RateStrategy.aimd(1, 1.0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("decreaseFactor").hasMessageEndingWith("1.0");
        assertThatThrownBy(() -> Backoff.exponential(SECOND, SECOND).withJitter(1.5))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("jitter");
    }

    @Test
    void aNullRetryBudgetIsRefusedNamingTheOption() {
        assertThatThrownBy(() -> ThrottledQueue.builder().retryBudget(null))
                .isInstanceOf(NullPointerException.class).hasMessage("retryBudget");
    }

    @Test
    void defaults() {
        ThrottledQueue q = ThrottledQueue.builder().minRate(4).interval(SECOND).time(time).build();
        QueueState s = q.state();
        assertThat(s.status()).isEqualTo(QueueStatus.RUNNING);
        assertThat(s.rate()).isEqualTo(4);
        assertThat(s.concurrencyLimit()).isEqualTo(Integer.MAX_VALUE);
        assertThat(s.idle()).isTrue();
        assertThat(s.holdUntilNanos()).isEmpty();
        assertThat(s.haltCause()).isNull();
        assertThat(q.name()).isEqualTo("queue");
        assertThat(ThrottledQueueBuilder.DEFAULT_ERRORS_PER_INTERVAL).isEqualTo(5);
        assertThat(q.limiter().retryBudget()).isEqualTo(RetryBudget.defaults());
        // retries 0: one failure ends the task
        CompletableFuture<Object> r = q.submit(task(millis(10), new IllegalStateException("x"), "ok"));
        time.runUntilIdle();
        assertThat(r).isCompletedExceptionally();
        assertThat(starts).hasSize(1);
    }

    @Test
    void anAdaptiveRateStartsAtTheMidpointRoundedDown() {
        assertThat(ThrottledQueue.builder().minRate(2).maxRate(7).interval(SECOND).time(time).build().rate())
                .isEqualTo(4);
        assertThat(ThrottledQueue.builder().minRate(1).maxRate(10).interval(SECOND).time(time).build().rate())
                .isEqualTo(5);
        assertThat(ThrottledQueue.builder().minRate(Integer.MAX_VALUE - 2).maxRate(Integer.MAX_VALUE)
                .interval(SECOND).time(time).build().rate()).isEqualTo(Integer.MAX_VALUE - 1);
    }

    @Test
    void aFullQueueRejectsSubmitWithAFailedFutureAndCountsRunningTasks() {
        ThrottledQueue q = builder(1, SECOND).name("orders").maxQueueSize(3).build();
        for (int i = 0; i < 3; i++) {
            q.submit(task(Duration.ofSeconds(2)));
        }
        CompletableFuture<Object> refused = q.submit(task(millis(10)));
        assertThat(refused).failsWithin(Duration.ZERO).withThrowableOfType(Exception.class).havingCause()
                .isInstanceOf(RejectedException.class)
                .withMessageContaining("'orders'").withMessageContaining("maxQueueSize=3");
        assertThat(q.state().unfinished()).isEqualTo(3);
        advanceTo(2000);
        assertThat(q.state()).extracting(QueueState::active, QueueState::pending).containsExactly(2, 0);
        assertThat(q.submit(task(millis(10)))).isNotDone();
        assertThat(q.submit(task(millis(10)))).isCompletedExceptionally();
        time.runUntilIdle();
        assertThat(starts).extracting(Start::index).containsExactly(0L, 1L, 2L, 3L);
    }

    @Test
    void aDelayedRetryStillOccupiesItsPlace() {
        ThrottledQueue q = builder(10, SECOND).maxQueueSize(1).retries(1).retryBackoff(Backoff.constant(SECOND)).build();
        CompletableFuture<Object> first = q.submit(task(millis(10), new IllegalStateException("once"), "ok"));
        advanceTo(500);
        assertThat(q.state().delayedRetries()).isEqualTo(1);
        assertThat(q.submit(task(millis(10)))).isCompletedExceptionally();
        time.runUntilIdle();
        assertThat(first).isCompletedWithValue("ok");
        CompletableFuture<Object> later = q.submit(task(millis(10)));
        time.runUntilIdle();
        assertThat(later).isCompletedWithValue("ok");
    }
}
