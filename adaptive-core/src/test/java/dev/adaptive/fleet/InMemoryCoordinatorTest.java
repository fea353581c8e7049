package dev.adaptive.fleet;

import dev.adaptive.time.VirtualTime;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class InMemoryCoordinatorTest {

    private static final Duration TTL = Duration.ofSeconds(2);
    private static final Instant AT = Instant.parse("2030-01-01T00:00:00Z");

    private final VirtualTime time = new VirtualTime();
    private final InMemoryCoordinator store = new InMemoryCoordinator(time);

    private static NodeReport report(String id, String inc, int limit) {
        return new NodeReport(id, inc, limit, 0, 0, AT);
    }

    private List<NodeReport> beat(String key, NodeReport r) {
        return store.heartbeat(key, r, TTL).toCompletableFuture().join();
    }

    @Test
    void aHeartbeatReturnsEveryLiveReportOfItsKeySortedAndItsOwnIncluded() {
        beat("k", report("b", "1", 5));
        beat("other", report("z", "1", 5));
        List<NodeReport> live = beat("k", report("a", "1", 7));
        assertThat(live).extracting(NodeReport::nodeId).containsExactly("a", "b");
        assertThat(live.get(0).localLimit()).isEqualTo(7);
        assertThat(beat("k", report("a", "1", 9))).hasSize(2).first()
                .satisfies(r -> assertThat(r.localLimit()).isEqualTo(9));
    }

    @Test
    void aReportDiesExactlyAtItsTtlMeasuredOnTheInjectedTicker() {
        beat("k", report("a", "1", 5));
        time.advance(Duration.ofMillis(1999));
        assertThat(store.liveReports("k")).hasSize(1);
        time.advance(Duration.ofMillis(1));
        assertThat(store.liveReports("k")).isEmpty();
        beat("k", report("a", "1", 5));
        time.advance(Duration.ofSeconds(1));
        assertThat(beat("k", report("b", "1", 5))).hasSize(2);
        time.advance(Duration.ofSeconds(1));
        assertThat(beat("k", report("b", "1", 5))).extracting(NodeReport::nodeId).containsExactly("b");
    }

    @Test
    void twoIncarnationsOfOneIdAreKeptApartAndLeaveRemovesBoth() {
        beat("k", report("a", "1", 5));
        assertThat(beat("k", report("a", "2", 5))).extracting(NodeReport::incarnation).containsExactly("1", "2");
        store.leave("k", "a").toCompletableFuture().join();
        assertThat(store.liveReports("k")).isEmpty();
        store.leave("k", "a").toCompletableFuture().join();
        store.leave("missing", "a").toCompletableFuture().join();
    }

    @Test
    void pausesReachEverySubscriberOfTheKeyAndAThrowingOneIsCounted() {
        List<FleetPause> one = new ArrayList<>();
        List<FleetPause> two = new ArrayList<>();
        List<FleetPause> elsewhere = new ArrayList<>();
        AutoCloseable s1 = store.subscribePauses("k", one::add);
        store.subscribePauses("k", p -> {
            throw new IllegalStateException("subscriber bug");
        });
        store.subscribePauses("k", two::add);
        store.subscribePauses("other", elsewhere::add);
        FleetPause pause = new FleetPause("a", AT.plusSeconds(5));
        store.publishPause("k", pause).toCompletableFuture().join();
        assertThat(one).containsExactly(pause);
        assertThat(two).containsExactly(pause);
        assertThat(elsewhere).isEmpty();
        assertThat(store.listenerFailures()).isEqualTo(1);
        closeQuietly(s1);
        closeQuietly(s1);
        store.publishPause("k", pause);
        assertThat(one).hasSize(1);
        assertThat(two).hasSize(2);
    }

    @Test
    void aLateSubscriberIsToldThePauseThatEndsLastAndWithoutAClockWhateverItsEnd() {
        FleetPause later = new FleetPause("a", AT.plusSeconds(30));
        store.publishPause("k", later).toCompletableFuture().join();
        store.publishPause("k", new FleetPause("b", AT.plusSeconds(5))).toCompletableFuture().join();
        List<FleetPause> late = new ArrayList<>();
        store.subscribePauses("k", late::add);
        assertThat(late).containsExactly(later);
        store.subscribePauses("k", p -> {
            throw new IllegalStateException("subscriber bug");
        });
        assertThat(store.listenerFailures()).as("a late subscriber that throws is counted").isEqualTo(1);
        List<FleetPause> elsewhere = new ArrayList<>();
        store.subscribePauses("other", elsewhere::add);
        assertThat(elsewhere).isEmpty();
    }

    @Test
    void withAClockALateSubscriberIsNotToldOfAPauseThatHasEnded() {
        InMemoryCoordinator clocked = new InMemoryCoordinator(time, time.clock(AT));
        clocked.publishPause("k", new FleetPause("a", AT.plusSeconds(1))).toCompletableFuture().join();
        List<FleetPause> early = new ArrayList<>();
        clocked.subscribePauses("k", early::add);
        assertThat(early).hasSize(1);
        time.advance(Duration.ofSeconds(1));
        List<FleetPause> late = new ArrayList<>();
        clocked.subscribePauses("k", late::add);
        assertThat(late).isEmpty();
        assertThatThrownBy(() -> new InMemoryCoordinator(time, null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void oneListenerSubscribedTwiceIsUnsubscribedOneAtATime() {
        List<FleetPause> seen = new ArrayList<>();
        AutoCloseable first = store.subscribePauses("k", seen::add);
        store.subscribePauses("k", seen::add);
        closeQuietly(first);
        store.publishPause("k", new FleetPause("a", AT));
        assertThat(seen).hasSize(1);
    }

    @Test
    void argumentsAreChecked() {
        assertThatThrownBy(() -> store.heartbeat("k", report("a", "1", 1), Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("ttl must be positive: PT0S");
        assertThatThrownBy(() -> store.heartbeat(null, report("a", "1", 1), TTL)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> new InMemoryCoordinator(null)).isInstanceOf(NullPointerException.class);
        assertThat(InMemoryCoordinator.create().liveReports("k")).isEmpty();
    }

    @Test
    void nodeReportsValidateTheirCountsAndTheirClaim() {
        assertThatThrownBy(() -> new NodeReport("a", "1", 5, 3, 2, AT)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("claim must be >= inflight (3): 2");
        assertThatThrownBy(() -> new NodeReport("a", "1", 5, -1, 2, AT)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("inflight must be >= 0: -1");
        assertThatThrownBy(() -> new NodeReport("a", "1", 0, 0, 0, AT)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("localLimit must be >= 1: 0");
        assertThat(new NodeReport("a", "1", 5, 3, AT).claim()).isEqualTo(3);
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
