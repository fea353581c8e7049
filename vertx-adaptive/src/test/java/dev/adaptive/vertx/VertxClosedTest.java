package dev.adaptive.vertx;

import dev.adaptive.LimiterClosedException;
import dev.adaptive.RateLimitedException;
import dev.adaptive.testing.Until;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

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
            soft.assertThat(thrownByProcess).as("what process() threw").isNull();
            soft.assertThat(thrownByStream).as("what stream() threw").isNull();
            for (AtomicReference<Future<?>> run : List.of(collected, streamed)) {
                Future<?> f = run.get();
                soft.assertThat(f != null && f.failed()).as("its future, failed").isTrue();
                soft.assertThat(f == null ? null : f.cause()).as("its cause")
                        .isInstanceOf(RejectedExecutionException.class);
                AtomicReference<Throwable> heard = new AtomicReference<>();
                Throwable thrownByHandler = catchThrowable(() -> {
                    if (f != null) {
                        f.onComplete(ar -> heard.set(ar.cause()));
                    }
                });
                soft.assertThat(thrownByHandler).as("what onComplete() threw").isNull();
                soft.assertThat(heard.get()).as("what its handler heard").isSameAs(f == null ? null : f.cause());
            }
            soft.assertThat(processed).as("items processed").hasValue(0);
        });
    }
}
