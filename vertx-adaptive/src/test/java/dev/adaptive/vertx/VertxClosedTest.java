package dev.adaptive.vertx;

import dev.adaptive.LimiterClosedException;
import dev.adaptive.RateLimitedException;
import dev.adaptive.testing.LoopbackPorts;
import dev.adaptive.testing.Until;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.ext.web.client.WebClient;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Closing the Vert.x instance of a limiter that nobody closed: its timers never fire again, so
 * without the limiter closing with it, a call waiting for a retry's backoff, inside a
 * Retry-After pause or for a slot would never end.
 */
class VertxClosedTest {

    @Test
    void closingVertxFailsEveryCallStillWaitingWithTheLimitersCloseError() {
        Vertx vertx = Vertx.vertx();
        AdaptiveLimiter limiter = AdaptiveLimiter.create(vertx, new AdaptiveOptions().setName("inventory")
                .setAlgorithm("fixed").setMaxLimit(2).setRetries(3).setMinDelay(60_000).setMaxDelay(60_000)
                .setRetryBudget(false));
        AtomicInteger attempts = new AtomicInteger();
        // A minute of backoff after its first failure.
        Future<Object> backingOff = limiter.execute(() -> {
            attempts.incrementAndGet();
            return Future.failedFuture(new IllegalStateException("down"));
        });
        // A ten-minute Retry-After: it and every later call wait for it.
        Future<Object> paused = limiter.execute(() -> {
            attempts.incrementAndGet();
            return Future.failedFuture(new RateLimitedException(Duration.ofMinutes(10)));
        });
        Until.met("both first attempts ended", Duration.ofSeconds(30),
                () -> attempts.get() == 2 && limiter.limiter().stats().ratePaused()
                        && limiter.limiter().stats().inflight() == 0);
        int waiting = limiter.limiter().stats().waiting();   // the rate-limited call's retry
        Future<Object> queued = limiter.execute(() -> Promise.promise().future());
        Until.met("the third call is queued", Duration.ofSeconds(30),
                () -> limiter.limiter().stats().waiting() == waiting + 1);

        Await.settled(vertx.close());

        for (Future<Object> call : List.of(backingOff, paused, queued)) {
            assertThat(call.isComplete()).as("ended by the close of its Vert.x").isTrue();
            assertThat(call.cause()).isInstanceOf(LimiterClosedException.class)
                    .hasMessage("adaptive limiter 'inventory' was closed before the call completed");
        }
        assertThat(limiter.isClosed()).isTrue();
    }

    /**
     * A pool's run asked for from outside any context after its Vert.x closed: the run cannot
     * start on the limiter's context, which refuses it, nor complete a future there. Both forms
     * return a future already failed with the refusal, whose handlers run (a future bound to the
     * closed context could not run them), and call the processor for no item.
     */
    @Test
    void aPoolRunAskedForAfterItsVertxClosedReturnsAFailedFutureInsteadOfThrowing() {
        Vertx vertx = Vertx.vertx();
        AdaptivePool pool = AdaptivePool.create(vertx, new AdaptiveOptions().setName("closed")
                .setAlgorithm("fixed").setMaxLimit(2).setStatsAddress(null));
        Await.settled(vertx.close());
        AtomicInteger processed = new AtomicInteger();
        FutureItemProcessor<Integer, Integer> processor = (item, ctx) -> {
            processed.incrementAndGet();
            return Future.succeededFuture(item);
        };

        AtomicReference<Future<?>> collected = new AtomicReference<>();
        Throwable thrownByProcess = catchThrowable(() -> collected.set(pool.process(List.of(1, 2), processor)));
        AtomicReference<Future<?>> streamed = new AtomicReference<>();
        Throwable thrownByStream = catchThrowable(() -> streamed.set(pool.stream(List.of(1, 2), processor, s -> { })));

        SoftAssertions.assertSoftly(soft -> {
            FailedFutures.failsWithoutThrowing(soft, "process()", thrownByProcess, collected.get());
            FailedFutures.failsWithoutThrowing(soft, "stream()", thrownByStream, streamed.get());
            for (AtomicReference<Future<?>> run : List.of(collected, streamed)) {
                Future<?> f = run.get();
                soft.assertThat(f == null ? null : f.cause()).as("its cause")
                        .isInstanceOf(RejectedExecutionException.class);
            }
            soft.assertThat(processed).as("items processed").hasValue(0);
        });
    }

    /**
     * Calls made from outside any context after their Vert.x closed, which closed their limiter:
     * the limiter's context, where their futures would complete, runs nothing any more. Each form
     * (the limiter's two, the event bus's request, the web client's send) returns a future
     * already failed with the limiter's close error, whose handlers run (it is bound to no
     * context); no attempt is made.
     */
    @Test
    void aCallMadeAfterItsVertxClosedReturnsAFutureFailedWithTheCloseErrorInsteadOfThrowing() {
        Vertx vertx = Vertx.vertx();
        AdaptiveLimiter limiter = AdaptiveLimiter.create(vertx, new AdaptiveOptions().setName("closed")
                .setStatsAddress(null));
        AdaptiveEventBus bus = AdaptiveEventBus.create(limiter);
        AdaptiveWebClient web = AdaptiveWebClient.create(WebClient.create(vertx), limiter);
        int port = LoopbackPorts.free(1).get(0);
        Await.settled(vertx.close());
        AtomicInteger attempts = new AtomicInteger();

        Map<String, AtomicReference<Future<?>>> futures = new LinkedHashMap<>();
        Map<String, Throwable> thrown = new LinkedHashMap<>();
        Map<String, Supplier<Future<?>>> calls = new LinkedHashMap<>();
        calls.put("execute()", () -> limiter.execute(() -> {
            attempts.incrementAndGet();
            return Future.succeededFuture("done");
        }));
        calls.put("executeWithContext()", () -> limiter.executeWithContext(ctx -> {
            attempts.incrementAndGet();
            return Future.succeededFuture("done");
        }));
        calls.put("AdaptiveEventBus.request()", () -> bus.request("inventory", "item-1"));
        calls.put("AdaptiveWebClient.send()", () -> web.send(web.get(port, "127.0.0.1", "/items/1"), (request, ctx) -> {
            attempts.incrementAndGet();
            return request.send();
        }));
        calls.forEach((name, call) -> {
            AtomicReference<Future<?>> f = new AtomicReference<>();
            thrown.put(name, catchThrowable(() -> f.set(call.get())));
            futures.put(name, f);
        });

        SoftAssertions.assertSoftly(soft -> {
            futures.forEach((name, f) -> {
                FailedFutures.failsWithoutThrowing(soft, name, thrown.get(name), f.get());
                soft.assertThat(f.get() == null ? null : f.get().cause()).as(name + ": its cause")
                        .isInstanceOf(LimiterClosedException.class)
                        .hasMessage("adaptive limiter 'closed' was closed before the call completed");
            });
            soft.assertThat(attempts).as("attempts made").hasValue(0);
        });
    }

    /**
     * Limiters built on a Vert.x instance already closed, with a stats publication and without:
     * its close hooks have run, so none would close them, and their context runs nothing. Each
     * is built closed, without throwing, and a call fails with its close error, as after a close.
     */
    @Test
    void aLimiterBuiltAfterItsVertxClosedIsClosedAndItsCallsFailWithItsCloseError() {
        Vertx vertx = Vertx.vertx();
        Await.settled(vertx.close());

        SoftAssertions.assertSoftly(soft -> {
            for (String stats : Arrays.asList("late.stats", null)) {
                String name = stats == null ? "late" : "late-published";
                AtomicReference<AdaptiveLimiter> built = new AtomicReference<>();
                Throwable thrownByCreate = catchThrowable(() -> built.set(AdaptiveLimiter.create(vertx,
                        new AdaptiveOptions().setName(name).setStatsAddress(stats))));
                soft.assertThat(thrownByCreate).as(name + ": what create() threw").isNull();
                AdaptiveLimiter limiter = built.get();
                if (limiter == null) {
                    continue;
                }
                soft.assertThat(limiter.isClosed()).as(name + ": closed").isTrue();
                AtomicInteger attempts = new AtomicInteger();
                AtomicReference<Future<?>> call = new AtomicReference<>();
                Throwable thrown = catchThrowable(() -> call.set(limiter.execute(() -> {
                    attempts.incrementAndGet();
                    return Future.succeededFuture("done");
                })));
                FailedFutures.failsWithoutThrowing(soft, name + ": execute()", thrown, call.get());
                soft.assertThat(call.get() == null ? null : call.get().cause()).as(name + ": its cause")
                        .isInstanceOf(LimiterClosedException.class)
                        .hasMessage("adaptive limiter '" + name + "' was closed before the call completed");
                soft.assertThat(attempts).as(name + ": attempts made").hasValue(0);
            }
        });
    }
}
