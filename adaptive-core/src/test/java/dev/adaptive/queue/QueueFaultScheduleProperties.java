package dev.adaptive.queue;

import dev.adaptive.AsyncTask;
import dev.adaptive.RateLimitedException;
import dev.adaptive.RejectedException;
import dev.adaptive.TaskTimeoutException;
import dev.adaptive.gen.Gen;
import dev.adaptive.gen.Property;
import dev.adaptive.limit.Vegas;
import dev.adaptive.retry.Backoff;
import dev.adaptive.retry.RetryBudget;
import dev.adaptive.time.VirtualTime;
import dev.adaptive.trace.TraceEvent;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The ThrottledQueue under a random fault schedule in virtual time: latency spikes, error bursts,
 * 429 storms with random and hostile raw {@code Retry-After} headers, hung tasks ended by a task
 * timeout (and slow ones that answer after it), callers cancelling their futures, and
 * pause/resume/stop/abort at random instants. After each run every accepted task
 * ended exactly once, nothing is active, the rate stayed in bounds, nothing started inside an
 * open Retry-After hold, and the state's counters agree with the trace, a retry budget that
 * refuses included.
 */
class QueueFaultScheduleProperties {

    private static final String[] HOSTILE_RETRY_AFTER = {
        "0", "2", "-5", "1.5", "99999999999999999999", "", "later", "Thu, 01 Jan 1970 00:00:01 GMT",
        "Fri, 31 Dec 9999 23:59:59 GMT", "Thursday, 01-Jan-70 00:00:03 GMT", "Thu Jan  1 00:00:02 1970", "1",
    };
    private static final Clock SERVER_CLOCK = Clock.fixed(Instant.EPOCH, ZoneOffset.UTC);
    private static final Duration MAX_RETRY_AFTER = Duration.ofSeconds(2);
    /** A phase in which half the attempts never answer at all. */
    private static final int HANG_PHASE = 4;

    @Test
    void invariantsHoldUnderRandomFaultsAndLifecycle() {
        Property.forAll(60, Gen.longs(), QueueFaultScheduleProperties::check);
    }

    /** Seeds kept as regression cases. */
    @Test
    void regressionSeeds() {
        for (long seed : new long[] {0L, 7L, -3L, Long.MIN_VALUE, Long.MAX_VALUE, -3481123478468951741L}) {
            check(seed);
        }
    }

    private static void check(long seed) {
        Random rnd = new Random(seed);
        VirtualTime time = new VirtualTime();
        List<TraceEvent> events = Collections.synchronizedList(new ArrayList<>());
        int minRate = 1 + rnd.nextInt(5);
        int maxRate = minRate + rnd.nextInt(8);
        List<Integer> rates = new ArrayList<>();
        ThrottledQueueBuilder b = ThrottledQueue.builder().time(time).traceListener(events::add)
                .minRate(minRate).maxRate(maxRate).interval(Duration.ofMillis(100 + rnd.nextInt(900)))
                .evenlySpaced(rnd.nextBoolean()).errorsPerInterval(1 + rnd.nextInt(4)).backOff(rnd.nextBoolean())
                .retries(rnd.nextInt(4)).maxRateLimitRetries(rnd.nextInt(5))
                .retryBackoff(Backoff.exponential(Duration.ofMillis(20), Duration.ofSeconds(1)).withJitter(0.5))
                .random(new Random(seed ^ 0x5DEECE66DL)::nextDouble)
                .maxRetryAfter(MAX_RETRY_AFTER)
                .onRateChange((from, to, at) -> rates.add(to))
                .adjustmentTiming(rnd.nextBoolean() ? AdjustmentTiming.INTERVAL : AdjustmentTiming.SETTLED)
                .rateStrategy(rnd.nextBoolean() ? RateStrategy.linear() : RateStrategy.aimd());
        int concurrencyMax = 1 + rnd.nextInt(6);
        int bounded = rnd.nextInt(3);
        switch (bounded) {
            case 0 -> b.concurrency(concurrencyMax);
            case 1 -> b.concurrencyLimit(Vegas.builder().initialLimit(1).minLimit(1).maxLimit(concurrencyMax).build());
            default -> { }
        }
        if (rnd.nextBoolean()) {
            b.maxQueueSize(5 + rnd.nextInt(30));
        }
        long[] phaseEnds = new long[1 + rnd.nextInt(5)];
        int[] phaseKinds = new int[phaseEnds.length];
        long t = 0;
        for (int i = 0; i < phaseEnds.length; i++) {
            t += Duration.ofMillis(100 + rnd.nextInt(3000)).toNanos();
            phaseEnds[i] = t;
            phaseKinds[i] = rnd.nextInt(4);
        }
        // Drawn apart from rnd, so that the regression seeds keep the schedules they had.
        Random hangs = new Random(~seed);
        if (hangs.nextBoolean()) {
            b.taskTimeout(Duration.ofMillis(50 + hangs.nextInt(1500)));
            for (int i = 0; i < phaseKinds.length; i++) {
                if (hangs.nextInt(3) == 0) {
                    phaseKinds[i] = HANG_PHASE; // only with a timeout: nothing else would end them
                }
            }
        }
        // Drawn apart from rnd too. The default budget never refuses a schedule this small, so
        // half the runs get one that does: a retry it refuses at the end of its backoff waits
        // another and asks again, the same retry, counted and traced once.
        Random budgets = new Random(seed * 31 + 17);
        if (budgets.nextBoolean()) {
            b.retryBudget(new RetryBudget(budgets.nextInt(3) / 10.0, budgets.nextInt(3),
                    Duration.ofMillis(200 + budgets.nextInt(5000))));
        }

        ThrottledQueue q = b.build();
        List<CompletableFuture<Object>> accepted = new ArrayList<>();
        List<AtomicInteger> completions = new ArrayList<>();
        boolean mayAbort = rnd.nextInt(4) == 0;
        for (int step = 0; step < 250; step++) {
            int op = rnd.nextInt(100);
            if (op < 50) {
                CompletableFuture<Object> f = q.submit(task(time, rnd.nextLong(), phaseEnds, phaseKinds));
                if (f.isCompletedExceptionally() && cause(f) instanceof RejectedException) {
                    continue;
                }
                AtomicInteger c = new AtomicInteger();
                f.whenComplete((v, e) -> c.incrementAndGet());
                accepted.add(f);
                completions.add(c);
            } else if (op < 54 && !accepted.isEmpty()) {
                accepted.get(rnd.nextInt(accepted.size())).cancel(false);
            } else if (op < 58) {
                q.pause();
            } else if (op < 64) {
                q.resume();
            } else if (op < 67) {
                q.stop();
            } else if (op < 68 && mayAbort) {
                q.abort();
            } else {
                time.advance(Duration.ofMillis(rnd.nextInt(300)));
            }
            QueueState s = q.state();
            assertThat(s.rate()).isBetween(minRate, maxRate);
            if (bounded < 2) {
                assertThat(s.active()).isLessThanOrEqualTo(concurrencyMax);
            }
        }
        q.resume();
        time.runUntilIdle();

        assertThat(time.uncaught()).isEmpty();
        QueueState end = q.state();
        assertThat(end.idle()).as("idle at the end: %s", end).isTrue();
        assertThat(end.active()).isZero();
        assertThat(q.awaitIdle()).isCompleted();
        for (int i = 0; i < accepted.size(); i++) {
            assertThat(accepted.get(i)).isDone();
            assertThat(completions.get(i)).hasValue(1);
        }
        assertThat(rates).allSatisfy(r -> assertThat(r).isBetween(minRate, maxRate));

        List<TraceEvent.TaskStart> starts = of(events, TraceEvent.TaskStart.class);
        List<TraceEvent.RatePause> holds = of(events, TraceEvent.RatePause.class);
        for (TraceEvent.TaskStart s : starts) {
            for (TraceEvent.RatePause p : holds) {
                assertThat(s.timeNanos() > p.timeNanos() && s.timeNanos() < p.untilNanos())
                        .as("start %s inside hold %s", s, p).isFalse();
            }
        }
        holds.forEach(p -> assertThat(p.untilNanos() - p.timeNanos()).isBetween(0L, MAX_RETRY_AFTER.toNanos()));
        if (end.status() != QueueStatus.ABORTED) {
            assertThat(end.started()).isEqualTo(starts.size()).isEqualTo(end.succeeded() + end.failed());
            assertThat(of(events, TraceEvent.TaskEnd.class)).hasSize((int) end.started());
            assertThat(of(events, TraceEvent.Retry.class)).as("Retry events").hasSize((int) end.retried());
            assertThat(end.retried()).as("retried, the limiter's retries").isEqualTo(q.limiter().stats().retries());
        }
        Property.collect("retries refused", q.limiter().stats().retriesRefused() > 0 ? "some" : "none");
        Property.collect("status", end.status());
        Property.collect("holds", holds.isEmpty() ? "none" : "some");
        boolean timedOut = of(events, TraceEvent.TaskEnd.class).stream()
                .anyMatch(e -> e.error() instanceof TaskTimeoutException);
        Property.collect("task timeouts", timedOut ? "some" : "none");
    }

    /** A task whose answer depends on the phase the downstream is in when the attempt starts. */
    private static AsyncTask<Object> task(VirtualTime time, long seed, long[] phaseEnds, int[] phaseKinds) {
        Random own = new Random(seed);
        return ctx -> {
            long now = time.nanoTime();
            int kind = 0;
            for (int i = 0; i < phaseEnds.length; i++) {
                if (now < phaseEnds[i]) {
                    kind = phaseKinds[i];
                    break;
                }
            }
            CompletableFuture<Object> f = new CompletableFuture<>();
            int k = kind;
            if (k == HANG_PHASE && own.nextBoolean()) {
                return f; // deaf to its cancellation too: only the task timeout ends the attempt
            }
            long latency = k == 1 ? 300 + own.nextInt(2000) : 1 + own.nextInt(60);
            time.schedule(() -> {
                if (ctx.cancellation().isCancelled()) {
                    f.completeExceptionally(ctx.cancellation().reason());
                } else if (k == 2 && own.nextInt(4) > 0) {
                    f.completeExceptionally(new IllegalStateException("503 burst"));
                } else if (k == 3 && own.nextInt(3) > 0) {
                    f.completeExceptionally(own.nextBoolean()
                            ? new RateLimitedException("429", HOSTILE_RETRY_AFTER[own.nextInt(HOSTILE_RETRY_AFTER.length)],
                                    SERVER_CLOCK)
                            : new RateLimitedException(Duration.ofMillis(own.nextInt(10_000))));
                } else {
                    f.complete(ctx.index());
                }
            }, Duration.ofMillis(latency));
            return f;
        };
    }

    private static <E extends TraceEvent> List<E> of(List<TraceEvent> events, Class<E> type) {
        synchronized (events) {
            return events.stream().filter(type::isInstance).map(type::cast).toList();
        }
    }

    private static Throwable cause(CompletableFuture<Object> f) {
        try {
            f.join();
            return null;
        } catch (CompletionException e) {
            return e.getCause();
        } catch (RuntimeException e) {
            return e;
        }
    }
}
