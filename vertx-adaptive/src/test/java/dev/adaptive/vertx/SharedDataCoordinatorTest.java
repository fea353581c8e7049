package dev.adaptive.vertx;

import dev.adaptive.contract.CoordinatorContract;
import dev.adaptive.fleet.Coordinator;
import dev.adaptive.fleet.FleetPause;
import dev.adaptive.fleet.NodeReport;
import dev.adaptive.testing.Until;
import io.vertx.core.Context;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.ThreadingModel;
import io.vertx.core.VerticleBase;
import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * The coordinator's contract ({@link CoordinatorContract}) on one (non-clustered) Vert.x, with a
 * wall clock the tests move, and what is the shared-data store's own.
 */
@ExtendWith(VertxExtension.class)
class SharedDataCoordinatorTest extends CoordinatorContract {

    /** A wall clock that stands still: pauses end when the tests say, whatever the date. */
    private static final Clock CLOCK = Clock.fixed(Instant.parse("2030-01-01T00:00:00Z"), ZoneOffset.UTC);

    private static Vertx shared;

    @BeforeAll
    static void startVertx() {
        shared = Vertx.vertx();
    }

    @AfterAll
    static void closeVertx() {
        Await.result(shared.close());
    }

    @Override
    protected Coordinator coordinator(String namespace, Clock clock) {
        return SharedDataCoordinator.create(shared, namespace, Duration.ofSeconds(5), clock);
    }

    @Test
    void theMapKeepsAnEntryAWholeSecondPastItsStampedExpiry() {
        // The stamp decides what is live; the map's TTL only clears what nobody removes, and a
        // cluster manager may round it to whole seconds.
        assertThat(SharedDataCoordinator.storeTtl(1)).isEqualTo(2_000);
        assertThat(SharedDataCoordinator.storeTtl(1_000)).isEqualTo(2_000);
        assertThat(SharedDataCoordinator.storeTtl(1_001)).isEqualTo(3_000);
        assertThat(SharedDataCoordinator.storeTtl(Long.MAX_VALUE)).isEqualTo(Long.MAX_VALUE);
    }

    /**
     * Asked after its Vert.x instance closed: the shared data's locks refuse, on a closed event
     * loop. Each operation that returns a stage returns one already failed with that refusal
     * (which the engine reads as it reads a throw: a heartbeat's outage, a publication counted,
     * a leave given up), and throws nothing.
     */
    @Test
    void operationsAskedAfterItsVertxClosedReturnFailedStagesInsteadOfThrowing() {
        Vertx vertx = Vertx.vertx();
        SharedDataCoordinator coordinator = SharedDataCoordinator.create(vertx, "closed.", Duration.ofSeconds(5), CLOCK);
        Await.settled(vertx.close());
        NodeReport report = new NodeReport("node-1", "a", 4, 0, 0, CLOCK.instant());
        Map<String, Supplier<CompletionStage<?>>> operations = new LinkedHashMap<>();
        operations.put("heartbeat()", () -> coordinator.heartbeat("orders", report, Duration.ofSeconds(10)));
        operations.put("leave()", () -> coordinator.leave("orders", "node-1"));
        operations.put("publishPause()", () -> coordinator.publishPause("orders",
                new FleetPause("node-1", CLOCK.instant().plusSeconds(60))));

        SoftAssertions.assertSoftly(soft -> operations.forEach((name, operation) -> {
            AtomicReference<CompletionStage<?>> stage = new AtomicReference<>();
            Throwable thrown = catchThrowable(() -> stage.set(operation.get()));
            soft.assertThat(thrown).as("what " + name + " threw").isNull();
            soft.assertThat(stage.get() != null && stage.get().toCompletableFuture().isCompletedExceptionally())
                    .as(name + ": its stage, failed").isTrue();
        }));
    }

    @Test
    void badArgumentsAreRejected(Vertx vertx) {
        assertThatThrownBy(() -> SharedDataCoordinator.create(vertx, "p.", Duration.ZERO, Clock.systemUTC()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lockTimeout");
    }

    /**
     * A limiter whose home context is a worker verticle's joins the fleet from there: the pause
     * listener runs on that verticle's context, on a worker thread, as a handler it registered
     * would, both for a pause relayed on the event bus and for one read from the store when the
     * subscription catches up. Before, the catch-up reads called it on the context that first
     * opened the store's map (here an event loop that published), so one listener was called on
     * two threads, and the class's javadoc said "an event loop" for all.
     */
    @Test
    void pauseListenersRunOnTheContextThatSubscribed() {
        SharedDataCoordinator coordinator = SharedDataCoordinator.create(shared, "ctx.", Duration.ofSeconds(5), CLOCK);
        String key = "worker-home";
        // Stored before the subscription, so its catch-up reads find it; published from an event
        // loop, which opens the coordinator's map of pauses there.
        Context publisher = shared.getOrCreateContext();
        Await.result(Future.fromCompletionStage(coordinator.publishPause(key,
                new FleetPause("a", CLOCK.instant().plusSeconds(60))), publisher));
        List<String> deployments = new CopyOnWriteArrayList<>();
        List<Boolean> onWorker = new CopyOnWriteArrayList<>();
        final class Subscriber extends VerticleBase {
            volatile AutoCloseable subscription;

            @Override
            public Future<?> start() {
                subscription = coordinator.subscribePauses(key, p -> {
                    deployments.add(String.valueOf(Vertx.currentContext() == null ? null
                            : Vertx.currentContext().deploymentID()));
                    onWorker.add(Context.isOnWorkerThread());
                });
                return Future.succeededFuture();
            }
        }
        Subscriber subscriber = new Subscriber();
        String id = Await.result(shared.deployVerticle(subscriber,
                new DeploymentOptions().setThreadingModel(ThreadingModel.WORKER)));
        try {
            // Two catch-up reads (at registration and a second later), then a relayed pause.
            Until.met("the stored pause heard twice", Duration.ofSeconds(30), () -> deployments.size() >= 2);
            Await.result(Future.fromCompletionStage(coordinator.publishPause(key,
                    new FleetPause("b", CLOCK.instant().plusSeconds(120))), publisher));
            Until.met("the relayed pause heard", Duration.ofSeconds(30), () -> deployments.size() >= 3);
            assertThat(deployments).containsOnly(id);
            assertThat(onWorker).containsOnly(true);
        } finally {
            try {
                subscriber.subscription.close();
            } catch (Exception neverThrown) {
                throw new AssertionError(neverThrown);
            }
            Await.result(shared.undeploy(id));
        }
    }
    /**
     * close() never blocks, not even while the listener it closes is still running a delivery
     * on its own context (a worker verticle's listener that blocks, say): waiting for it would
     * hang the closing thread, and deadlock one that holds a lock the listener takes.
     */
    @Test
    void closeReturnsWhileTheListenerStillRunsADelivery() throws Exception {
        SharedDataCoordinator coordinator = SharedDataCoordinator.create(shared, "busy.", Duration.ofSeconds(5), CLOCK);
        String key = "blocked";
        CountDownLatch inListener = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        final class Subscriber extends VerticleBase {
            volatile AutoCloseable subscription;

            @Override
            public Future<?> start() {
                subscription = coordinator.subscribePauses(key, p -> {
                    inListener.countDown();
                    try {
                        // Longer than the close is given below: a close that waited for this
                        // call would time out there, not return when this wait ends.
                        release.await(120, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                });
                return Future.succeededFuture();
            }
        }
        Subscriber subscriber = new Subscriber();
        String id = Await.result(shared.deployVerticle(subscriber,
                new DeploymentOptions().setThreadingModel(ThreadingModel.WORKER)));
        try {
            Context publisher = shared.getOrCreateContext();
            Await.result(Future.fromCompletionStage(coordinator.publishPause(key,
                    new FleetPause("a", CLOCK.instant().plusSeconds(60))), publisher));
            assertThat(inListener.await(30, TimeUnit.SECONDS)).as("the listener runs a delivery").isTrue();
            CompletableFuture<Void> closed = CompletableFuture.runAsync(() -> {
                try {
                    subscriber.subscription.close();
                } catch (Exception neverThrown) {
                    throw new AssertionError(neverThrown);
                }
            });
            closed.get(20, TimeUnit.SECONDS);
        } finally {
            release.countDown();
            Await.result(shared.undeploy(id));
        }
    }
}
