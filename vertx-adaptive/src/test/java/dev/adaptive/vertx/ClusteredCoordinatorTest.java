package dev.adaptive.vertx;

import dev.adaptive.fleet.FleetPause;
import dev.adaptive.fleet.NodeReport;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link SharedDataCoordinator} on three Vert.x nodes clustered by Hazelcast on loopback: one
 * store of reports with TTLs, and pauses relayed to every node. One cluster for the class; the
 * last test stops a node.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClusteredCoordinatorTest {

    private static ClusterNodes cluster;
    private static final List<SharedDataCoordinator> coordinators = new ArrayList<>();

    @BeforeAll
    static void startCluster() throws Exception {
        cluster = ClusterNodes.start(3);
        cluster.nodes.forEach(v -> coordinators.add(SharedDataCoordinator.create(v)));
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static <T> T await(CompletionStage<T> stage) {
        return Await.result(Future.fromCompletionStage(stage));
    }

    private static NodeReport report(int node, int limit) {
        return new NodeReport("node-" + node, "inc-" + node, limit, 0, Instant.now());
    }

    @Test
    @Order(1)
    void everyNodeSeesEveryNodesReport() {
        for (int i = 0; i < 3; i++) {
            await(coordinators.get(i).heartbeat("shared", report(i, 10 + i), Duration.ofSeconds(30)));
        }
        for (int i = 0; i < 3; i++) {
            assertThat(await(coordinators.get(i).heartbeat("shared", report(i, 10 + i), Duration.ofSeconds(30))))
                    .extracting(NodeReport::nodeId, NodeReport::localLimit)
                    .containsExactly(org.assertj.core.groups.Tuple.tuple("node-0", 10),
                            org.assertj.core.groups.Tuple.tuple("node-1", 11),
                            org.assertj.core.groups.Tuple.tuple("node-2", 12));
        }
    }

    @Test
    @Order(2)
    void aPausePublishedOnOneNodeReachesAllThree() {
        List<Promise<FleetPause>> heard = new ArrayList<>();
        List<AutoCloseable> subs = new ArrayList<>();
        for (SharedDataCoordinator c : coordinators) {
            Promise<FleetPause> p = Promise.promise();
            heard.add(p);
            subs.add(c.subscribePauses("paused", p::tryComplete));
        }
        FleetPause pause = new FleetPause("node-1", Instant.now().plusSeconds(20));
        await(coordinators.get(1).publishPause("paused", pause));
        for (Promise<FleetPause> p : heard) {
            // Heard live, or, for a node whose subscription registered after the publish, from the store.
            assertThat(Await.result(p.future())).isEqualTo(pause);
        }
        subs.forEach(s -> {
            try {
                s.close();
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
    }

    @Test
    @Order(3)
    void aNodeThatLeavesIsGoneAtOnceAndOneThatStopsIsGoneAfterItsTtl() {
        Duration ttl = Duration.ofSeconds(1);
        for (int i = 0; i < 3; i++) {
            await(coordinators.get(i).heartbeat("ttl", report(i, 5), ttl));
        }
        await(coordinators.get(1).leave("ttl", "node-1"));
        assertThat(await(coordinators.get(0).heartbeat("ttl", report(0, 5), ttl)))
                .extracting(NodeReport::nodeId).containsExactly("node-0", "node-2");
        cluster.stop(2); // no leave: node-2 just stops heartbeating
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        List<NodeReport> live;
        do {
            Await.result(cluster.nodes.get(0).timer(200));
            live = await(coordinators.get(0).heartbeat("ttl", report(0, 5), ttl));
        } while (live.size() > 1 && System.nanoTime() < deadline);
        assertThat(live).extracting(NodeReport::nodeId).containsExactly("node-0");
    }
}
