package dev.adaptive;

import dev.adaptive.gen.Gen;
import dev.adaptive.gen.Property;
import dev.adaptive.limit.Aimd;
import dev.adaptive.limit.FixedLimit;
import dev.adaptive.limit.Gradient2;
import dev.adaptive.limit.Limit;
import dev.adaptive.limit.Vegas;
import dev.adaptive.retry.RetryPolicy;
import dev.adaptive.spi.Execution;
import dev.adaptive.time.VirtualTime;
import dev.adaptive.trace.TraceEvent;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The limiter and executor (the engine the Camel and Vert.x faces run on) under random work and a
 * random lifecycle in virtual time: pause, resume, stop, abort, out-of-band pauses of hostile
 * lengths, ceilings, execution cancellations, hanging attempts reclaimed by the task timeout, and
 * acquisitions that time out. Afterwards every execution ended exactly once, nothing is in flight
 * or waiting, the limit stayed in bounds, no attempt started inside an open Retry-After pause,
 * and no pause outlasted {@code maxRetryAfter}.
 */
class ExecutorLifecycleProperties {

    private static final Duration MAX_RETRY_AFTER = Duration.ofSeconds(3);

    @Test
    void everyExecutionEndsOnceWhateverTheLifecycle() {
        Property.forAll(60, Gen.longs(), ExecutorLifecycleProperties::check);
    }

    /** Seeds kept as regression cases. */
    @Test
    void regressionSeeds() {
        for (long seed : new long[] {0L, 3L, -11L, Long.MAX_VALUE}) {
            check(seed);
        }
    }

    private static void check(long seed) {
        Random rnd = new Random(seed);
        VirtualTime time = new VirtualTime();
        List<TraceEvent> events = Collections.synchronizedList(new ArrayList<>());
        int min = 1 + rnd.nextInt(3);
        int max = min + rnd.nextInt(8);
        Limiter.Builder lb = Limiter.builder().time(time).limit(algorithm(rnd, min, max))
                .maxRetryAfter(MAX_RETRY_AFTER).traceListener(events::add);
        if (rnd.nextBoolean()) {
            lb.maxQueueSize(1 + rnd.nextInt(40));
        }
        if (rnd.nextBoolean()) {
            lb.waitTimeout(Duration.ofMillis(1 + rnd.nextInt(3000)));
        }
        Limiter limiter = lb.build();
        AdaptiveExecutor executor = AdaptiveExecutor.builder(limiter)
                .retryPolicy(RetryPolicy.builder().retries(rnd.nextInt(3)).maxRateLimitRetries(rnd.nextInt(4))
                        .minDelay(Duration.ofMillis(10)).maxDelay(Duration.ofMillis(500)).jitter(0.5)
                        .maxRetryAfter(MAX_RETRY_AFTER).random(rnd::nextDouble).build())
                .taskTimeout(Duration.ofMillis(50 + rnd.nextInt(500)))
                .build();

        int n = 1 + rnd.nextInt(150);
        List<Execution<Object>> executions = Collections.synchronizedList(new ArrayList<>());
        List<AtomicInteger> completions = Collections.synchronizedList(new ArrayList<>());
        for (int i = 0; i < n; i++) {
            long index = i;
            Random own = new Random(rnd.nextLong());
            time.schedule(() -> {
                Execution<Object> e = executor.start(index, ctx -> attempt(time, own), null);
                AtomicInteger c = new AtomicInteger();
                e.result().whenComplete((v, err) -> c.incrementAndGet());
                executions.add(e);
                completions.add(c);
            }, Duration.ofMillis(rnd.nextInt(5000)));
        }
        int ops = rnd.nextInt(12);
        for (int i = 0; i < ops; i++) {
            Duration at = Duration.ofMillis(rnd.nextInt(6000));
            int op = rnd.nextInt(100);
            Runnable action;
            if (op < 30) {
                long length = rnd.nextInt(2000);
                action = () -> {
                    limiter.pause();
                    time.schedule(limiter::resume, Duration.ofMillis(length));
                };
            } else if (op < 45) {
                // Hostile out-of-band pauses: huge, negative, zero; all must be capped or ignored.
                Duration d = switch (rnd.nextInt(4)) {
                    case 0 -> Duration.ofSeconds(Long.MAX_VALUE);
                    case 1 -> Duration.ofMillis(-rnd.nextInt(1000));
                    case 2 -> Duration.ZERO;
                    default -> Duration.ofMillis(rnd.nextInt(10_000));
                };
                action = () -> limiter.pauseFor(d);
            } else if (op < 55) {
                long until = rnd.nextBoolean() ? Long.MAX_VALUE : Long.MIN_VALUE;
                action = () -> limiter.pauseUntil(until);
            } else if (op < 70) {
                int c = rnd.nextBoolean() ? 1 + rnd.nextInt(max + 2) : Integer.MAX_VALUE;
                action = () -> limiter.ceiling(c);
            } else if (op < 85) {
                action = () -> {
                    synchronized (executions) {
                        if (!executions.isEmpty()) {
                            executions.get(rnd.nextInt(executions.size())).cancel(new IllegalStateException("cancelled"));
                        }
                    }
                };
            } else if (op < 93) {
                action = limiter::stop;
            } else {
                action = limiter::abort;
            }
            time.schedule(action, at);
        }
        time.runUntilIdle();
        limiter.resume();
        time.runUntilIdle();

        assertThat(time.uncaught()).isEmpty();
        assertThat(executions).hasSize(n);
        for (int i = 0; i < n; i++) {
            assertThat(executions.get(i).result()).as("execution %s ended", i).isDone();
            assertThat(completions.get(i)).hasValue(1);
            Throwable cause = cause(executions.get(i).result());
            if (executions.get(i).result().isCompletedExceptionally()) {
                // Every failure names its cause; none is an engine bug surfacing as an NPE or the like.
                assertThat(cause).isInstanceOfAny(IllegalStateException.class, RateLimitedException.class,
                        TaskTimeoutException.class, LimiterClosedException.class, RejectedException.class,
                        AcquireTimeoutException.class);
            }
        }
        assertThat(limiter.inflight()).as("in flight at idle").isZero();
        assertThat(limiter.waiting()).as("waiting at idle").isZero();
        assertThat(limiter.limit()).isBetween(1, max);
        assertThat(limiter.localLimit()).isBetween(min, max);
        assertThat(limiter.stats().maxLimitReached()).isLessThanOrEqualTo(max);

        List<TraceEvent.RatePause> pauses = of(events, TraceEvent.RatePause.class);
        for (TraceEvent.TaskStart s : of(events, TraceEvent.TaskStart.class)) {
            assertThat(s.inflight()).isLessThanOrEqualTo(max);
            for (TraceEvent.RatePause p : pauses) {
                assertThat(s.timeNanos() > p.timeNanos() && s.timeNanos() < p.untilNanos())
                        .as("start %s inside pause %s", s, p).isFalse();
            }
        }
        pauses.forEach(p -> assertThat(p.untilNanos() - p.timeNanos()).isBetween(0L, MAX_RETRY_AFTER.toNanos()));
        assertThat(of(events, TraceEvent.ConcurrencyChange.class))
                .allSatisfy(c -> assertThat(c.to()).isBetween(1, max));
        Property.collect("state", limiter.state());
    }

    private static CompletableFuture<Object> attempt(VirtualTime time, Random own) {
        CompletableFuture<Object> f = new CompletableFuture<>();
        int roll = own.nextInt(100);
        if (roll < 10) {
            return f; // hangs: only the task timeout (or a cancellation) frees its slot
        }
        long latency = roll < 20 ? 500 + own.nextInt(2000) : 1 + own.nextInt(50);
        time.schedule(() -> {
            if (roll < 35) {
                f.completeExceptionally(new IllegalStateException("500"));
            } else if (roll < 50) {
                f.completeExceptionally(new RateLimitedException(Duration.ofMillis(own.nextInt(20_000))));
            } else {
                f.complete(roll);
            }
        }, Duration.ofMillis(latency));
        return f;
    }

    private static Limit algorithm(Random rnd, int min, int max) {
        int initial = min + rnd.nextInt(max - min + 1);
        return switch (rnd.nextInt(4)) {
            case 0 -> Vegas.builder().initialLimit(initial).minLimit(min).maxLimit(max).build();
            case 1 -> Aimd.builder().initialLimit(initial).minLimit(min).maxLimit(max).build();
            case 2 -> Gradient2.builder().initialLimit(initial).minLimit(min).maxLimit(max).build();
            default -> min == max ? FixedLimit.of(max) : Vegas.builder().initialLimit(initial).minLimit(min).maxLimit(max).build();
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
