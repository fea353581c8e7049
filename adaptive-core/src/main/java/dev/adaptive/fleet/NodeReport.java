package dev.adaptive.fleet;

import java.time.Instant;
import java.util.Objects;

/**
 * What one node tells the fleet in a heartbeat.
 *
 * @param nodeId      the node's id, unique in the fleet (configured; there is no default)
 * @param incarnation a random id chosen when the node starts; two live reports with the same
 *                    {@code nodeId} and different incarnations reveal two nodes sharing one id
 * @param localLimit  the node's own adaptive limit, at least 1
 * @param inflight    the node's calls in flight when it reported
 * @param reportedAt  the node's wall-clock time of the report
 */
public record NodeReport(String nodeId, String incarnation, int localLimit, int inflight, Instant reportedAt) {

    /**
     * Validates.
     * @param nodeId the node's id, unique in the fleet (configured; there is no default)
     * @param incarnation a random id chosen when the node starts; two live reports with the same {@code nodeId} and different incarnations reveal two nodes sharing one id
     * @param localLimit the node's own adaptive limit, at least 1
     * @param inflight the node's calls in flight when it reported
     * @param reportedAt the node's wall-clock time of the report
     */
    public NodeReport {
        Objects.requireNonNull(nodeId, "nodeId");
        Objects.requireNonNull(incarnation, "incarnation");
        Objects.requireNonNull(reportedAt, "reportedAt");
        if (nodeId.isBlank()) {
            throw new IllegalArgumentException("nodeId must not be blank: '" + nodeId + "'");
        }
        if (localLimit < 1) {
            throw new IllegalArgumentException("localLimit must be >= 1: " + localLimit);
        }
    }
}
