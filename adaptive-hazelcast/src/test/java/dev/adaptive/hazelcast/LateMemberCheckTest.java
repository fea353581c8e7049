package dev.adaptive.hazelcast;

import com.hazelcast.config.MapConfig;
import com.hazelcast.core.HazelcastInstance;
import dev.adaptive.fleet.NodeReport;
import dev.adaptive.testing.Until;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.ref.WeakReference;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Data members that join the cluster after a client built its coordinator: the check that
 * {@code build()} ran on the members then present is run on each as it joins, and a
 * configuration of the coordinator's maps that lets Hazelcast drop their entries is counted in
 * {@link HazelcastCoordinator#lateMemberRefusals()} (and logged at {@code WARNING}).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LateMemberCheckTest {

    private static final Clock CLOCK = Clock.fixed(Instant.parse("2030-01-01T00:00:00Z"), ZoneOffset.UTC);

    /**
     * Three members, the third stopped before the client builds and started again with
     * {@code max-idle-seconds=1} on the coordinator's maps (a standalone member started with a
     * cache's configuration, say): both maps are counted once it has joined. Started again once
     * more with the configuration of the others, it is not counted.
     */
    @Test
    void aDataMemberThatJoinsLaterWithMapsItWouldDropIsCounted() throws Exception {
        AtomicBoolean idle = new AtomicBoolean();
        try (TestCluster cluster = TestCluster.start(3, (config, member) -> {
            if (member == 2 && idle.get()) {
                config.addMapConfig(new MapConfig("late.*").setMaxIdleSeconds(1));
            }
        })) {
            cluster.terminate(2);
            cluster.awaitSize(0, 2);
            cluster.awaitSize(1, 2);
            HazelcastInstance client = cluster.newClient(cc -> { }, 0, 1);
            HazelcastCoordinator coordinator = HazelcastCoordinator.builder(client).prefix("late.").clock(CLOCK).build();
            NodeReport a = new NodeReport("a", "i1", 5, 0, CLOCK.instant());
            assertThat(coordinator.heartbeat("api", a, Duration.ofSeconds(60)).toCompletableFuture().get(10, TimeUnit.SECONDS))
                    .hasSize(1);
            assertThat(coordinator.lateMemberRefusals()).as("the members present at build() passed").isZero();

            idle.set(true);
            cluster.restart(2);
            Until.met("both maps of the member that joined with max-idle-seconds=1 counted", Duration.ofSeconds(30),
                    () -> coordinator.lateMemberRefusals() == 2);

            // The same member again, configured as the others: its check passes. A pass leaves no
            // trace to wait for, so the test waits for a build that reads the same configuration
            // from it after the joining check was sent; the joining check's answer is most likely
            // in by then. This part can miss a wrong count that comes later, never invent one.
            cluster.terminate(2);
            cluster.awaitSize(0, 2);
            idle.set(false);
            cluster.restart(2);
            Until.met("the client sees the member again", Duration.ofSeconds(30),
                    () -> client.getCluster().getMembers().size() == 3);
            HazelcastCoordinator.builder(client).prefix("late.").clock(CLOCK).build();
            assertThat(coordinator.lateMemberRefusals()).as("a member that keeps the entries is not counted").isEqualTo(2);
        }
    }

    /**
     * The check of joining members lives as long as the client does; a coordinator the
     * application dropped (a Camel context stopped and started again on the same client, say)
     * must not stay reachable through it, one more per build for the client's life.
     */
    @Test
    void aCoordinatorTheApplicationDroppedIsNotKeptByTheJoinCheck() throws Exception {
        try (TestCluster cluster = TestCluster.start(2, (config, member) -> { })) {
            HazelcastInstance client = cluster.newClient(cc -> { }, 0, 1);
            WeakReference<HazelcastCoordinator> dropped = new WeakReference<>(
                    HazelcastCoordinator.builder(client).prefix("late.").clock(CLOCK).build());
            HazelcastCoordinator kept = HazelcastCoordinator.builder(client).prefix("kept.").clock(CLOCK).build();
            for (int i = 0; i < 50 && dropped.get() != null; i++) {
                System.gc();
            }
            assertThat(dropped.get()).as("the dropped coordinator, after 50 collections").isNull();
            assertThat(kept.lateMemberRefusals()).isZero();
        }
    }
}
