package dev.adaptive.hazelcast;

import com.hazelcast.config.SplitBrainProtectionConfig;
import dev.adaptive.fleet.FleetEvent;
import dev.adaptive.testing.FlakyHttpServer;
import dev.adaptive.testing.FlakyHttpServerExtension;
import dev.adaptive.testing.FlakyModel;
import dev.adaptive.testing.Until;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A network split of a real three-member cluster on 127.0.0.1 into {0, 1} and {2}, with
 * Hazelcast's own split-brain test mechanism ({@link TestCluster#split}: the members' TCP
 * connections across the cut closed and refused, both ways), then healed and merged by
 * Hazelcast's split-brain handler.
 *
 * <p>Two fleets of three nodes run through the same split, each calling its own loopback
 * server (20 ms per request), each node on a fixed local limit of 6 (ceiling 6, 2 per node):
 * <ul>
 *   <li>on the default maps ({@code adaptive.fleet.*}): each side of the split sees only its own
 *       nodes' reports, so each computes the ceiling and the shares from them; the bound on the
 *       fleet's in flight during the split is the sum of the sides' ceilings, here 2 × 6;</li>
 *   <li>on maps under split-brain protection ({@code protected.*}, at least 2 members): the
 *       minority side's heartbeats fail, its node fails closed, and the fleet stays under 6.</li>
 * </ul>
 * After the heal, both fleets are back to one view (three nodes, 2 each) and under 6.
 */
@Timeout(value = 100, unit = TimeUnit.SECONDS)
class SplitBrainFleetTest {

    private static final int CEILING = 6;
    private static final Duration SETTLE = Duration.ofSeconds(40);

    @RegisterExtension
    static final FlakyHttpServerExtension plainServer = FlakyHttpServerExtension.of(FlakyModel.holding(20));
    @RegisterExtension
    static final FlakyHttpServerExtension protectedServer = FlakyHttpServerExtension.of(FlakyModel.holding(20));

    private static TestCluster cluster;
    private static HttpClient http;
    private static final List<FleetNode> plain = new ArrayList<>();
    private static final List<FleetNode> guarded = new ArrayList<>();

    @BeforeAll
    static void start() throws Exception {
        http = FleetLoad.client();
        cluster = TestCluster.start(3, cfg -> {
            cfg.addSplitBrainProtectionConfig(new SplitBrainProtectionConfig("majority", true, 2));
            cfg.getMapConfig("protected.*").setSplitBrainProtectionName("majority");
        });
        for (int i = 0; i < 3; i++) {
            plain.add(new FleetNode(HazelcastCoordinator.builder(cluster.member(i))
                    .operationTimeout(Duration.ofMillis(800)).build(), "backend", "node-" + i, CEILING));
            guarded.add(new FleetNode(HazelcastCoordinator.builder(cluster.member(i)).prefix("protected.")
                    .operationTimeout(Duration.ofMillis(800)).build(), "backend", "node-" + i, CEILING));
        }
        awaitNodes(plain, n -> n.settled(3, CEILING), "plain fleet: three nodes, ceiling 6");
        awaitNodes(guarded, n -> n.settled(3, CEILING), "protected fleet: three nodes, ceiling 6");
        assertThat(guarded.get(0).coordinator.reportsMapName()).isEqualTo("protected.reports");
    }

    @AfterAll
    static void stop() {
        plain.forEach(FleetNode::close);
        guarded.forEach(FleetNode::close);
        if (cluster != null) {
            cluster.close();
        }
    }

    private static void awaitNodes(List<FleetNode> which, Predicate<FleetNode> condition, String what) {
        Until.met(what + ": " + which, SETTLE, () -> which.stream().allMatch(condition));
    }

    private static List<FleetLoad> load(List<FleetNode> fleet, FlakyHttpServer server) {
        return fleet.stream().map(n -> new FleetLoad(n.limiter, http, server.port(), "/" + n.member.nodeId()).start(6))
                .toList();
    }

    private static long millisSince(long nanos) {
        return (System.nanoTime() - nanos) / 1_000_000;
    }

    @Test
    void eachSideOfASplitTakesTheCeilingOfTheNodesItSeesUnlessTheMinorityIsFencedOff() {
        List<FleetLoad> loads = new ArrayList<>(load(plain, plainServer.get()));
        loads.addAll(load(guarded, protectedServer.get()));
        Until.met("load flowing", Duration.ofSeconds(10), () -> loads.stream().allMatch(l -> l.ok() > 20));
        assertThat(plainServer.get().maxInflight()).as("before the split").isLessThanOrEqualTo(CEILING);
        assertThat(protectedServer.get().maxInflight()).as("before the split").isLessThanOrEqualTo(CEILING);

        plainServer.get().resetMax();
        protectedServer.get().resetMax();
        long cut = System.nanoTime();
        cluster.split(new int[] {0, 1}, new int[] {2});
        cluster.awaitSize(2, 1);
        cluster.awaitSize(0, 2);
        cluster.awaitSize(1, 2);
        long detected = millisSince(cut);

        // Each side of the plain fleet now computes the ceiling from the nodes it sees.
        awaitNodes(plain.subList(0, 2), n -> n.settled(2, CEILING), "majority side: two nodes, ceiling 6");
        awaitNodes(plain.subList(2, 3), n -> n.settled(1, CEILING), "minority side: alone, ceiling 6");
        awaitNodes(guarded.subList(0, 2), n -> n.settled(2, CEILING), "protected majority: two nodes, ceiling 6");
        assertThat(guarded.get(2).share()).as("the fenced-off node admits nothing").isZero();
        long sharesSplit = millisSince(cut);
        long served = plainServer.get().served();
        Until.met("600 served during the split", Duration.ofSeconds(30), () -> plainServer.get().served() >= served + 600);
        int plainSplitMax = plainServer.get().maxInflight();
        int guardedSplitMax = protectedServer.get().maxInflight();
        assertThat(guarded.get(2).events).as("the fenced-off node lost the coordinator")
                .anySatisfy(e -> assertThat(e).isInstanceOf(FleetEvent.CoordinatorLost.class));

        plainServer.get().resetMax();
        protectedServer.get().resetMax();
        long heal = System.nanoTime();
        cluster.heal();
        for (int i = 0; i < 3; i++) {
            cluster.awaitSize(i, 3);
        }
        long merged = millisSince(heal);
        awaitNodes(plain, n -> n.settled(3, CEILING), "plain fleet after the merge: three nodes");
        awaitNodes(guarded, n -> n.settled(3, CEILING), "protected fleet after the merge: three nodes");
        long sharesMerged = millisSince(heal);
        // Calls admitted under a split share (the minority node had all 6) may still be held at the
        // server; the settled view is measured once every node is back within its share.
        awaitNodes(plain, n -> n.limiter.inflight() <= n.share(), "plain fleet: in flight within the shares");
        awaitNodes(guarded, n -> n.limiter.inflight() <= n.share(), "protected fleet: in flight within the shares");
        int plainMergeMax = plainServer.get().maxInflight();
        int guardedMergeMax = protectedServer.get().maxInflight();

        plainServer.get().resetMax();
        protectedServer.get().resetMax();
        long servedAfter = plainServer.get().served();
        Until.met("600 served after the merge", Duration.ofSeconds(30), () -> plainServer.get().served() >= servedAfter + 600);
        loads.forEach(l -> l.stop().orTimeout(20, TimeUnit.SECONDS).join());
        int plainAfterMax = plainServer.get().maxInflight();
        int guardedAfterMax = protectedServer.get().maxInflight();

        System.out.printf("split: detected by both sides %d ms after the cut; plain shares split at %d ms;"
                        + " heal: merged %d ms after, shares one view again at %d ms%n",
                detected, sharesSplit, merged, sharesMerged);
        System.out.printf("server max in flight (ceiling %d): plain fleet split %d, heal-to-settled %d, after %d;"
                        + " protected fleet split %d, heal-to-settled %d, after %d%n", CEILING, plainSplitMax,
                plainMergeMax, plainAfterMax, guardedSplitMax, guardedMergeMax, guardedAfterMax);
        plain.forEach(n -> System.out.println("plain " + n));
        guarded.forEach(n -> System.out.println("protected " + n));

        assertThat(plainSplitMax).as("plain fleet during the split: the sides' ceilings summed")
                .isGreaterThan(CEILING).isLessThanOrEqualTo(2 * CEILING);
        assertThat(plainMergeMax).as("plain fleet from the heal until one view").isLessThanOrEqualTo(2 * CEILING);
        assertThat(guardedSplitMax).as("protected fleet during the split").isLessThanOrEqualTo(CEILING);
        assertThat(guardedMergeMax).as("protected fleet through the merge").isLessThanOrEqualTo(CEILING);
        assertThat(plainAfterMax).isLessThanOrEqualTo(CEILING);
        assertThat(guardedAfterMax).isLessThanOrEqualTo(CEILING);
        loads.forEach(l -> assertThat(l.failed()).as("failed calls").isZero());
    }
}
