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
 * @param inflight    the node's calls in flight when it reported, at least 0
 * @param claim       the most calls this node may have in flight until its next report, at
 *                    least {@code inflight}: the fleet's aggregation rule admits a share
 *                    increase only while the live nodes' claims fit under the global ceiling
 * @param reportedAt  the node's wall-clock time of the report
 * @param demand      how many calls the node would have in flight if it could: its in-flight
 *                    count when nothing waits for a slot, {@link #UNBOUNDED_DEMAND} while calls
 *                    wait (a runner that pulls items one slot at a time shows one waiting call
 *                    whatever its backlog, so a waiting call means "more"); at least 0. Shares
 *                    follow it: an idle node's share goes to the nodes with work
 */
public record NodeReport(String nodeId, String incarnation, int localLimit, int inflight, int claim,
                         Instant reportedAt, int demand) {

    /** The demand of a node that has calls waiting for a slot, or that does not say: as much as it can get. */
    public static final int UNBOUNDED_DEMAND = Integer.MAX_VALUE;

    /**
     * Validates.
     * @param nodeId the node's id, unique in the fleet (configured; there is no default)
     * @param incarnation a random id chosen when the node starts; two live reports with the same {@code nodeId} and different incarnations reveal two nodes sharing one id
     * @param localLimit the node's own adaptive limit, at least 1
     * @param inflight the node's calls in flight when it reported, at least 0
     * @param claim the most calls this node may have in flight until its next report, at least {@code inflight}
     * @param reportedAt the node's wall-clock time of the report
     * @param demand the calls the node would have in flight if it could, at least 0
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
        if (inflight < 0) {
            throw new IllegalArgumentException("inflight must be >= 0: " + inflight);
        }
        if (claim < inflight) {
            throw new IllegalArgumentException("claim must be >= inflight (" + inflight + "): " + claim);
        }
        if (demand < 0) {
            throw new IllegalArgumentException("demand must be >= 0: " + demand);
        }
    }

    /**
     * A report that does not say its demand ({@link #UNBOUNDED_DEMAND}): as a report stored by
     * a version of the engine that did not send one reads.
     *
     * @param nodeId      see the record
     * @param incarnation see the record
     * @param localLimit  see the record
     * @param inflight    see the record
     * @param claim       see the record
     * @param reportedAt  see the record
     */
    public NodeReport(String nodeId, String incarnation, int localLimit, int inflight, int claim, Instant reportedAt) {
        this(nodeId, incarnation, localLimit, inflight, claim, reportedAt, UNBOUNDED_DEMAND);
    }

    /**
     * A report whose claim is its in-flight count: for nodes that take part in the ceiling
     * without holding a share of their own.
     *
     * @param nodeId      see the record
     * @param incarnation see the record
     * @param localLimit  see the record
     * @param inflight    see the record; also the claim
     * @param reportedAt  see the record
     */
    public NodeReport(String nodeId, String incarnation, int localLimit, int inflight, Instant reportedAt) {
        this(nodeId, incarnation, localLimit, inflight, inflight, reportedAt);
    }
}
