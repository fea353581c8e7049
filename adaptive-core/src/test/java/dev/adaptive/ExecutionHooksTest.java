package dev.adaptive;

import dev.adaptive.limit.FixedLimit;
import dev.adaptive.limit.Outcome;
import dev.adaptive.retry.RetryBudget;
import dev.adaptive.retry.RetryPolicy;
import dev.adaptive.spi.Execution;
import dev.adaptive.spi.ExecutionHooks;
import dev.adaptive.spi.OneListenerFuture;
import dev.adaptive.time.Cancellable;
import dev.adaptive.time.Scheduler;
import dev.adaptive.time.TrapTicker;
import dev.adaptive.time.VirtualTime;
import dev.adaptive.trace.TraceEvent;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a runner that follows its executions relies on: a caller who completes or cancels the
 * result withdraws the execution at once (its queued acquisition leaves, its pending retry is
 * dropped, a running attempt runs on and is not retried); the hooks see every retry's wait and
 * the end of the execution once; a task timeout is classified like any failure; an admission
 * gate hears each attempt's failure.
 */
class ExecutionHooksTest {

    private final VirtualTime time = new VirtualTime();

    @AfterEach
    void nothingThrewOnTheScheduler() {
        assertThat(time.uncaught()).isEmpty();
    }

    private static long ms(long millis) {
        return Duration.ofMillis(millis).toNanos();
    }

    private Limiter limiter(int n) {
        return Limiter.builder().limit(FixedLimit.of(n)).time(time).build();
    }

    /** Hooks that record the retry waits (run on the scheduler) and how often the execution ended. */
    private class Recording implements ExecutionHooks {
        final List<Long> delays = new ArrayList<>();
        final List<String> endings = new ArrayList<>();
        /** The limiter's in flight each time the execution was reported over, once {@link #limiter} is set. */
        final List<Integer> inflightWhenFinished = new ArrayList<>();
        int finished;
        boolean first;
        Limiter limiter;
        /** Added to each retry's wait before the retry runs, as a runner that paces its retries may. */
        long retryLater;

        @Override
        public void ending(int attempt, Outcome outcome, Throwable failure) {
            endings.add(attempt + ": " + outcome + (failure == null ? "" : " " + failure.getMessage())
                    + (limiter == null ? "" : ", in flight " + limiter.inflight()));
        }

        @Override
        public Cancellable delayRetry(Runnable retry, long delayNanos, Scheduler scheduler) {
            delays.add(delayNanos);
            return ExecutionHooks.super.delayRetry(retry, delayNanos + retryLater, scheduler);
        }

        @Override
        public boolean retriesFirst() {
            return first;
        }

        @Override
        public void finished() {
            finished++;
            if (limiter != null) {
                inflightWhenFinished.add(limiter.inflight());
            }
        }
    }

    private static AsyncTask<String> answering(VirtualTime time, Duration latency, Object... replies) {
        int[] calls = {0};
        return ctx -> {
            return Replies.after(time, latency, replies[Math.min(calls[0]++, replies.length - 1)]);
        };
    }

    @Test
    void cancellingTheResultWithdrawsAQueuedAcquisitionAtOnce() {
        Limiter limiter = limiter(1);
        Lease held = limiter.acquire().join();
        AdaptiveExecutor ex = AdaptiveExecutor.builder(limiter).build();
        Recording hooks = new Recording();
        Execution<String> e = ex.start(0, answering(time, Duration.ZERO, "ok"), null, hooks);
        assertThat(limiter.waiting()).isEqualTo(1);
        e.result().cancel(false);
        assertThat(limiter.waiting()).as("left the queue with the cancel, not at the next grant").isZero();
        assertThat(hooks.finished).isEqualTo(1);
        held.release();
        assertThat(limiter.inflight()).isZero();
        assertThat(e.attempts()).isZero();
    }

    @Test
    void completingTheResultDropsAPendingRetryAndARunningAttemptRunsOnUnretried() {
        Limiter limiter = limiter(1);
        AdaptiveExecutor ex = AdaptiveExecutor.builder(limiter)
                .retryPolicy(RetryPolicy.builder().retries(3).constant().minDelay(Duration.ofSeconds(1)).noJitter().build())
                .build();
        Recording delayed = new Recording();
        Execution<String> waiting = ex.start(0, answering(time, Duration.ofMillis(10),
                new IllegalStateException("down"), "ok"), null, delayed);
        time.advance(Duration.ofMillis(100));
        assertThat(delayed.delays).containsExactly(ms(1000));
        assertThat(time.pendingTasks()).isEqualTo(1);
        waiting.result().complete("not needed");
        assertThat(time.pendingTasks()).as("the retry's timer is gone").isZero();
        assertThat(delayed.finished).isEqualTo(1);

        Recording running = new Recording();
        Execution<String> e = ex.start(1, answering(time, Duration.ofMillis(50), new IllegalStateException("down")),
                null, running);
        time.advance(Duration.ofMillis(20));
        e.result().cancel(false);
        assertThat(limiter.inflight()).as("the running attempt keeps its slot").isEqualTo(1);
        assertThat(running.finished).as("not over while the attempt holds its lease").isZero();
        time.runUntilIdle();
        assertThat(limiter.inflight()).isZero();
        assertThat(limiter.stats().congestionEvents()).as("released with its own outcome").isEqualTo(2);
        assertThat(e.attempts()).isEqualTo(1);
        assertThat(running.delays).isEmpty();
        assertThat(running.finished).isEqualTo(1);
    }

    @Test
    void everyRetryPassesTheHooksARetryAfterOneWithNoDelayAndTheEndComesOnce() {
        AdaptiveExecutor ex = AdaptiveExecutor.builder(limiter(2))
                .retryPolicy(RetryPolicy.builder().retries(1).constant().minDelay(Duration.ofMillis(100)).noJitter().build())
                .build();
        Recording hooks = new Recording();
        hooks.limiter = ex.limiter();
        Execution<String> e = ex.start(0, answering(time, Duration.ofMillis(10),
                new RateLimitedException("429", Duration.ofSeconds(1)), new IllegalStateException("down"), "ok"), null,
                hooks);
        time.runUntilIdle();
        assertThat(e.result()).isCompletedWithValue("ok");
        assertThat(hooks.delays).containsExactly(0L, ms(100));
        assertThat(hooks.endings).as("each told before its slot is freed").containsExactly(
                "1: " + Outcome.rateLimited(Duration.ofSeconds(1)) + " 429, in flight 1",
                "2: " + Outcome.DROPPED + " down, in flight 1", "3: " + Outcome.SUCCESS + ", in flight 1");
        assertThat(hooks.finished).isEqualTo(1);
    }

    /**
     * A retry the retry budget refuses at the end of its backoff waits another and asks again:
     * the runner is handed that wait through delayRefusedRetry, so that one counting the retries
     * it is handed counts it once; a runner that overrides only delayRetry gets it there.
     */
    @Test
    void aRetryTheBudgetRefusedWaitsAgainThroughDelayRefusedRetry() {
        Limiter limiter = Limiter.builder().limit(FixedLimit.of(1)).time(time)
                .retryBudget(new RetryBudget(0, 0, Duration.ofSeconds(10))).build(); // refuses every retry
        AdaptiveExecutor ex = AdaptiveExecutor.builder(limiter)
                .retryPolicy(RetryPolicy.builder().retries(2).constant().minDelay(Duration.ofMillis(100)).noJitter().build())
                .build();
        List<String> waits = new ArrayList<>();
        ExecutionHooks both = new ExecutionHooks() {
            @Override
            public Cancellable delayRetry(Runnable retry, long delayNanos, Scheduler scheduler) {
                waits.add("retry " + delayNanos);
                return ExecutionHooks.super.delayRetry(retry, delayNanos, scheduler);
            }

            @Override
            public Cancellable delayRefusedRetry(Runnable retry, long delayNanos, Scheduler scheduler) {
                waits.add("again " + delayNanos);
                return ExecutionHooks.super.delayRetry(retry, delayNanos, scheduler);
            }
        };
        Execution<String> e = ex.start(0, answering(time, Duration.ofMillis(10), new IllegalStateException("down")),
                null, both);
        time.runUntilIdle();
        // Refused after 100 ms with a retry left: waits again; refused again with none: ends.
        assertThat(waits).containsExactly("retry " + ms(100), "again " + ms(100));
        assertThat(e.result()).failsWithin(Duration.ZERO).withThrowableOfType(ExecutionException.class)
                .havingCause().isInstanceOf(RetryBudgetExhaustedException.class);
        assertThat(limiter.stats()).extracting(LimiterStats::retriesRefused, LimiterStats::errorRetries)
                .containsExactly(2L, 1L);

        Recording onlyDelayRetry = new Recording();
        Execution<String> f = ex.start(1, answering(time, Duration.ofMillis(10), new IllegalStateException("down")),
                null, onlyDelayRetry);
        time.runUntilIdle();
        assertThat(onlyDelayRetry.delays).as("both waits, by the default").containsExactly(ms(100), ms(100));
        assertThat(f.result()).isCompletedExceptionally();
        assertThat(onlyDelayRetry.finished).isEqualTo(1);
    }

    @Test
    void retriesQueueAheadOfFreshWorkOnlyWhenTheHooksSaySo() {
        for (boolean first : new boolean[] {false, true}) {
            Limiter limiter = limiter(1);
            AdaptiveExecutor ex = AdaptiveExecutor.builder(limiter)
                    .retryPolicy(RetryPolicy.builder().retries(1).constant().minDelay(Duration.ZERO).noJitter().build())
                    .build();
            List<String> order = new ArrayList<>();
            Recording hooks = new Recording();
            hooks.first = first;
            ex.start(0, ctx -> {
                order.add("a" + ctx.attempt());
                return answering(time, Duration.ofMillis(10), new IllegalStateException("down"), "ok").call(ctx);
            }, null, hooks);
            ex.start(1, ctx -> {
                order.add("b" + ctx.attempt());
                return answering(time, Duration.ofMillis(10), "ok").call(ctx);
            }, null, hooks);
            time.runUntilIdle();
            assertThat(order).containsExactly(first ? new String[] {"a1", "a2", "b1"} : new String[] {"a1", "b1", "a2"});
        }
    }

    @Test
    void aTaskTimeoutIsClassifiedLikeAnyFailure() {
        Limiter limiter = limiter(1);
        AdaptiveExecutor ex = AdaptiveExecutor.builder(limiter).taskTimeout(Duration.ofMillis(100))
                .classifier((r, error) -> error instanceof TaskTimeoutException ? Outcome.IGNORED : null)
                .retryPolicy(RetryPolicy.none()).build();
        Execution<String> e = ex.start(0, ctx -> new CompletableFuture<>(), null);
        time.runUntilIdle();
        assertThat(e.result()).isCompletedExceptionally();
        assertThat(limiter.stats().congestionEvents()).as("the classifier called it not about capacity").isZero();
        assertThat(limiter.inflight()).isZero();
    }

    @Test
    void theGateHearsEachAttemptsFailureAsTheExecutorSawIt() {
        List<Throwable> failures = new ArrayList<>();
        AdmissionGate gate = new AdmissionGate() {
            @Override
            public long admitAt(long nowNanos, int inflight) {
                return nowNanos;
            }

            @Override
            public Object started(Lease lease) {
                return null;
            }

            @Override
            public void settled(Object ticket, Outcome outcome, Throwable failure, long nowNanos) {
                failures.add(failure);
            }
        };
        Limiter limiter = Limiter.builder().limit(FixedLimit.of(1)).time(time).gate(gate).build();
        IllegalStateException down = new IllegalStateException("down");
        AdaptiveExecutor ex = AdaptiveExecutor.builder(limiter)
                .retryPolicy(RetryPolicy.builder().retries(2).constant().minDelay(Duration.ZERO).noJitter().build())
                .classifier((r, error) -> "429".equals(r) ? Outcome.rateLimited(null) : "500".equals(r) ? Outcome.DROPPED : null)
                .build();
        Execution<String> e = ex.start(0, answering(time, Duration.ofMillis(10), down, "500", "429", "ok"), null);
        time.runUntilIdle();
        assertThat(e.result()).isCompletedWithValue("ok"); // the 429 was retried on its own budget
        assertThat(failures).hasSize(4);
        assertThat(failures.get(3)).isNull();
        assertThat(failures.get(0)).isSameAs(down);
        assertThat(failures.get(1)).isInstanceOfSatisfying(ClassifiedFailureException.class,
                f -> assertThat(f.result()).isEqualTo("500"));
        assertThat(failures.get(2)).isInstanceOf(RateLimitedException.class)
                .hasMessage("result classified as rate-limited: 429");
    }

    /**
     * A task whose stage is a {@link OneListenerFuture} (the Camel face's attempts) is listened to
     * through its field: a failure is retried, a success ends the execution once, and a runner
     * that listens to the result the same way is told once, before the execution is over, even
     * if it throws.
     */
    @Test
    void attemptsAndResultsOfTheOneListenerKindEndAsAnyOther() {
        Limiter limiter = limiter(1);
        AdaptiveExecutor ex = AdaptiveExecutor.builder(limiter)
                .retryPolicy(RetryPolicy.builder().retries(1).constant().minDelay(Duration.ZERO).noJitter().build())
                .build();
        List<OneListenerFuture<String>> stages = new ArrayList<>();
        Recording hooks = new Recording();
        Execution<String> e = ex.start(0, ctx -> {
            OneListenerFuture<String> f = new OneListenerFuture<>();
            stages.add(f);
            return f;
        }, null, hooks);
        List<String> told = new ArrayList<>();
        OneListenerFuture.listen(e.result(), (v, error) -> {
            told.add(v + " with " + hooks.finished + " finished");
            throw new IllegalStateException("a broken runner");
        });
        assertThat(stages).hasSize(1);
        stages.get(0).completeExceptionally(new IllegalStateException("down"));
        assertThat(stages).as("retried at once").hasSize(2);
        assertThat(limiter.inflight()).isEqualTo(1);
        assertThat(stages.get(1).complete("ok")).isTrue();
        assertThat(e.result()).isCompletedWithValue("ok");
        assertThat(told).containsExactly("ok with 0 finished");
        assertThat(hooks.finished).isEqualTo(1);
        assertThat(limiter.inflight()).isZero();
        assertThat(e.attempts()).isEqualTo(2);
    }

    /**
     * A retry whose slot is granted at the instant a cancel ends its execution (on another
     * thread, in production: here from inside the limiter's clock read that follows the grant)
     * gives the slot back just after the result completed. The execution is over only then:
     * a runner told it finished earlier (a pool's run, which then reported its end and stopped a
     * limiter of its own) saw that slot still in flight.
     */
    @Test
    void anExecutionCancelledAsItsRetryIsGrantedFinishesOnlyOnceTheSlotIsBack() {
        Runnable[] onGrant = {null};
        Limiter[] held = {null};
        // The limiter reads its clock for a lease once it has counted the slot: the instant
        // between the grant and the attempt that would use it.
        dev.adaptive.time.Ticker ticker = () -> {
            Runnable r = onGrant[0];
            if (r != null && held[0].inflight() == 1) {
                onGrant[0] = null;
                r.run();
            }
            return time.nanoTime();
        };
        Limiter limiter = Limiter.builder().limit(FixedLimit.of(1)).ticker(ticker).scheduler(time).build();
        held[0] = limiter;
        AdaptiveExecutor executor = AdaptiveExecutor.builder(limiter)
                .retryPolicy(RetryPolicy.builder().retries(1).constant().minDelay(Duration.ofMillis(1)).build())
                .build();
        @SuppressWarnings("unchecked")
        Execution<String>[] running = new Execution[1];
        List<Integer> inflightWhenFinished = new ArrayList<>();
        ExecutionHooks hooks = new ExecutionHooks() {
            @Override
            public Cancellable delayRetry(Runnable retry, long delayNanos, Scheduler scheduler) {
                return ExecutionHooks.super.delayRetry(() -> {
                    onGrant[0] = () -> running[0].cancel(new IllegalStateException("stopped"));
                    retry.run();
                }, delayNanos, scheduler);
            }

            @Override
            public void finished() {
                inflightWhenFinished.add(limiter.inflight());
            }
        };
        running[0] = executor.start(0, answering(time, Duration.ofMillis(5), new IllegalStateException("500"), "ok"),
                null, hooks);
        time.runUntilIdle();

        assertThat(running[0].result()).isCompletedExceptionally();
        assertThat(inflightWhenFinished).containsExactly(0);
        assertThat(limiter.inflight()).isZero();
    }

    /**
     * A cancel that lands while the limiter grants the execution's queued acquisition a slot
     * (counted, not yet handed over), as another thread's may: modelled by a ticker read inside
     * that grant. The acquisition ends cancelled at once and the limiter gives the slot back just
     * after, on the granting thread; the execution is over only then. Reported over at the
     * cancel, a pool run ended (and stopped a limiter of its own) with that slot in flight.
     */
    @Test
    void anExecutionCancelledWhileItsQueuedAcquisitionIsGrantedFinishesOnlyOnceTheSlotIsBack() {
        TrapTicker inGrant = new TrapTicker(time, "drainPass");
        Limiter limiter = Limiter.builder().limit(FixedLimit.of(1)).ticker(inGrant).scheduler(time).build();
        Lease held = limiter.tryAcquire().orElseThrow();
        Recording hooks = new Recording();
        hooks.limiter = limiter;
        Execution<String> e = AdaptiveExecutor.builder(limiter).build()
                .start(0, answering(time, Duration.ZERO, "ok"), null, hooks);
        assertThat(limiter.waiting()).isEqualTo(1);
        inGrant.arm(() -> e.result().cancel(false));

        held.release(Outcome.SUCCESS); // the drain grants the freed slot to the execution's acquisition

        assertThat(inGrant.sprung()).as("cancelled inside the grant").isTrue();
        assertThat(e.result()).isCancelled();
        assertThat(hooks.inflightWhenFinished).as("in flight when reported over").containsExactly(0);
        assertThat(e.attempts()).isZero();
        assertThat(limiter.inflight()).isZero();
    }

    /**
     * The same for a wait timeout that fails the acquisition while the limiter grants it a slot:
     * the timeout and the slot freed are due at one instant, the freed slot first, and the
     * timeout runs inside the grant. The execution ends with the timeout, and is over only once
     * the slot is back.
     */
    @Test
    void anExecutionWhoseAcquisitionTimesOutWhileItIsGrantedFinishesOnlyOnceTheSlotIsBack() {
        TrapTicker inGrant = new TrapTicker(time, "drainPass");
        Limiter limiter = Limiter.builder().limit(FixedLimit.of(1)).ticker(inGrant).scheduler(time)
                .waitTimeout(Duration.ofSeconds(1)).build();
        Lease held = limiter.tryAcquire().orElseThrow();
        time.schedule(() -> held.release(Outcome.SUCCESS), Duration.ofSeconds(1)); // before the timeout's timer
        Recording hooks = new Recording();
        hooks.limiter = limiter;
        Execution<String> e = AdaptiveExecutor.builder(limiter).build()
                .start(0, answering(time, Duration.ZERO, "ok"), null, hooks);
        inGrant.arm(time::runDue); // the timeout, due at the same instant, fires inside the grant

        time.runUntilIdle();

        assertThat(inGrant.sprung()).as("timed out inside the grant").isTrue();
        assertThat(e.result()).failsWithin(Duration.ZERO).withThrowableOfType(ExecutionException.class)
                .withCauseInstanceOf(AcquireTimeoutException.class);
        assertThat(hooks.inflightWhenFinished).as("in flight when reported over").containsExactly(0);
        assertThat(e.attempts()).isZero();
        assertThat(limiter.inflight()).isZero();
    }

    /**
     * The same for a retry queued ahead at the end of a 429 (hooks that put retries first): its
     * acquisition waits out the Retry-After pause, and the pause's end grants it as the cancel
     * lands. No hold of the execution waits on that acquisition, which was queued before the
     * attempt's slot was freed; the execution is over only once the slot is back all the same.
     */
    @Test
    void anExecutionCancelledWhileItsRetryQueuedAheadIsGrantedFinishesOnlyOnceTheSlotIsBack() {
        cancelledWhileItsRetryQueuedAheadIsGranted(0);
    }

    /** As above, the retry's wait (which the hooks lengthen) not over yet when the grant comes. */
    @Test
    void anExecutionCancelledWhileItsRetryQueuedAheadIsGrantedBeforeItsWaitIsOverFinishesOnlyOnceTheSlotIsBack() {
        cancelledWhileItsRetryQueuedAheadIsGranted(Duration.ofSeconds(2).toNanos());
    }

    private void cancelledWhileItsRetryQueuedAheadIsGranted(long retryLater) {
        TrapTicker inGrant = new TrapTicker(time, "drainPass");
        Limiter limiter = Limiter.builder().limit(FixedLimit.of(1)).ticker(inGrant).scheduler(time).build();
        Recording hooks = new Recording();
        hooks.limiter = limiter;
        hooks.first = true;
        hooks.retryLater = retryLater;
        Execution<String> e = AdaptiveExecutor.builder(limiter).build().start(0, answering(time, Duration.ofMillis(10),
                new RateLimitedException("429", Duration.ofSeconds(1)), "ok"), null, hooks);
        inGrant.arm(() -> e.result().cancel(false));
        time.advance(Duration.ofMillis(100));
        assertThat(limiter.waiting()).as("the retry waits out the pause").isEqualTo(1);
        assertThat(inGrant.sprung()).isFalse();

        time.runUntilIdle();

        assertThat(inGrant.sprung()).as("cancelled inside the grant").isTrue();
        assertThat(e.result()).isCancelled();
        assertThat(hooks.inflightWhenFinished).as("in flight when reported over").containsExactly(0);
        assertThat(e.attempts()).isEqualTo(1);
        assertThat(limiter.inflight()).isZero();
    }

    /**
     * Hooks that put retries first and do not run a retry without a delay at once: they keep it
     * (as a runner holding its retries would), and their wait's cancel drops it. The retry's
     * acquisition was queued ahead as its attempt ended, so the freed slot is granted to it
     * while its call waits.
     */
    private final class Keeping extends Recording {
        final List<Runnable> kept = new ArrayList<>();
        int cancels;

        Keeping() {
            first = true;
        }

        @Override
        public Cancellable delayRetry(Runnable retry, long delayNanos, Scheduler scheduler) {
            delays.add(delayNanos);
            kept.add(retry);
            return () -> {
                cancels++;
                return true;
            };
        }
    }

    private AdaptiveExecutor retryingAtOnce(Limiter limiter) {
        return AdaptiveExecutor.builder(limiter)
                .retryPolicy(RetryPolicy.builder().retries(1).constant().minDelay(Duration.ZERO).noJitter().build())
                .build();
    }

    /**
     * A retry queued ahead whose slot was granted while the runner kept its call: a cancel that
     * ends the execution then (the runner dropping the call with it) gives that slot back, and
     * the execution is over only once it is; a call the runner makes later anyway runs nothing.
     */
    @Test
    void aSlotGrantedToARetryTheRunnerKeepsGoesBackWhenTheExecutionIsCancelled() {
        Limiter limiter = limiter(1);
        Keeping hooks = new Keeping();
        hooks.limiter = limiter;
        Execution<String> e = retryingAtOnce(limiter).start(0, answering(time, Duration.ofMillis(10),
                new IllegalStateException("down"), "ok"), null, hooks);
        time.advance(Duration.ofMillis(100));
        assertThat(hooks.kept).hasSize(1);
        assertThat(limiter.inflight()).as("granted to the retry queued ahead, its call kept").isEqualTo(1);
        assertThat(e.result()).isNotDone();

        assertThat(e.cancel(new IllegalStateException("stopped"))).isTrue();

        assertThat(limiter.inflight()).as("the retry's slot, back with the cancel").isZero();
        assertThat(hooks.inflightWhenFinished).as("in flight when reported over").containsExactly(0);
        assertThat(hooks.cancels).isEqualTo(1);
        hooks.kept.get(0).run(); // a runner that calls it all the same
        time.runUntilIdle();
        assertThat(e.attempts()).isEqualTo(1);
        assertThat(limiter.inflight()).isZero();
        assertThat(hooks.finished).isEqualTo(1);
        assertThat(limiter.acquire()).as("the slot is free for others").isCompleted();
    }

    /** The runner calls the kept retry later: the slot granted meanwhile runs that retry, as the contract says. */
    @Test
    void aRetryTheRunnerCallsLateRunsOnTheSlotGrantedToIt() {
        Limiter limiter = limiter(1);
        Keeping hooks = new Keeping();
        hooks.limiter = limiter;
        Execution<String> e = retryingAtOnce(limiter).start(0, answering(time, Duration.ofMillis(10),
                new IllegalStateException("down"), "ok"), null, hooks);
        time.advance(Duration.ofMillis(100));
        CompletableFuture<Lease> other = limiter.acquire();
        assertThat(other).as("the freed slot went to the retry").isNotDone();

        hooks.kept.get(0).run();
        time.runUntilIdle();

        assertThat(e.result()).isCompletedWithValue("ok");
        assertThat(e.attempts()).isEqualTo(2);
        assertThat(hooks.inflightWhenFinished).as("the slot, gone on to the other acquisition").containsExactly(1);
        assertThat(other).isCompleted();
        other.join().release();
        assertThat(limiter.inflight()).isZero();
    }

    /**
     * A runner whose wait throws for a retry without a delay: the execution ends with its last
     * failure, the runner's throw suppressed in it, and the slot granted to the retry queued
     * ahead goes back.
     */
    @Test
    void aRunnerWhoseWaitThrowsForARetryQueuedAheadLosesNoSlot() {
        Limiter limiter = limiter(1);
        Recording hooks = new Recording() {
            @Override
            public Cancellable delayRetry(Runnable retry, long delayNanos, Scheduler scheduler) {
                throw new AssertionError("a broken runner");
            }
        };
        hooks.first = true;
        hooks.limiter = limiter;
        Execution<String> e = retryingAtOnce(limiter).start(0, answering(time, Duration.ofMillis(10),
                new IllegalStateException("down"), "ok"), null, hooks);
        time.runUntilIdle();
        assertThat(e.result()).failsWithin(Duration.ZERO).withThrowableOfType(ExecutionException.class)
                .havingCause().withMessage("down")
                .satisfies(down -> assertThat(down.getSuppressed()).singleElement()
                        .hasFieldOrPropertyWithValue("message", "a broken runner"));
        assertThat(hooks.inflightWhenFinished).containsExactly(0);
        assertThat(limiter.inflight()).isZero();
        assertThat(e.attempts()).isEqualTo(1);
    }

    /** Hooks whose retriesFirst() throws: read as {@code false}, the default; the attempt's slot and the execution's end are not lost. */
    @Test
    void hooksWhoseRetriesFirstThrowsLoseNoSlotAndNoExecution() {
        Limiter limiter = limiter(1);
        Recording hooks = new Recording() {
            @Override
            public boolean retriesFirst() {
                throw new AssertionError("a broken runner");
            }
        };
        hooks.limiter = limiter;
        Execution<String> e = retryingAtOnce(limiter).start(0, answering(time, Duration.ofMillis(10),
                new IllegalStateException("down"), "ok"), null, hooks);
        time.runUntilIdle();
        assertThat(e.result()).isCompletedWithValue("ok");
        assertThat(e.attempts()).isEqualTo(2);
        assertThat(hooks.inflightWhenFinished).containsExactly(0);
        assertThat(limiter.inflight()).isZero();
    }

    /**
     * A retry that waits in the limiter's queue (the only slot is held by other work), with
     * hooks whose retriesFirst() throws as it queues: read as {@code false}, it queues in
     * arrival order and runs once the slot is free.
     */
    @Test
    void aRetryThatQueuesWithHooksWhoseRetriesFirstThrowsStillRuns() {
        Limiter limiter = limiter(1);
        Recording hooks = new Recording() {
            @Override
            public boolean retriesFirst() {
                throw new AssertionError("a broken runner");
            }
        };
        hooks.limiter = limiter;
        AdaptiveExecutor ex = AdaptiveExecutor.builder(limiter)
                .retryPolicy(RetryPolicy.builder().retries(1).constant().minDelay(Duration.ofMillis(100)).noJitter().build())
                .build();
        Execution<String> e = ex.start(0, answering(time, Duration.ofMillis(10), new IllegalStateException("down"), "ok"),
                null, hooks);
        time.advance(Duration.ofMillis(50));
        Lease other = limiter.acquire().join();
        time.advance(Duration.ofMillis(100));
        assertThat(limiter.waiting()).as("the retry, queued").isEqualTo(1);
        other.release();
        time.runUntilIdle();
        assertThat(e.result()).isCompletedWithValue("ok");
        assertThat(hooks.inflightWhenFinished).containsExactly(0);
        assertThat(limiter.inflight()).isZero();
    }

    /**
     * A runner's wait whose cancel throws as the execution is cancelled during it: the cancel
     * still completes the result and does not throw, the retry is dropped, and the execution
     * is over.
     */
    @Test
    void aRunnersWaitWhoseCancelThrowsDoesNotBreakTheCancel() {
        Limiter limiter = limiter(1);
        Recording hooks = new Recording() {
            @Override
            public Cancellable delayRetry(Runnable retry, long delayNanos, Scheduler scheduler) {
                Cancellable timer = scheduler.schedule(retry, delayNanos);
                return () -> {
                    timer.cancel();
                    throw new AssertionError("a broken runner");
                };
            }
        };
        hooks.limiter = limiter;
        AdaptiveExecutor ex = AdaptiveExecutor.builder(limiter)
                .retryPolicy(RetryPolicy.builder().retries(1).constant().minDelay(Duration.ofMillis(100)).noJitter().build())
                .build();
        Execution<String> e = ex.start(0, answering(time, Duration.ofMillis(10), new IllegalStateException("down"), "ok"),
                null, hooks);
        time.advance(Duration.ofMillis(50));

        assertThat(e.cancel(new IllegalStateException("stopped"))).isTrue();

        assertThat(e.result()).isCompletedExceptionally();
        assertThat(hooks.finished).isEqualTo(1);
        time.runUntilIdle();
        assertThat(e.attempts()).isEqualTo(1);
        assertThat(limiter.inflight()).isZero();
    }

    /**
     * A retry after a 100 ms backoff, under a runner whose wait does {@code wait}: the events,
     * by kind and attempt, and the retries the stats counted.
     */
    private List<String> tracedUnder(java.util.function.BiFunction<Runnable, Scheduler, Cancellable> wait, long[] retries) {
        List<String> events = new ArrayList<>();
        Limiter limiter = Limiter.builder().limit(FixedLimit.of(1)).time(time).traceListener(event -> {
            if (event instanceof TraceEvent.TaskStart t) {
                events.add("TaskStart " + t.attempt());
            } else if (event instanceof TraceEvent.Retry r) {
                events.add("Retry " + r.attempt());
            }
        }).build();
        AdaptiveExecutor ex = AdaptiveExecutor.builder(limiter)
                .retryPolicy(RetryPolicy.builder().retries(1).constant().minDelay(Duration.ofMillis(100)).noJitter().build())
                .build();
        ex.start(0, answering(time, Duration.ofMillis(10), new IllegalStateException("down"), "ok"), null,
                new ExecutionHooks() {
                    @Override
                    public Cancellable delayRetry(Runnable retry, long delayNanos, Scheduler scheduler) {
                        return wait.apply(retry, scheduler);
                    }
                });
        time.runUntilIdle();
        retries[0] = limiter.stats().retries();
        assertThat(limiter.inflight()).isZero();
        return events;
    }

    /**
     * A runner that runs the retry at once, inside its wait: the retry's {@code Retry} event
     * still comes before the retry's attempt starts, and the retry is counted once.
     */
    @Test
    void aRetryTheRunnerRunsInsideItsWaitIsTracedBeforeItsAttempt() {
        long[] retries = {0};
        List<String> events = tracedUnder((retry, scheduler) -> {
            retry.run();
            return null;
        }, retries);
        assertThat(events).containsExactly("TaskStart 1", "Retry 1", "TaskStart 2");
        assertThat(retries[0]).as("retries counted").isEqualTo(1);
    }

    /**
     * A runner whose wait throws: the retry is not made, so neither traced nor counted; one that
     * runs it first and then throws has made it, so it is both, before its attempt.
     */
    @Test
    void aRetryIsTracedAndCountedOnlyIfTheRunnerMadeIt() {
        long[] retries = {0};
        List<String> refused = tracedUnder((retry, scheduler) -> {
            throw new AssertionError("a broken runner");
        }, retries);
        assertThat(refused).as("events, the wait refused").containsExactly("TaskStart 1");
        assertThat(retries[0]).as("retries counted, the wait refused").isZero();

        List<String> ranThenThrew = tracedUnder((retry, scheduler) -> {
            retry.run();
            throw new AssertionError("a broken runner");
        }, retries);
        assertThat(ranThenThrew).as("events, the retry run, then the wait refused")
                .containsExactly("TaskStart 1", "Retry 1", "TaskStart 2");
        assertThat(retries[0]).as("retries counted, the retry run, then the wait refused").isEqualTo(1);
    }

    /** A runner that calls a retry twice: the retry runs once, one attempt on one slot. */
    @Test
    void aRetryCalledTwiceRunsOnce() {
        for (boolean first : new boolean[] {false, true}) {
            Limiter limiter = limiter(2);
            Recording hooks = new Recording() {
                @Override
                public Cancellable delayRetry(Runnable retry, long delayNanos, Scheduler scheduler) {
                    retry.run();
                    retry.run();
                    return null;
                }
            };
            hooks.first = first;
            hooks.limiter = limiter;
            int[] calls = {0};
            Execution<String> e = retryingAtOnce(limiter).start(0, ctx -> {
                calls[0]++;
                return Replies.after(time, Duration.ofMillis(10), ctx.attempt() == 1 ? new IllegalStateException("down") : "ok");
            }, null, hooks);
            time.runUntilIdle();
            assertThat(e.result()).isCompletedWithValue("ok");
            assertThat(calls[0]).as("task calls, retries first: %s", first).isEqualTo(2);
            assertThat(e.attempts()).isEqualTo(2);
            assertThat(hooks.inflightWhenFinished).containsExactly(0);
            assertThat(limiter.inflight()).isZero();
        }
    }
}
