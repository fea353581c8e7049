package dev.adaptive;

import dev.adaptive.limit.FixedLimit;
import dev.adaptive.pool.AdaptiveResult;
import dev.adaptive.pool.ItemPool;
import dev.adaptive.pool.PoolRun;
import dev.adaptive.retry.RetryPolicy;
import dev.adaptive.spi.Execution;
import dev.adaptive.spi.ExecutionHooks;
import dev.adaptive.time.TrapTicker;
import dev.adaptive.time.VirtualTime;
import dev.adaptive.trace.TraceEvent;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A cancel that lands (from another thread, modelled deterministically here) in the instants of
 * runAttempt around its isDone check.
 */
/**
 * A cancel that lands while an attempt is starting (after the execution's look at its result,
 * before its task is called), as another thread's cancel may: the task is not called, the slot
 * goes back once, and the attempt is not counted. The cancel is made at that instant from a
 * ticker read or a trace listener inside the attempt's start.
 */
class ExecutionCancelRaceTest {

    private final VirtualTime time = new VirtualTime();

    /** A cancel at the grant of a retry's slot: the attempt never starts, yet attempts() counts it. */
    @Test
    void aRetryWithdrawnAtItsGrantIsNotCountedAsAnAttempt() {
        TrapTicker ticker = new TrapTicker(time, "grantNow");
        @SuppressWarnings("unchecked")
        Execution<String>[] running = new Execution[1];
        Limiter limiter = Limiter.builder().limit(FixedLimit.of(1)).ticker(ticker).scheduler(time).build();
        AdaptiveExecutor executor = AdaptiveExecutor.builder(limiter)
                .retryPolicy(RetryPolicy.builder().retries(1).constant().minDelay(Duration.ofMillis(10)).build())
                .build();
        AtomicInteger calls = new AtomicInteger();
        running[0] = executor.start(0, ctx -> {
            calls.incrementAndGet();
            return CompletableFuture.failedFuture(new IllegalStateException("500"));
        }, null);
        // The first attempt failed; its retry waits 10 ms.
        ticker.arm(() -> running[0].cancel(new IllegalStateException("stopped")));
        time.runUntilIdle();

        assertThat(running[0].result()).isCompletedExceptionally();
        assertThat(calls).hasValue(1);
        assertThat(limiter.inflight()).isZero();
        assertThat(running[0].attempts()).as("attempts() = attempts started").isEqualTo(calls.get());
    }

    /**
     * A cancel just after runAttempt's isDone check (here: as its TaskStart is emitted): the
     * runner is told the execution is over, its slot is back, and only then is the task called.
     */
    @Test
    void theTaskIsNotCalledAfterTheExecutionWasReportedOver() {
        @SuppressWarnings("unchecked")
        Execution<String>[] running = new Execution[1];
        Limiter limiter = Limiter.builder().limit(FixedLimit.of(1)).time(time)
                .traceListener(e -> {
                    if (e instanceof TraceEvent.TaskStart s && s.attempt() == 2) {
                        running[0].cancel(new IllegalStateException("stopped"));
                    }
                }).build();
        AdaptiveExecutor executor = AdaptiveExecutor.builder(limiter)
                .retryPolicy(RetryPolicy.builder().retries(1).constant().minDelay(Duration.ofMillis(10)).build())
                .build();
        AtomicBoolean finished = new AtomicBoolean();
        List<String> calls = new ArrayList<>();
        ExecutionHooks hooks = new ExecutionHooks() {
            @Override
            public void finished() {
                finished.set(true);
            }
        };
        running[0] = executor.start(0, ctx -> {
            calls.add("attempt " + ctx.attempt() + (finished.get() ? " after finished()" : "")
                    + (ctx.cancellation().isCancelled() ? ", cancelled" : "") + ", in flight " + limiter.inflight());
            return CompletableFuture.failedFuture(new IllegalStateException("500"));
        }, null, hooks);
        time.runUntilIdle();

        assertThat(running[0].result()).isCompletedExceptionally();
        assertThat(limiter.inflight()).isZero();
        assertThat(calls).noneMatch(c -> c.contains("after finished()"));
    }

    @Test
    void aPoolRunCancelledAsARetryStartsNeverCallsItsProcessorAfterItEnded() {
        VirtualTime time = new VirtualTime();
        @SuppressWarnings("unchecked")
        PoolRun<AdaptiveResult<String, String>>[] run = new PoolRun[1];
        List<String> calls = new CopyOnWriteArrayList<>();
        run[0] = ItemPool.of("a").withVirtualTime(time)
                .withRetryPolicy(RetryPolicy.builder().retries(1).constant().minDelay(Duration.ofMillis(10)).build())
                .withTraceListener(e -> {
                    if (e instanceof TraceEvent.TaskStart s && s.attempt() == 2) {
                        run[0].cancel(); // another thread's cancel, at this instant
                    }
                })
                .process((String item, TaskContext ctx) -> {
                    calls.add("attempt " + ctx.attempt() + (run[0] != null && run[0].isDone() ? " after the run ended" : ""));
                    return CompletableFuture.<String>failedFuture(new IllegalStateException("500"));
                });
        time.runUntilIdle();

        assertThat(run[0].isDone()).isTrue();
        assertThat(calls).noneMatch(c -> c.contains("after the run ended"));
    }
}
