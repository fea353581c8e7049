package dev.adaptive.vertx;

import dev.adaptive.LimiterClosedException;
import dev.adaptive.limit.Outcome;
import dev.adaptive.OutcomeClassifier;
import dev.adaptive.trace.TraceEvent;
import dev.adaptive.vertx.impl.AdaptiveLimiterImpl;
import dev.adaptive.pool.AdaptiveResult;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.streams.ReadStream;
import io.vertx.junit5.VertxExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Vert.x face with callbacks that misbehave as a hostile environment's would: a task
 * failing with a cause chain that loops ends (it pinned the event loop), a classifier asked
 * first that throws an {@code Error} falls back to the limiter's own, and a close with tens of
 * thousands of calls queued fails every one of them with the close's error.
 */
@ExtendWith(VertxExtension.class)
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ThrowingCallbacksTest {

    private static AdaptiveOptions options() {
        return new AdaptiveOptions().setRetries(0).setMinDelay(1).setMaxDelay(5).setStatsAddress(null);
    }

    @Test
    void aTaskFailingWithALoopingCauseChainEnds(Vertx vertx) {
        AdaptiveLimiter limiter = AdaptiveLimiter.create(vertx, options());
        RuntimeException a = new RuntimeException("a");
        a.initCause(new IllegalStateException("b", a));
        Throwable failure = Await.failure(limiter.execute(() -> Future.failedFuture(a)));
        assertThat(failure).isSameAs(a);
        assertThat(limiter.limiter().inflight()).isZero();
        assertThat(limiter.limiter().stats().congestionEvents()).isEqualTo(1);
        // The event loop is free: another call runs.
        assertThat(Await.result(limiter.execute(() -> Future.succeededFuture("after")))).isEqualTo("after");
    }

    @Test
    void aFirstClassifierThrowingAnErrorFallsBackToTheLimitersOwn(Vertx vertx) {
        OutcomeClassifier own = (result, error) -> "not about capacity".equals(result) ? Outcome.IGNORED : null;
        List<TraceEvent> events = new CopyOnWriteArrayList<>();
        AdaptiveLimiterImpl limiter = (AdaptiveLimiterImpl) AdaptiveLimiter.builder(vertx, options())
                .classifier(own).traceListener(events::add).build();
        var executor = limiter.executor((result, error) -> {
            throw new AssertionError("first classifier bug");
        });
        String r = Await.result(limiter.execute(executor, ctx -> Future.succeededFuture("not about capacity")));
        assertThat(r).isEqualTo("not about capacity");
        // IGNORED, as the limiter's own classifier says: no sample reached the algorithm.
        assertThat(events).filteredOn(e -> e instanceof TraceEvent.TaskEnd).singleElement()
                .extracting(e -> ((TraceEvent.TaskEnd) e).outcome()).isEqualTo(Outcome.IGNORED);
        assertThat(events).noneMatch(e -> e instanceof TraceEvent.Decision);
    }

    @Test
    void closingWithFortyThousandCallsQueuedFailsEveryOne(Vertx vertx) {
        AdaptiveLimiter limiter = AdaptiveLimiter.create(vertx, options().setAlgorithm("fixed").setMaxLimit(1)
                .setMaxQueueSize(50_000));
        Promise<String> never = Promise.promise();
        limiter.execute(never::future);
        List<Future<String>> queued = new ArrayList<>();
        for (int i = 0; i < 40_000; i++) {
            queued.add(limiter.execute(() -> Future.succeededFuture("ran")));
        }
        assertThat(limiter.limiter().waiting()).isEqualTo(40_000);
        Await.result(limiter.close());
        for (Future<String> f : queued) {
            assertThat(Await.failure(f)).isInstanceOf(LimiterClosedException.class);
        }
        assertThat(limiter.limiter().waiting()).isZero();
    }

    @Test
    void aReadStreamWhoseFetchThrowsEndsTheRunAsAFailedInput(Vertx vertx) {
        AdaptivePool pool = AdaptivePool.create(vertx, options().setAlgorithm("fixed").setMaxLimit(2)
                .setMinLimit(1).setMaxLimit(2));
        ListStream<Integer> items = new ListStream<>(vertx.getOrCreateContext(), List.of(1, 2, 3, 4, 5, 6), false);
        AtomicInteger fetches = new AtomicInteger();
        ReadStream<Integer> breaking = new ReadStream<>() {
            @Override
            public ReadStream<Integer> exceptionHandler(Handler<Throwable> handler) {
                items.exceptionHandler(handler);
                return this;
            }

            @Override
            public ReadStream<Integer> handler(Handler<Integer> handler) {
                items.handler(handler);
                return this;
            }

            @Override
            public ReadStream<Integer> pause() {
                items.pause();
                return this;
            }

            @Override
            public ReadStream<Integer> resume() {
                items.resume();
                return this;
            }

            @Override
            public ReadStream<Integer> fetch(long amount) {
                if (fetches.incrementAndGet() == 4) {
                    throw new StackOverflowError("stream bug");
                }
                items.fetch(amount);
                return this;
            }

            @Override
            public ReadStream<Integer> endHandler(Handler<Void> endHandler) {
                items.endHandler(endHandler);
                return this;
            }
        };
        AdaptiveResult<Integer, Integer> r = Await.result(pool.process(breaking, (item, ctx) -> Future.succeededFuture(item)));
        assertThat(r.results()).containsExactlyInAnyOrder(1, 2, 3);
        assertThat(r.stats().stopCause()).get().extracting(Throwable::getCause).isInstanceOf(StackOverflowError.class);
    }
}
