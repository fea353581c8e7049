package dev.adaptive.pool;

import dev.adaptive.TaskContext;
import dev.adaptive.retry.RetryPolicy;
import dev.adaptive.time.VirtualTime;
import dev.adaptive.trace.TraceEvent;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Shared pieces of the virtual-time pool tests: a virtual clock, a trace recorder, and a
 * processor that answers each attempt after a scripted latency with a scripted value or error.
 */
final class VirtualPoolHarness {

    final VirtualTime time = new VirtualTime();
    final List<TraceEvent> events = Collections.synchronizedList(new ArrayList<>());
    final List<Start> starts = Collections.synchronizedList(new ArrayList<>());
    final List<TaskContext> contexts = Collections.synchronizedList(new ArrayList<>());

    /** One attempt as the processor saw it. */
    record Start(Object item, long index, int attempt, long atNanos) {
    }

    /**
     * What an attempt does: answer {@code value} or fail with {@code error} after {@code latency};
     * {@code latency == null} never answers.
     */
    record Reply(Duration latency, Object value, Throwable error) {
        static Reply ok(long millis, Object value) {
            return new Reply(Duration.ofMillis(millis), value, null);
        }

        static Reply fail(long millis, Throwable error) {
            return new Reply(Duration.ofMillis(millis), null, error);
        }

        static Reply hang() {
            return new Reply(null, null, null);
        }
    }

    static long ms(long millis) {
        return Duration.ofMillis(millis).toNanos();
    }

    static RetryPolicy.Builder noJitter() {
        return RetryPolicy.builder().exponential().minDelay(Duration.ofMillis(100)).maxDelay(Duration.ofSeconds(30))
                .noJitter();
    }

    <T> ItemPool<T> traced(ItemPool<T> pool) {
        return pool.withVirtualTime(time).withTraceListener(events::add);
    }

    /** A processor driven by {@code script(item, attempt)}. */
    <T> ItemProcessor<T, Object> scripted(BiFunction<T, Integer, Reply> script) {
        return (item, ctx) -> {
            starts.add(new Start(item, ctx.index(), ctx.attempt(), time.nanoTime()));
            contexts.add(ctx);
            Reply r = script.apply(item, ctx.attempt());
            CompletableFuture<Object> f = new CompletableFuture<>();
            if (r.latency() == null) {
                return f;
            }
            time.schedule(() -> {
                if (r.error() != null) {
                    f.completeExceptionally(r.error());
                } else {
                    f.complete(r.value());
                }
            }, r.latency());
            return f;
        };
    }

    /** Runs virtual time until nothing is left and returns the run's outcome. */
    <V> V finish(PoolRun<V> run) {
        time.runUntilIdle();
        assertThat(time.uncaught()).as("failures inside scheduled tasks").isEmpty();
        assertThat(run.isDone()).as("run finished").isTrue();
        assertThat(run.limiter().inflight()).as("in flight at idle").isZero();
        return run.join();
    }

    List<Long> startTimesOf(Object item) {
        synchronized (starts) {
            return starts.stream().filter(s -> s.item().equals(item)).map(Start::atNanos).toList();
        }
    }

    <E extends TraceEvent> List<E> eventsOf(Class<E> type) {
        synchronized (events) {
            return events.stream().filter(type::isInstance).map(type::cast).toList();
        }
    }
}
