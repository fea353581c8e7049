package dev.adaptive.hazelcast;

import com.hazelcast.core.LifecycleEvent;
import dev.adaptive.fleet.NodeReport;
import dev.adaptive.testing.Until;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What Hazelcast's split-brain merge does to the store, on a real three-member cluster split
 * into {0, 1} and {2} and healed ({@link TestCluster#split}).
 *
 * <p>The merge sends the smaller side's live entries to the larger side under the map's merge
 * policy. The default {@code PutIfAbsentMergePolicy} keeps the larger side's value of a key
 * that both sides hold, but Hazelcast 5 then gives that kept entry the merging entry's
 * expiration. A reports entry whose map TTL followed its latest stamp would take the smaller
 * side's shorter life and vanish with every live report in it: the fleet's claims gone, each
 * node free to raise into room the others still hold.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class SplitBrainMergeTest {

    /** What a report says of its own time: data only, the coordinator stamps expiry by its clock. */
    private static final Instant REPORTED_AT = Instant.parse("2030-01-01T00:00:00Z");

    /** Bound on one heartbeat of this test: generous, see the test. */
    private static final Duration SETTLE = Duration.ofSeconds(30);

    private static TestCluster cluster;

    @BeforeAll
    static void start() throws Exception {
        cluster = TestCluster.start(3);
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static List<NodeReport> beat(HazelcastCoordinator c, String node, Duration ttl) {
        try {
            return c.heartbeat("api", new NodeReport(node, node + "-1", 6, 0, REPORTED_AT), ttl).toCompletableFuture()
                    .orTimeout(SETTLE.toSeconds() + 10, TimeUnit.SECONDS).join();
        } catch (CompletionException e) {
            throw new AssertionError("heartbeat of " + node + " through " + c + " failed", e);
        }
    }

    @Test
    void theLargerSidesReportsOutliveTheMergeOfTheSmallerSidesShorterLivedCopy() {
        String prefix = "merge" + UUID.randomUUID() + ".";
        // What this test checks is what the merge keeps, not how fast a cluster settles: each
        // side is waited on until it is safe before it is written to, and an operation is given
        // far longer than the default 5 s (a CI run once timed out the first write after the
        // split while the side's partitions were still being reassigned).
        HazelcastCoordinator larger = HazelcastCoordinator.builder(cluster.member(0)).prefix(prefix)
                .operationTimeout(SETTLE).build();
        HazelcastCoordinator smaller = HazelcastCoordinator.builder(cluster.member(2)).prefix(prefix)
                .operationTimeout(SETTLE).build();
        AtomicLong merging = new AtomicLong();
        AtomicLong merged = new AtomicLong();
        cluster.member(2).getLifecycleService().addLifecycleListener(e -> {
            if (e.getState() == LifecycleEvent.LifecycleState.MERGING) {
                merging.compareAndSet(0, System.nanoTime());
            } else if (e.getState() == LifecycleEvent.LifecycleState.MERGED) {
                merged.compareAndSet(0, System.nanoTime());
            }
        });

        cluster.split(new int[] {0, 1}, new int[] {2});
        cluster.awaitSize(2, 1);
        cluster.awaitSize(0, 2);
        cluster.awaitSize(1, 2);
        cluster.awaitSafe(0);
        cluster.awaitSafe(2);
        // Each side now holds its own copy of the key: a report that lives two minutes on the
        // larger side, one that lives 20 s on the smaller (long enough that a merge slowed by a
        // loaded machine still takes it while it lives).
        assertThat(beat(larger, "a", Duration.ofMinutes(2))).extracting(NodeReport::nodeId).containsExactly("a");
        long written = System.nanoTime();
        assertThat(beat(smaller, "b", Duration.ofSeconds(20))).extracting(NodeReport::nodeId).containsExactly("b");

        cluster.heal();
        Until.met("member 2 merged into {0, 1}", Duration.ofSeconds(60), () -> merged.get() != 0);
        for (int i = 0; i < 3; i++) {
            cluster.awaitSize(i, 3);
        }
        cluster.awaitSafe(0);
        // The smaller side's copy was live when the merge took it, even with a map TTL that
        // followed its stamp (20 s, and a second more), so the merge applied it to the larger
        // side's entry.
        assertThat((merging.get() - written) / 1_000_000).as("ms from the smaller side's write to the merge").isLessThan(20_000);

        // Nobody writes until that copy would have ended; then the larger side's report is
        // still there, as its stamp says.
        Until.met("the smaller side's copy would have ended", Duration.ofSeconds(60),
                () -> System.nanoTime() - written > 22_000_000_000L);
        assertThat(beat(larger, "c", Duration.ofMinutes(2))).extracting(NodeReport::nodeId)
                .as("the live reports after the merge").containsExactly("a", "c");
    }
}
