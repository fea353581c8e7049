package dev.adaptive.vertx;

import dev.adaptive.Limiter;
import dev.adaptive.LimiterStats;
import dev.adaptive.limit.Aimd;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.ThreadingModel;
import io.vertx.core.VerticleBase;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.MessageConsumer;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * A call whose own context runs nothing any more while the limiter's context still does: made
 * in a worker verticle with a worker pool of its own, which its undeploy shut down while the call
 * waited for a retry. No attempt of that call can run again; the first one that its context
 * refuses ends it, without a retry, and without a sample that would lower the limit: it never
 * reached the server.
 */
class CallerContextGoneTest {

    private final Vertx vertx = Vertx.vertx();

    @AfterEach
    void closeVertx() {
        Await.settled(vertx.close());
    }

    /** What a call of the verticle left behind: the limiter's stats around the resume, and whether it had ended. */
    private record Resumed(LimiterStats before, LimiterStats after, boolean callEnded) {
    }

    /**
     * Makes {@code call} in {@code start()} of a worker verticle with a worker pool of its own,
     * waits for its retry to queue behind a pause that its first attempt's failure opened
     * ({@code engine.pause()}, called by the attempt or its server), undeploys the verticle, and
     * resumes, on the limiter's context, where the retry's backoff ran and queued it: the retry
     * is granted in the resume, and its attempt refused by the call's context there.
     */
    private Resumed undeployWhileTheRetryWaits(AdaptiveLimiter limiter, Supplier<Future<?>> call) {
        Limiter engine = limiter.limiter();
        Promise<Void> retryQueued = Promise.promise();
        engine.addQueueListener(retryQueued::tryComplete);
        AtomicReference<Future<?>> made = new AtomicReference<>();
        String deployment = Await.result(vertx.deployVerticle(new VerticleBase() {
            @Override
            public Future<?> start() {
                made.set(call.get());
                return Future.succeededFuture();
            }
        }, new DeploymentOptions().setThreadingModel(ThreadingModel.WORKER).setWorkerPoolName("orders-worker")));
        Await.result(retryQueued.future());
        Await.result(vertx.undeploy(deployment));

        // Read there too, as the resume returns: the call's future is bound to its context,
        // which can run no handler.
        Promise<Resumed> resumed = Promise.promise();
        limiter.context().runOnContext(v -> {
            LimiterStats before = engine.stats();
            engine.resume();
            resumed.complete(new Resumed(before, engine.stats(), made.get().isComplete()));
        });
        return Await.result(resumed.future());
    }

    /** Every drop lowers this limit (no tolerance), so that one counted for the refused attempt shows. */
    private AdaptiveLimiter limiter() {
        // Made outside any context: the limiter's own is an event loop, which the undeploy leaves running.
        return AdaptiveLimiter.builder(vertx, new AdaptiveOptions().setName("orders")
                        .setRetries(3).setMinDelay(1).setMaxDelay(1).setRetryBudget(false))
                .limit(Aimd.builder().initialLimit(20).maxLimit(100).dropTolerance(0).build())
                .build();
    }

    private static void refusedAttemptIgnored(SoftAssertions soft, Resumed r) {
        soft.assertThat(r.before().limit()).as("the limit, lowered by the first attempt's drop").isLessThan(20);
        soft.assertThat(r.after().limit()).as("the limit").isEqualTo(r.before().limit());
        soft.assertThat(r.after().congestionEvents() - r.before().congestionEvents())
                .as("drops counted for the refused attempt").isZero();
        soft.assertThat(r.after().ignored() - r.before().ignored()).as("ignored attempts counted for it").isEqualTo(1);
        soft.assertThat(r.after().errorRetries() - r.before().errorRetries()).as("retries after it").isZero();
        soft.assertThat(r.after().inflight()).as("in flight").isZero();
        soft.assertThat(r.after().waiting()).as("waiting").isZero();
    }

    @Test
    void anAttemptItsContextRefusesEndsTheCallAtOnceAndLeavesTheLimitAlone() {
        AdaptiveLimiter limiter = limiter();
        AtomicInteger attempts = new AtomicInteger();
        AtomicReference<Future<String>> call = new AtomicReference<>();

        Resumed r = undeployWhileTheRetryWaits(limiter, () -> {
            call.set(limiter.execute(() -> {
                attempts.incrementAndGet();
                limiter.limiter().pause();
                return Future.failedFuture(new IOException("down"));
            }));
            return call.get();
        });

        SoftAssertions.assertSoftly(soft -> {
            soft.assertThat(r.callEnded()).as("the call ended as its refused attempt did").isTrue();
            soft.assertThat(call.get().cause()).as("its failure").isInstanceOf(RejectedExecutionException.class)
                    .hasMessage("adaptive limiter 'orders': the call's context runs nothing any more and refused"
                            + " its attempt 2; the call ends with it, not retried");
            soft.assertThat(attempts).as("attempts run").hasValue(1);
            refusedAttemptIgnored(soft, r);
        });
    }

    /**
     * The same through the event bus, whose attempts go through an executor of its own: its
     * request is refused as the limiter's calls are. Its future, a recovery of the call's bound
     * to the same context, can never complete; the limiter shows what became of the call.
     */
    @Test
    void anEventBusRequestWhoseContextRefusesItsRetryEndsWithoutLoweringTheLimit() {
        AdaptiveLimiter limiter = limiter();
        AtomicInteger arrivals = new AtomicInteger();
        MessageConsumer<String> server = vertx.eventBus().consumer("orders.server", m -> {
            arrivals.incrementAndGet();
            limiter.limiter().pause();
            m.fail(500, "down");
        });
        Await.result(server.completion());
        AdaptiveEventBus bus = AdaptiveEventBus.create(limiter);

        Resumed r = undeployWhileTheRetryWaits(limiter, () -> bus.request("orders.server", "order 1"));

        SoftAssertions.assertSoftly(soft -> {
            soft.assertThat(arrivals).as("requests that reached the consumer").hasValue(1);
            refusedAttemptIgnored(soft, r);
        });
    }
}
