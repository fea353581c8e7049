package dev.adaptive.vertx;

import dev.adaptive.Limiter;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.ThreadingModel;
import io.vertx.core.VerticleBase;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonObject;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * A limiter whose own context runs nothing any more: created in {@code start()} of a worker
 * verticle with a worker pool of its own, and left open when the verticle was undeployed, which
 * shut that pool down (vertx.md says to close such a limiter in {@code stop()}; this is what
 * happens when nobody did). The context refuses every task; nothing the limiter offers throws
 * for it.
 */
class LimiterContextGoneTest {

    private final Vertx vertx = Vertx.vertx();

    @AfterEach
    void closeVertx() {
        Await.settled(vertx.close());
    }

    private AdaptiveLimiter limiterOfAnUndeployedWorker(AdaptiveOptions options) {
        AtomicReference<AdaptiveLimiter> made = new AtomicReference<>();
        String deployment = Await.result(vertx.deployVerticle(new VerticleBase() {
            @Override
            public Future<?> start() {
                made.set(AdaptiveLimiter.create(vertx, options));
                return Future.succeededFuture();
            }
        }, new DeploymentOptions().setThreadingModel(ThreadingModel.WORKER).setWorkerPoolName("gone-worker")));
        Await.result(vertx.undeploy(deployment));
        return made.get();
    }

    /** Its close ends it, and its last stats message, which shows it closed, still goes out. */
    @Test
    void itsCloseReturnsACompletedFutureAndSendsTheLastStatsMessageInsteadOfThrowing() {
        Promise<JsonObject> closedState = Promise.promise();
        MessageConsumer<JsonObject> stats = vertx.eventBus().consumer("orders.stats", m -> {
            if ("ABORTED".equals(m.body().getString("state"))) {
                closedState.tryComplete(m.body());
            }
        });
        Await.result(stats.completion());
        AdaptiveLimiter limiter = limiterOfAnUndeployedWorker(new AdaptiveOptions().setName("orders")
                .setStatsAddress("orders.stats"));

        AtomicReference<Future<Void>> close = new AtomicReference<>();
        Throwable thrown = catchThrowable(() -> close.set(limiter.close()));

        assertThat(thrown).as("what close() threw").isNull();
        Await.result(close.get());
        assertThat(Await.result(closedState.future()).getString("name")).as("the last message's limiter")
                .isEqualTo("orders");
    }

    /**
     * A call from outside any context runs on the limiter's context, which refuses its attempt:
     * it fails with the refusal, as a future of no context whose handlers run.
     */
    @Test
    void aCallFromOutsideAnyContextReturnsAFailedFutureWhoseHandlersRun() {
        AdaptiveLimiter limiter = limiterOfAnUndeployedWorker(new AdaptiveOptions().setName("orders"));
        AtomicInteger attempts = new AtomicInteger();

        AtomicReference<Future<?>> call = new AtomicReference<>();
        Throwable thrown = catchThrowable(() -> call.set(limiter.execute(() -> {
            attempts.incrementAndGet();
            return Future.succeededFuture("done");
        })));

        SoftAssertions.assertSoftly(soft -> {
            FailedFutures.failsWithoutThrowing(soft, "execute()", thrown, call.get());
            soft.assertThat(call.get() == null ? null : call.get().cause()).as("its cause")
                    .isInstanceOf(RejectedExecutionException.class);
            soft.assertThat(attempts).as("attempts run").hasValue(0);
        });
    }

    /**
     * Its stats publication on change has nowhere to run. The first change that asks for one (a
     * change of the limit, here) gets the context's refusal, which the limiter counts as its
     * listener's failure and goes on; no later change or Retry-After pause asks again, so it is
     * counted once, and the close still sends the last message, from the closing thread.
     */
    @Test
    void itsPublicationOnChangeStopsAtTheFirstRefusalCountedOnceAndItsCloseStillSendsTheLastMessage() {
        Promise<JsonObject> closedState = Promise.promise();
        MessageConsumer<JsonObject> stats = vertx.eventBus().consumer("orders.stats", m -> {
            if ("ABORTED".equals(m.body().getString("state"))) {
                closedState.tryComplete(m.body());
            }
        });
        Await.result(stats.completion());
        AdaptiveLimiter limiter = limiterOfAnUndeployedWorker(new AdaptiveOptions().setName("orders")
                .setStatsAddress("orders.stats").setStatsInterval(0).setMaxLimit(10));
        Limiter engine = limiter.limiter();

        Throwable thrown = catchThrowable(() -> {
            engine.ceiling(4);
            engine.ceiling(3);
            engine.pauseFor(Duration.ofMillis(1));
            engine.ceiling(2);
        });

        SoftAssertions.assertSoftly(soft -> {
            soft.assertThat(thrown).as("what the changes threw").isNull();
            soft.assertThat(engine.limit()).as("the limit").isEqualTo(2);
            soft.assertThat(engine.stats().listenerFailures()).as("listener failures").isEqualTo(1L);
        });
        Await.result(limiter.close());
        assertThat(Await.result(closedState.future()).getInteger("limit")).as("the last message's limit").isEqualTo(2);
    }
}
