package dev.adaptive.fleet;

import java.util.Objects;

/**
 * What a {@link FleetMember} did or saw, as immutable events for logs, dashboards and tests.
 * Every event carries {@code timeNanos}, a reading of the member's limiter's ticker.
 */
public sealed interface FleetEvent permits FleetEvent.ShareChanged, FleetEvent.CoordinatorLost,
        FleetEvent.CoordinatorRestored, FleetEvent.DuplicateNodeId, FleetEvent.PausePublished,
        FleetEvent.PauseReceived {

    /** @return when it happened, in ticker nanoseconds */
    long timeNanos();

    /**
     * The ceiling this node applies to its limiter moved.
     *
     * @param timeNanos     when
     * @param from          the old ceiling ({@link Integer#MAX_VALUE} for none, under
     *                      {@link OutagePolicy#LOCAL_ONLY})
     * @param to            the new ceiling
     * @param globalCeiling the fleet's ceiling in the last heartbeat's view
     * @param liveNodes     the live nodes in that view
     * @param reason        {@code "raised"} (validated against the fleet's claims),
     *                      {@code "lowered"} (a smaller share), {@code "expired"} (fail-closed:
     *                      our report may have expired), {@code "local-only"} (outage),
     *                      {@code "closed"}
     */
    record ShareChanged(long timeNanos, int from, int to, int globalCeiling, int liveNodes, String reason)
            implements FleetEvent {
        /**
         * Validates.
         *
         * @param timeNanos     when
         * @param from          the old ceiling
         * @param to            the new ceiling
         * @param globalCeiling the fleet's ceiling in the last heartbeat's view
         * @param liveNodes     the live nodes in that view
         * @param reason        what moved it
         */
        public ShareChanged {
            Objects.requireNonNull(reason, "reason");
        }
    }

    /**
     * The coordinator stopped answering: a heartbeat failed, or was still pending when the next
     * one was due. Emitted once per outage.
     *
     * @param timeNanos when
     * @param cause     the failure, or {@code null} for a heartbeat still pending
     */
    record CoordinatorLost(long timeNanos, Throwable cause) implements FleetEvent {
    }

    /**
     * The coordinator answered again after an outage.
     *
     * @param timeNanos when
     */
    record CoordinatorRestored(long timeNanos) implements FleetEvent {
    }

    /**
     * Another live process heartbeats with this node's id: a configuration error that makes the
     * two share one name in logs and in {@code leave}. Both are still counted in the ceiling, so
     * the fleet stays under it. Reported once per other incarnation, after it was seen
     * refreshing its report (a restarted node's stale report, which only waits for its TTL, is
     * not a clash).
     *
     * @param timeNanos          when
     * @param nodeId             the shared id
     * @param incarnation        this process's incarnation
     * @param otherIncarnation   the other process's
     */
    record DuplicateNodeId(long timeNanos, String nodeId, String incarnation, String otherIncarnation)
            implements FleetEvent {
    }

    /**
     * This node saw a Retry-After pause and told the fleet.
     *
     * @param timeNanos when
     * @param pause     what was published
     */
    record PausePublished(long timeNanos, FleetPause pause) implements FleetEvent {
    }

    /**
     * A pause published by a node of the fleet (possibly this one) was applied here.
     *
     * @param timeNanos  when
     * @param pause      the pause
     * @param untilNanos the ticker reading it was converted to (before the limiter's
     *                   {@code maxRetryAfter} cap)
     */
    record PauseReceived(long timeNanos, FleetPause pause, long untilNanos) implements FleetEvent {
    }
}
