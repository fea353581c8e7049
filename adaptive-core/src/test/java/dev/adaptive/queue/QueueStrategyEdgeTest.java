package dev.adaptive.queue;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Rate strategies at their edges: one that throws an {@code Error} halts the queue as one that
 * throws an exception does, and never costs a settled task its result; one that always asks
 * for back-off slows the queue but cannot stall it, because an interval in which nothing
 * started or settled is no news to back off on.
 */
class QueueStrategyEdgeTest extends QueueFixture {

    private static final Duration SECOND = Duration.ofSeconds(1);

    @AfterEach
    void nothingEscapedToTheScheduler() {
        assertNoUncaught();
    }

    @Test
    void aSettledTimingStrategyThrowingStackOverflowErrorHaltsAndTheTaskStillCompletes() {
        StackOverflowError soe = new StackOverflowError("strategy recursion");
        ThrottledQueue q = builder(1, SECOND).maxRate(5).adjustmentTiming(AdjustmentTiming.SETTLED)
                .rateStrategy(o -> {
                    throw soe;
                }).build();
        CompletableFuture<Object> first = q.submit(task(Duration.ofSeconds(2)));
        CompletableFuture<Object> second = q.submit(task(Duration.ofMillis(10)));
        time.runUntilIdle();
        assertThat(first).isCompletedWithValue("ok");
        QueueState s = q.state();
        assertThat(s.status()).isEqualTo(QueueStatus.STOPPED);
        assertThat(s.haltCause()).isInstanceOf(RateStrategyException.class).hasCause(soe);
        assertThat(s.succeeded() + s.failed()).isEqualTo(s.started());
        assertThat(q.awaitIdle()).isCompletedExceptionally();
        // Halted, nothing lost: resuming runs what was pending.
        q.resume();
        time.runUntilIdle();
        assertThat(second).isDone();
    }

    @Test
    void anIntervalTimingStrategyThrowingAnErrorHaltsLikeOneThrowingAnException() {
        ThrottledQueue q = builder(2, SECOND).rateStrategy(o -> {
            throw new AssertionError("strategy bug");
        }).build();
        for (int i = 0; i < 5; i++) {
            q.submit(task(Duration.ofMillis(10)));
        }
        time.runUntilIdle();
        assertThat(q.state().status()).isEqualTo(QueueStatus.STOPPED);
        assertThat(q.state().haltCause()).hasCauseInstanceOf(AssertionError.class);
        assertThat(q.state().succeeded()).isEqualTo(2);
        assertThat(q.pending()).isEqualTo(3);
    }

    @Test
    void awaitIdleAfterAnAbortOfAHaltedQueueCompletesNormally() {
        ThrottledQueue q = builder(2, SECOND).rateStrategy(o -> {
            throw new IllegalStateException("strategy bug");
        }).build();
        List<CompletableFuture<Object>> all = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            all.add(q.submit(task(Duration.ofMillis(10))));
        }
        time.runUntilIdle();
        assertThat(q.state().haltCause()).isInstanceOf(RateStrategyException.class);
        assertThat(q.awaitIdle()).isCompletedExceptionally();
        q.abort();
        assertThat(all).allMatch(CompletableFuture::isDone);
        // awaitIdle's javadoc: after abort() it completes normally, halted before or not.
        assertThat(q.awaitIdle()).isCompleted();
    }

    @Test
    void aStrategyThatAlwaysBacksOffSlowsTheQueueButNeverStallsIt() {
        ThrottledQueue q = builder(2, SECOND).backOff(true)
                .rateStrategy(o -> new RateDecision(o.rate(), true)).build();
        List<CompletableFuture<Object>> all = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            all.add(q.submit(task(Duration.ofMillis(10))));
        }
        time.advance(Duration.ofSeconds(30));
        assertThat(all).allMatch(CompletableFuture::isDone);
        assertThat(q.awaitIdle()).isCompleted();
        // Two starts, then a back-off interval with nothing in it, and so on.
        assertThat(startsPerInterval(SECOND, 10)).containsExactly(2, 0, 2, 0, 2, 0, 2, 0, 2, 0);
    }

    @Test
    void aBackOffAfterRealErrorsStillHoldsAFullInterval() {
        ThrottledQueue q = builder(2, SECOND).maxRate(2).errorsPerInterval(1).backOff(true).build();
        for (int i = 0; i < 4; i++) {
            q.submit(task(Duration.ofMillis(10), new IllegalStateException("down")));
        }
        time.runUntilIdle();
        assertThat(startTimes()).containsExactly(0L, ms(500), ms(2000), ms(2500));
    }
}
