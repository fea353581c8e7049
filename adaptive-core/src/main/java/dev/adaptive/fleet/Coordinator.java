package dev.adaptive.fleet;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

/**
 * SPI: the shared store through which a fleet of nodes that call one backend share one
 * concurrency ceiling and one Retry-After pause. A coordinator only stores and relays; the
 * aggregation rule (how live nodes' local limits become one ceiling and each node's share) is
 * the engine's, so every implementation behaves the same.
 *
 * <p>All nodes that front one backend use the same {@code key}. Times crossing the fleet are
 * wall-clock {@link Instant}s, because one JVM's {@code nanoTime} means nothing in another.
 *
 * <p>Implementations must be thread-safe and must not block the caller: every operation
 * returns a stage. The engine ships an in-memory implementation (several limiters in one JVM,
 * and tests); the Vert.x module ships one on cluster shared data, and the adaptive-hazelcast
 * module one on Hazelcast for any JVM of a Hazelcast cluster.
 *
 * <p>A method that throws (anything, an {@code Error} included) or returns {@code null} instead
 * of a stage is a failed operation to the engine: a heartbeat is an outage (the next one tries
 * again), a publication is counted in {@link FleetStats#listenerFailures()} (as is one whose
 * stage fails) and the local pause stands, a leave is given up (the report expires after its TTL), and a subscription that
 * cannot be made fails {@link FleetMember.Builder#join()}, leaving the limiter as it was.
 */
public interface Coordinator {

    /**
     * Stores (or refreshes) this node's report under {@code key} for {@code ttl}, and returns
     * the reports of every live node under that key, this one included. A node whose report is
     * older than its TTL is dead and must not be returned.
     *
     * <p>Reports are stored per ({@code nodeId}, {@code incarnation}): two processes started
     * with one id must both stay visible, so that the engine can count both and report the
     * clash. The write and the read must be one atomic step (the returned list is the store as
     * it was right after this write): the engine validates share increases against it. The
     * stage must complete, or fail, in bounded time; a node sends its next heartbeat only after
     * the previous one completed.
     *
     * @param key    the backend's key
     * @param report this node's report
     * @param ttl    how long the report stays live without another heartbeat
     * @return the live reports
     */
    CompletionStage<List<NodeReport>> heartbeat(String key, NodeReport report, Duration ttl);

    /**
     * Removes a node's reports (every incarnation) at once: a graceful leave.
     *
     * @param key    the backend's key
     * @param nodeId the node
     * @return completes when removed
     */
    CompletionStage<Void> leave(String key, String nodeId);

    /**
     * Tells every node under {@code key} (this one included) to pause dispatch until {@code until}.
     *
     * @param key   the backend's key
     * @param pause who paused, and until when
     * @return completes when published
     */
    CompletionStage<Void> publishPause(String key, FleetPause pause);

    /**
     * Subscribes to pauses published under {@code key}.
     *
     * @param key      the backend's key
     * @param listener called with each pause, on a thread of the coordinator's choosing
     * @return closes the subscription
     */
    AutoCloseable subscribePauses(String key, Consumer<FleetPause> listener);
}
