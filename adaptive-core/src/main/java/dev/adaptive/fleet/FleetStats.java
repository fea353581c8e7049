package dev.adaptive.fleet;

/**
 * A snapshot of a {@link FleetMember}, taken under its lock, so its fields agree.
 *
 * @param share             the ceiling applied to the limiter ({@link Integer#MAX_VALUE} while
 *                          running local-only)
 * @param targetShare       this node's share in the last heartbeat's view
 * @param globalCeiling     the fleet's ceiling in that view
 * @param liveNodes         the live nodes in that view
 * @param coordinatorUp     whether the last heartbeat got through
 * @param heartbeats        heartbeats that got through
 * @param heartbeatFailures heartbeats that failed or were still pending when the next was due
 * @param pausesPublished   Retry-After pauses this node published
 * @param pausesReceived    fleet pauses applied here (this node's own included)
 * @param duplicateNodeId   whether another live process uses this node's id
 * @param listenerFailures  exceptions thrown by fleet listeners, pause publications the
 *                          coordinator refused (by throwing, returning no stage or failing
 *                          the stage), readings of the ticker or the
 *                          wall clock that threw inside the member, and the member's timers
 *                          the scheduler refused (all swallowed; see docs/reliability.md for
 *                          what each costs)
 */
public record FleetStats(int share, int targetShare, int globalCeiling, int liveNodes, boolean coordinatorUp,
                         long heartbeats, long heartbeatFailures, long pausesPublished, long pausesReceived,
                         boolean duplicateNodeId, long listenerFailures) {
}
