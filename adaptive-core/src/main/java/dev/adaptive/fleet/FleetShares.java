package dev.adaptive.fleet;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

/**
 * The fleet's aggregation rule, applied to one heartbeat's live reports. Every node computes
 * it from the list the coordinator returned, so nodes that see the same list agree on every
 * share without talking to each other.
 *
 * <ol>
 *   <li><b>Global ceiling</b> {@code G}: the upper median of the live nodes' local limits, that
 *       is the largest value that at least half of them reach. Each node's adaptive limit
 *       reacts to the one backend's latency and errors, which the whole fleet causes, so each
 *       is an estimate of what the backend takes in total; the median ignores a node that
 *       just started at its initial limit and a node whose estimate ran away. With the same
 *       {@link dev.adaptive.limit.FixedLimit} on every node, {@code G} is that limit: a
 *       contractual fleet-wide cap.</li>
 *   <li><b>Shares</b>: {@code G} split evenly over the live nodes, ordered by node id then
 *       incarnation; the first {@code G mod N} get one more. The shares sum to exactly
 *       {@code G}; when {@code G < N} some shares are 0.</li>
 *   <li><b>Claims</b>: each report carries the most its node may have in flight until its next
 *       report. A node may raise its ceiling only to a value it has already published as its
 *       claim, and only if, in the list its heartbeat returned, the claims sum to at most
 *       {@code G} ({@link #fits()}). Lowering needs no check.</li>
 * </ol>
 *
 * <p>Immutable and thread-safe.
 *
 * @param globalCeiling {@code G}; 0 only when no node is live
 * @param nodes         the live reports, ordered by node id then incarnation
 * @param claimed       the sum of their claims
 */
record FleetShares(int globalCeiling, List<NodeReport> nodes, long claimed) {

    private static final Comparator<NodeReport> ORDER =
            Comparator.comparing(NodeReport::nodeId).thenComparing(NodeReport::incarnation);

    /**
     * Copies and checks.
     *
     * @param globalCeiling {@code G}, at least 0
     * @param nodes         the live reports, in the rule's order
     * @param claimed       the sum of their claims
     */
    public FleetShares {
        nodes = List.copyOf(nodes);
        if (globalCeiling < 0) {
            throw new IllegalArgumentException("globalCeiling must be >= 0: " + globalCeiling);
        }
    }

    /**
     * Applies the rule.
     *
     * @param live the live reports of one key, in any order; for one ({@code nodeId},
     *             {@code incarnation}) only the last is kept
     * @return the ceiling, the order and the claimed total
     */
    static FleetShares of(List<NodeReport> live) {
        Objects.requireNonNull(live, "live");
        List<NodeReport> nodes = new ArrayList<>(live.size());
        for (NodeReport r : live) {
            Objects.requireNonNull(r, "report");
            nodes.removeIf(n -> n.nodeId().equals(r.nodeId()) && n.incarnation().equals(r.incarnation()));
            nodes.add(r);
        }
        nodes.sort(ORDER);
        int[] limits = new int[nodes.size()];
        long claimed = 0;
        for (int i = 0; i < limits.length; i++) {
            limits[i] = nodes.get(i).localLimit();
            claimed += nodes.get(i).claim();
        }
        Arrays.sort(limits);
        int ceiling = limits.length == 0 ? 0 : limits[limits.length / 2];
        return new FleetShares(ceiling, nodes, claimed);
    }

    /** @return the number of live nodes */
    int liveNodes() {
        return nodes.size();
    }

    /** @return whether the live nodes' claims sum to at most the global ceiling */
    boolean fits() {
        return claimed <= globalCeiling;
    }

    /**
     * @param nodeId      the node
     * @param incarnation its incarnation
     * @return its share, or -1 if that node is not among the live ones
     */
    int shareOf(String nodeId, String incarnation) {
        int n = nodes.size();
        for (int rank = 0; rank < n; rank++) {
            NodeReport r = nodes.get(rank);
            if (r.nodeId().equals(nodeId) && r.incarnation().equals(incarnation)) {
                return globalCeiling / n + (rank < globalCeiling % n ? 1 : 0);
            }
        }
        return -1;
    }
}
