package dev.adaptive.hazelcast;

import com.hazelcast.core.HazelcastInstance;
import dev.adaptive.Limiter;
import dev.adaptive.fleet.FleetEvent;
import dev.adaptive.fleet.FleetMember;
import dev.adaptive.fleet.FleetStats;
import dev.adaptive.limit.FixedLimit;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * One process of a test fleet: a {@link Limiter} with a fixed local limit, made a
 * {@link FleetMember} through a {@link HazelcastCoordinator} on one cluster member, with the
 * events it saw. Heartbeat 200 ms, TTL 1 s, operation timeout 800 ms.
 */
final class FleetNode {

    static final Duration HEARTBEAT = Duration.ofMillis(200);
    static final Duration TTL = Duration.ofSeconds(1);

    final HazelcastCoordinator coordinator;
    final Limiter limiter;
    final FleetMember member;
    final List<FleetEvent> events = new CopyOnWriteArrayList<>();

    FleetNode(HazelcastInstance hazelcast, String key, String nodeId, int localLimit) {
        this(HazelcastCoordinator.builder(hazelcast).operationTimeout(Duration.ofMillis(800)).build(), key, nodeId,
                localLimit);
    }

    FleetNode(HazelcastCoordinator coordinator, String key, String nodeId, int localLimit) {
        this.coordinator = coordinator;
        limiter = Limiter.builder().name(nodeId).limit(FixedLimit.of(localLimit)).build();
        member = FleetMember.builder(limiter, coordinator).key(key).nodeId(nodeId)
                .heartbeat(HEARTBEAT).ttl(TTL).listener(events::add).join();
    }

    int share() {
        return member.stats().share();
    }

    int liveNodes() {
        return member.stats().liveNodes();
    }

    /**
     * @param live    the live nodes it must see
     * @param ceiling the global ceiling it must see
     * @return whether it sees them and holds a share (idle, one slot: shares follow demand)
     */
    boolean settled(int live, int ceiling) {
        FleetStats s = member.stats();
        return s.liveNodes() == live && s.globalCeiling() == ceiling && s.share() >= 1;
    }

    long pausesReceived() {
        return events.stream().filter(e -> e instanceof FleetEvent.PauseReceived).count();
    }

    boolean sawDuplicateId() {
        return events.stream().anyMatch(e -> e instanceof FleetEvent.DuplicateNodeId);
    }

    /** Leaves the fleet and stops the limiter's queue (what a process does when it ends). */
    void close() {
        member.close();
        limiter.abort();
    }

    @Override
    public String toString() {
        return member.toString();
    }
}
