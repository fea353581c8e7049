package dev.adaptive.queue;

import dev.adaptive.AsyncTask;
import dev.adaptive.TaskContext;
import dev.adaptive.time.VirtualTime;
import dev.adaptive.trace.TraceEvent;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;

/** Virtual time, a queue builder wired to it, and tasks that record when they start. */
class QueueFixture {

    /** One attempt's start. */
    record Start(long atNanos, long index, int attempt) {
    }

    /** One applied rate change. */
    record Change(int from, int to, long atNanos) {
    }

    final VirtualTime time = new VirtualTime();
    final List<Start> starts = new ArrayList<>();
    final List<Change> changes = new ArrayList<>();
    final List<TraceEvent> events = new ArrayList<>();
    final List<TaskContext> contexts = new ArrayList<>();

    ThrottledQueueBuilder builder(int minRate, Duration interval) {
        return ThrottledQueue.builder().minRate(minRate).interval(interval).time(time)
                .onRateChange((from, to, at) -> changes.add(new Change(from, to, at)))
                .traceListener(events::add);
    }

    /**
     * A task that answers {@code latency} after it starts. Per attempt (the last repeats): a
     * Throwable fails the stage, a {@link Function} of the context computes the reply, anything
     * else is the value; {@link #HANG} never answers.
     */
    AsyncTask<Object> task(Duration latency, Object... replies) {
        AtomicInteger calls = new AtomicInteger();
        return ctx -> {
            starts.add(new Start(time.nanoTime(), ctx.index(), ctx.attempt()));
            contexts.add(ctx);
            Object reply = replies.length == 0 ? "ok" : replies[Math.min(calls.getAndIncrement(), replies.length - 1)];
            CompletableFuture<Object> f = new CompletableFuture<>();
            if (reply == HANG) {
                return f;
            }
            Runnable answer = () -> {
                Object r = reply instanceof Function<?, ?> fn ? apply(fn, ctx) : reply;
                if (r instanceof Throwable t) {
                    f.completeExceptionally(t);
                } else {
                    f.complete(r);
                }
            };
            if (latency.isZero()) {
                answer.run();
            } else {
                time.schedule(answer, latency);
            }
            return f;
        };
    }

    @SuppressWarnings("unchecked")
    private static Object apply(Function<?, ?> fn, TaskContext ctx) {
        return ((Function<TaskContext, Object>) fn).apply(ctx);
    }

    /** A reply that never comes. */
    static final Object HANG = new Object() {
        @Override
        public String toString() {
            return "HANG";
        }
    };

    static long ms(double millis) {
        return Math.round(millis * 1_000_000);
    }

    static Duration millis(long millis) {
        return Duration.ofMillis(millis);
    }

    List<Long> startTimes() {
        return starts.stream().map(Start::atNanos).toList();
    }

    /** @return how many attempts started in each interval [k, k+1) of {@code interval}, for {@code n} intervals */
    List<Integer> startsPerInterval(Duration interval, int n) {
        List<Integer> counts = new ArrayList<>();
        long len = interval.toNanos();
        for (int k = 0; k < n; k++) {
            long from = k * len;
            long to = from + len;
            counts.add((int) starts.stream().filter(s -> s.atNanos() >= from && s.atNanos() < to).count());
        }
        return counts;
    }

    void advanceTo(double millis) {
        time.advanceTo(ms(millis));
    }

    void assertNoUncaught() {
        assertThat(time.uncaught()).isEmpty();
    }
}
