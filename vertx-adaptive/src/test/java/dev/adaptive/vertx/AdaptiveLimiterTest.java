package dev.adaptive.vertx;

import dev.adaptive.LimiterClosedException;
import dev.adaptive.RateLimitedException;
import dev.adaptive.RejectedException;
import dev.adaptive.TaskTimeoutException;
import dev.adaptive.trace.TraceEvent;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@ExtendWith(VertxExtension.class)
class AdaptiveLimiterTest {

    private static AdaptiveOptions fast() {
        return new AdaptiveOptions().setMinDelay(1).setMaxDelay(5).setStatsAddress(null);
    }

    @Test
    void taskRunsAndCompletesOnTheCallersContextEvenWhenItsFutureCompletesElsewhere(Vertx vertx) {
        AdaptiveLimiter limiter = AdaptiveLimiter.create(vertx, fast());
        Context caller = vertx.getOrCreateContext();
        Context elsewhere = vertx.getOrCreateContext();
        assertThat(caller).isNotSameAs(elsewhere);
        AtomicReference<Context> taskRanOn = new AtomicReference<>();
        Promise<Context> completedOn = Promise.promise();
        caller.runOnContext(v -> limiter.<String>execute(() -> {
            taskRanOn.set(Vertx.currentContext());
            Promise<String> p = Promise.promise();
            elsewhere.runOnContext(x -> p.complete("done"));
            return p.future();
        }).onComplete(ar -> {
            assertThat(ar.result()).isEqualTo("done");
            completedOn.complete(Vertx.currentContext());
        }));
        assertThat(Await.result(completedOn.future())).isSameAs(caller);
        assertThat(taskRanOn.get()).isSameAs(caller);
    }

    @Test
    void outsideAnyContextTheLimitersOwnContextIsUsed(Vertx vertx) {
        AdaptiveLimiter limiter = AdaptiveLimiter.create(vertx, fast());
        AtomicReference<Context> taskRanOn = new AtomicReference<>();
        Promise<Context> completedOn = Promise.promise();
        limiter.execute(() -> {
            taskRanOn.set(Vertx.currentContext());
            return Future.succeededFuture(1);
        }).onComplete(ar -> completedOn.complete(Vertx.currentContext()));
        assertThat(Await.result(completedOn.future())).isSameAs(limiter.context());
        assertThat(taskRanOn.get()).isSameAs(limiter.context());
    }

    @Test
    void failuresAreRetriedWithBackoffAndCountAsCongestion(Vertx vertx) {
        AdaptiveLimiter limiter = AdaptiveLimiter.create(vertx, fast());
        AtomicInteger calls = new AtomicInteger();
        String r = Await.result(limiter.execute(() -> calls.incrementAndGet() <= 2
                ? Future.failedFuture(new IllegalStateException("flaky " + calls.get()))
                : Future.succeededFuture("ok")));
        assertThat(r).isEqualTo("ok");
        assertThat(calls).hasValue(3);
        assertThat(limiter.limiter().stats().congestionEvents()).isEqualTo(2);
        assertThat(limiter.limiter().inflight()).isZero();
    }

    @Test
    void theLastFailureIsReportedOnceRetriesRunOut(Vertx vertx) {
        AdaptiveLimiter limiter = AdaptiveLimiter.create(vertx, fast().setRetries(2));
        AtomicInteger calls = new AtomicInteger();
        Throwable t = Await.failure(limiter.execute(
                () -> Future.failedFuture(new IllegalStateException("attempt " + calls.incrementAndGet()))));
        assertThat(t).isInstanceOf(IllegalStateException.class).hasMessage("attempt 3");
        assertThat(calls).hasValue(3);
    }

    @Test
    void aRateLimitPausesEveryCallUntilTheRetryAfterAndIsRetriedWithoutConsumingRetries(Vertx vertx) {
        Promise<Void> pauseOpened = Promise.promise();
        AdaptiveLimiter limiter = AdaptiveLimiter.builder(vertx, fast().setRetries(0))
                .traceListener(e -> {
                    if (e instanceof TraceEvent.RatePause) {
                        pauseOpened.tryComplete();
                    }
                }).build();
        long retryAfterNanos = Duration.ofMillis(300).toNanos();
        AtomicLong announcedAt = new AtomicLong();
        ConcurrentLinkedQueue<Long> starts = new ConcurrentLinkedQueue<>();
        AtomicInteger calls = new AtomicInteger();
        Future<String> first = limiter.execute(() -> {
            if (calls.incrementAndGet() == 1) {
                announcedAt.set(System.nanoTime());
                return Future.failedFuture(new RateLimitedException(Duration.ofMillis(300)));
            }
            starts.add(System.nanoTime());
            return Future.succeededFuture("first");
        });
        Await.result(pauseOpened.future());
        List<Future<Integer>> others = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            int n = i;
            others.add(limiter.execute(() -> {
                starts.add(System.nanoTime());
                return Future.succeededFuture(n);
            }));
        }
        assertThat(Await.result(first)).isEqualTo("first");
        for (Future<Integer> f : others) {
            Await.result(f);
        }
        assertThat(starts).hasSize(6).allSatisfy(s -> assertThat(s - announcedAt.get())
                .as("no attempt inside the announced window").isGreaterThanOrEqualTo(retryAfterNanos));
        assertThat(calls).as("retried although retries = 0: the rate-limit budget is separate").hasValue(2);
        assertThat(limiter.limiter().stats().rateLimitEvents()).isEqualTo(1);
    }

    @Test
    void aTaskTimeoutFiresTheCancellationCountsAsADropAndIsRetried(Vertx vertx) {
        AdaptiveLimiter limiter = AdaptiveLimiter.create(vertx, fast().setTaskTimeout(50).setRetries(1));
        AtomicInteger cancelled = new AtomicInteger();
        AtomicInteger attempts = new AtomicInteger();
        Throwable t = Await.failure(limiter.<String>executeWithContext(ctx -> {
            attempts.incrementAndGet();
            ctx.cancellation().onCancel(cancelled::incrementAndGet);
            return Promise.<String>promise().future(); // never completes
        }));
        assertThat(t).isInstanceOf(TaskTimeoutException.class);
        assertThat(attempts).hasValue(2);
        assertThat(cancelled).hasValue(2);
        assertThat(limiter.limiter().stats().congestionEvents()).isEqualTo(2);
        assertThat(limiter.limiter().inflight()).isZero();
    }

    @Test
    void callsBeyondMaxQueueSizeAreRejected(Vertx vertx) {
        AdaptiveLimiter limiter = AdaptiveLimiter.create(vertx,
                fast().setAlgorithm("fixed").setMaxLimit(1).setMaxQueueSize(1));
        Promise<String> hold = Promise.promise();
        Future<String> running = limiter.execute(hold::future);
        Future<String> queued = limiter.execute(() -> Future.succeededFuture("queued"));
        Throwable rejected = Await.failure(limiter.execute(() -> Future.succeededFuture("rejected")));
        assertThat(rejected).isInstanceOf(RejectedException.class).hasMessageContaining("maxQueueSize=1");
        hold.complete("running");
        assertThat(Await.result(running)).isEqualTo("running");
        assertThat(Await.result(queued)).isEqualTo("queued");
    }

    @Test
    void closeFailsEveryPendingCallWithAClearErrorAndRefusesNewOnes(Vertx vertx) {
        AdaptiveLimiter limiter = AdaptiveLimiter.create(vertx,
                fast().setName("billing").setAlgorithm("fixed").setMaxLimit(1));
        AtomicInteger cancellations = new AtomicInteger();
        Promise<String> hold = Promise.promise();
        Promise<Void> running = Promise.promise();
        Future<String> inFlight = limiter.<String>executeWithContext(ctx -> {
            ctx.cancellation().onCancel(cancellations::incrementAndGet);
            running.complete();
            return hold.future();
        });
        Future<String> queued = limiter.execute(() -> Future.succeededFuture("never"));
        Await.result(running.future());
        Await.result(limiter.close());
        assertThat(limiter.isClosed()).isTrue();
        assertThat(Await.failure(inFlight)).isInstanceOf(LimiterClosedException.class).hasMessageContaining("billing");
        assertThat(Await.failure(queued)).isInstanceOf(LimiterClosedException.class).hasMessageContaining("billing");
        assertThat(Await.failure(limiter.execute(() -> Future.succeededFuture("late"))))
                .isInstanceOf(LimiterClosedException.class);
        assertThat(cancellations).hasValue(1);
        hold.complete("too late"); // a late answer changes nothing
        assertThat(limiter.limiter().inflight()).isZero();
        assertThat(Await.result(limiter.close())).as("idempotent").isNull();
    }

    @Test
    void aCloseCalledWhileAnotherIsUnderWayCompletesOnlyOnceThatShutdownHasAndRunsNoSecond(Vertx vertx)
            throws InterruptedException {
        String address = "test.stats.close-twice";
        List<String> states = new CopyOnWriteArrayList<>();
        Promise<Void> markerSeen = Promise.promise();
        vertx.eventBus().<JsonObject>consumer(address, m -> {
            if (m.body().containsKey("marker")) {
                markerSeen.tryComplete();
            } else {
                states.add(m.body().getString("state"));
            }
        }).completion().toCompletionStage().toCompletableFuture().join();
        AdaptiveLimiter limiter = AdaptiveLimiter.create(vertx, fast().setName("twice").setStatsAddress(address)
                .setStatsInterval(0).setStatsOnChange(false));
        // The first close ends the in-flight call on the call's context, and completes once it has
        // ended there: its cancel callback holds that shutdown open while the second close is called.
        CountDownLatch inShutdown = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Promise<Void> running = Promise.promise();
        Future<String> inFlight = limiter.<String>executeWithContext(ctx -> {
            ctx.cancellation().onCancel(() -> {
                inShutdown.countDown();
                try {
                    release.await(Await.TIMEOUT_SECONDS, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            running.complete();
            return Promise.<String>promise().future();
        });
        Await.result(running.future());
        CompletableFuture<Future<Void>> firstClose = new CompletableFuture<>();
        Thread closer = new Thread(() -> firstClose.complete(limiter.close()), "first-closer");
        closer.start();
        assertThat(inShutdown.await(Await.TIMEOUT_SECONDS, TimeUnit.SECONDS)).as("first close under way").isTrue();

        Future<Void> secondClose = limiter.close();

        assertThat(limiter.isClosed()).isTrue();
        assertThat(secondClose.isComplete()).as("completed before the first close's shutdown had").isFalse();
        release.countDown();
        assertThat(Await.result(secondClose)).isNull();
        assertThat(Await.result(firstClose.join())).isNull();
        closer.join(TimeUnit.SECONDS.toMillis(Await.TIMEOUT_SECONDS));
        assertThat(Await.failure(inFlight)).isInstanceOf(LimiterClosedException.class);
        // Every final message a shutdown sends goes out on the limiter's context before this
        // marker, from the same context to the same consumer: once it is in, all of them are.
        limiter.context().runOnContext(v -> vertx.eventBus().publish(address, new JsonObject().put("marker", true)));
        Await.result(markerSeen.future());
        assertThat(states).as("one shutdown, one final stats message").containsExactly("ABORTED");
        assertThat(Await.result(limiter.close())).as("a later close").isNull();
    }

    @Test
    void statsAreJson(Vertx vertx) {
        AdaptiveLimiter limiter = AdaptiveLimiter.create(vertx, fast().setName("stats"));
        Await.result(limiter.execute(() -> Future.succeededFuture(1)));
        JsonObject s = limiter.stats();
        assertThat(s.getString("name")).isEqualTo("stats");
        assertThat(s.getInteger("limit")).isEqualTo(5);
        assertThat(s.getInteger("inflight")).isZero();
        assertThat(s.getString("state")).isEqualTo("RUNNING");
        assertThat(s.getString("algorithm")).isNotBlank();
        assertThat(s.getBoolean("ratePaused")).isFalse();
        assertThat(s.getBoolean("outage")).isFalse();
        assertThat(s.getLong("outages")).isZero();
        assertThat(s.getJsonObject("metrics")).isNotNull();
        assertThat(s.fieldNames()).contains("localLimit", "waiting", "maxLimitReached", "congestionEvents",
                "rateLimitEvents", "pausedForMs", "listenerFailures");
        assertThat(new JsonObject(s.encode())).isEqualTo(s);
    }

    @Test
    void statsArePublishedPeriodically(Vertx vertx) {
        Promise<List<JsonObject>> got = Promise.promise();
        List<JsonObject> received = new ArrayList<>();
        vertx.eventBus().<JsonObject>consumer("test.stats.periodic", m -> {
            received.add(m.body());
            if (received.size() == 3) {
                got.tryComplete(List.copyOf(received));
            }
        }).completion().toCompletionStage().toCompletableFuture().join();
        AdaptiveLimiter.create(vertx, new AdaptiveOptions().setName("periodic")
                .setStatsAddress("test.stats.periodic").setStatsInterval(20).setStatsOnChange(false));
        assertThat(Await.result(got.future())).allSatisfy(j -> assertThat(j.getString("name")).isEqualTo("periodic"));
    }

    @Test
    void statsArePublishedWhenARetryAfterPauseOpensAndOnClose(Vertx vertx) {
        Promise<JsonObject> paused = Promise.promise();
        Promise<JsonObject> closed = Promise.promise();
        vertx.eventBus().<JsonObject>consumer("test.stats.change", m -> {
            if (m.body().getBoolean("ratePaused")) {
                paused.tryComplete(m.body());
            }
            if ("ABORTED".equals(m.body().getString("state"))) {
                closed.tryComplete(m.body());
            }
        }).completion().toCompletionStage().toCompletableFuture().join();
        AdaptiveLimiter limiter = AdaptiveLimiter.create(vertx, fast().setRetries(0).setMaxRateLimitRetries(0)
                .setStatsAddress("test.stats.change").setStatsInterval(0));
        Await.failure(limiter.execute(() -> Future.failedFuture(new RateLimitedException(Duration.ofSeconds(5)))));
        JsonObject p = Await.result(paused.future());
        assertThat(p.getLong("pausedForMs")).isPositive().isLessThanOrEqualTo(5_000);
        assertThat(p.getLong("rateLimitEvents")).isEqualTo(1);
        limiter.close();
        assertThat(Await.result(closed.future()).getString("name")).isEqualTo("adaptive");
    }

    @Test
    void optionsThatDoNotFitTogetherFailAtCreationNamingTheOption(Vertx vertx) {
        assertThatThrownBy(() -> AdaptiveLimiter.create(vertx, new AdaptiveOptions().setMinLimit(10).setMaxLimit(5)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxLimit").hasMessageContaining("5");
        assertThatThrownBy(() -> AdaptiveLimiter.create(vertx, new AdaptiveOptions().setMinDelay(1_000).setMaxDelay(10)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxDelay");
        assertThatThrownBy(() -> AdaptiveLimiter.create(vertx, new AdaptiveOptions().setInitialLimit(50).setMaxLimit(10)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("initialLimit").hasMessageContaining("50");
    }
}
