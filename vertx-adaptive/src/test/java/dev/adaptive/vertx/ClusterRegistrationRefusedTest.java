package dev.adaptive.vertx;

import com.hazelcast.config.Config;
import dev.adaptive.fleet.FleetPause;
import dev.adaptive.testing.Until;
import io.vertx.core.Completable;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.spi.cluster.RegistrationInfo;
import io.vertx.spi.cluster.hazelcast.HazelcastClusterManager;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A clustered event bus whose cluster manager refuses a registration (a member unreachable or
 * leaving): a fleet's pause subscription registers again and hears the fleet's pauses, and a
 * proxy whose consumer cannot register fails its deployment without leaving its limiter open.
 * Two real clustered Vert.x nodes on 127.0.0.1; the second one's manager refuses on demand.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ClusterRegistrationRefusedTest {

    /** Refuses the registration of every address {@link #refuse} matches. */
    static final class RefusingClusterManager extends HazelcastClusterManager {
        volatile Predicate<String> refuse = a -> false;
        final List<String> refused = new CopyOnWriteArrayList<>();

        RefusingClusterManager(Config config) {
            super(config);
        }

        @Override
        public void addRegistration(String address, RegistrationInfo info, Completable<Void> promise) {
            if (refuse.test(address)) {
                refused.add(address);
                promise.fail(new IllegalStateException("cluster refused the registration of " + address));
                return;
            }
            super.addRegistration(address, info, promise);
        }
    }

    private static final Clock CLOCK = Clock.fixed(Instant.parse("2030-01-01T00:00:00Z"), ZoneOffset.UTC);
    private static ClusterNodes cluster;
    private static Vertx a;
    private static Vertx b;
    private static RefusingClusterManager bManager;

    @BeforeAll
    static void startCluster() throws Exception {
        cluster = ClusterNodes.start(2, RefusingClusterManager::new);
        a = cluster.nodes.get(0);
        b = cluster.nodes.get(1);
        bManager = (RefusingClusterManager) cluster.managers.get(1);
    }

    @AfterAll
    static void stopCluster() {
        cluster.close();
    }

    @Test
    void aPauseSubscriptionWhoseRegistrationWasRefusedRegistersAgainAndHearsTheFleetsPauses() throws Exception {
        String ns = "t" + UUID.randomUUID() + ".";
        SharedDataCoordinator onA = SharedDataCoordinator.create(a, ns, Duration.ofSeconds(5), CLOCK);
        SharedDataCoordinator onB = SharedDataCoordinator.create(b, ns, Duration.ofSeconds(5), CLOCK);
        String pauseAddress = ns + "api.pause";
        bManager.refused.clear();
        bManager.refuse = pauseAddress::equals;
        CompletableFuture<FleetPause> heard = new CompletableFuture<>();
        AutoCloseable sub = onB.subscribePauses("api", heard::complete);
        try {
            Until.met("B's cluster manager refused the registration", Duration.ofSeconds(30),
                    () -> !bManager.refused.isEmpty());
            assertThat(bManager.refused).as("the registration was refused once").containsExactly(pauseAddress);
            bManager.refuse = x -> false; // the cluster is fine again
            FleetPause pause = new FleetPause("node-a", CLOCK.instant().plusSeconds(30));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!heard.isDone() && System.nanoTime() < deadline) {
                Await.result(Future.fromCompletionStage(onA.publishPause("api", pause)));
                Await.result(a.timer(200));
            }
            assertThat(heard).as("B hears the pause A published").isDone();
            assertThat(heard.join()).isEqualTo(pause);
        } finally {
            bManager.refuse = x -> false;
            sub.close();
        }
    }

    @Test
    void aProxyWhoseConsumerCannotRegisterFailsItsDeploymentAndClosesItsLimiter() {
        String address = "proxy." + UUID.randomUUID();
        String statsAddress = address + ".stats";
        AtomicInteger stats = new AtomicInteger();
        Await.result(b.eventBus().localConsumer(statsAddress, m -> stats.incrementAndGet()).completion());
        bManager.refuse = address::equals;
        try {
            AdaptiveProxyVerticle proxy = new AdaptiveProxyVerticle(new AdaptiveProxyOptions()
                    .setAddress(address).setTargetAddress(address + ".target")
                    .setOptions(new AdaptiveOptions().setStatsAddress(statsAddress).setStatsInterval(100)));
            assertThat(Await.failure(b.deployVerticle(proxy))).hasMessageContaining("refused the registration");
            assertThat(proxy.limiter().isClosed()).as("the limiter start() built").isTrue();
            Await.result(b.timer(300));
            int before = stats.get();
            Await.result(b.timer(1_000));
            assertThat(stats.get() - before).as("stats published in the second after the failed deployment").isZero();
        } finally {
            bManager.refuse = x -> false;
        }
    }
}
