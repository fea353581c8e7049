package dev.adaptive.fleet;

import java.time.Instant;
import java.util.Objects;

/**
 * A Retry-After pause shared by the fleet.
 *
 * @param originNodeId the node that saw the rate limit
 * @param until        the wall-clock instant until which no node may dispatch
 */
public record FleetPause(String originNodeId, Instant until) {

    /**
     * Validates.
     * @param originNodeId the node that saw the rate limit
     * @param until the wall-clock instant until which no node may dispatch
     */
    public FleetPause {
        Objects.requireNonNull(originNodeId, "originNodeId");
        Objects.requireNonNull(until, "until");
    }
}
