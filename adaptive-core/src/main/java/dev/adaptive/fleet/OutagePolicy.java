package dev.adaptive.fleet;

/**
 * What a {@link FleetMember} does while its coordinator does not answer (a heartbeat fails, or
 * is still pending when the next one is due).
 */
public enum OutagePolicy {

    /**
     * The default. Keep the last share, and never go beyond it, for as long as the coordinator
     * may still count this node: until {@code ttl - heartbeat / 2} after the last heartbeat that
     * got through. Then admit nothing, because the other nodes may by now have been handed this
     * node's share. When the coordinator answers again, rejoin: raise back to the share as a
     * joining node does. Keeps the fleet under its ceiling; a total coordinator outage longer
     * than the TTL stops the calls.
     */
    FAIL_CLOSED,

    /**
     * Drop the fleet ceiling and run on the local adaptive limit alone until the coordinator
     * answers again; then rejoin: admit nothing more until the share is raised back as a
     * joining node's is, to a claim the coordinator's list finds to fit (the others may have
     * taken this node's room while its report was expired; calls admitted meanwhile drain
     * normally, and count in its claim). Availability over the ceiling: during the outage the
     * fleet may exceed it, by up to the sum of the nodes' local limits.
     */
    LOCAL_ONLY
}
