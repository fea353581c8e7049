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
 *   <li><b>Shares follow demand</b>: {@code G} is filled like water over the live nodes,
 *       ordered by node id then incarnation: each node gets at most its
 *       {@linkplain NodeReport#demand() demand}, but at least one slot (while {@code G >= N}),
 *       and what a node does not need goes to the others in equal parts, the first in order
 *       taking the remainder. With every node busy this is the even split; a node that is idle
 *       keeps one slot, so that it can start at once when work comes, and its room goes to the
 *       nodes with work. What no node needs stays free: the first node whose work grows takes
 *       it at its next report, without waiting for the others to give it back (parked on idle
 *       nodes, it would come back only at their reports). With every node's demand unbounded
 *       (or unreported) this is the even split of {@code G}. The shares sum to at most
 *       {@code G}; when {@code G < N}, {@code G} nodes get one slot and the others 0: first the
 *       nodes with work (a demand above 0), in order, then the idle ones.</li>
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
        int rank = rankOf(nodeId, incarnation);
        return rank < 0 ? -1 : shares()[rank];
    }

    /**
     * @param nodeId      the node
     * @param incarnation its incarnation
     * @return its place in the rule's order (0 first), or -1 if it is not among the live ones
     */
    int rankOf(String nodeId, String incarnation) {
        for (int rank = 0; rank < nodes.size(); rank++) {
            NodeReport r = nodes.get(rank);
            if (r.nodeId().equals(nodeId) && r.incarnation().equals(incarnation)) {
                return rank;
            }
        }
        return -1;
    }

    /** @return every live node's share, in the rule's order */
    public int[] shares() {
        int n = nodes.size();
        int[] shares = new int[n];
        if (n == 0) {
            return shares;
        }
        if (globalCeiling < n) {
            // Fewer slots than nodes: one each to the nodes with work first, in order, then to the
            // idle ones. By order alone, idle nodes ahead of a busy one could hold every slot while
            // it waited for ever (a fleet on one FixedLimit below its node count never grows G).
            int given = 0;
            for (int pass = 0; pass < 2 && given < globalCeiling; pass++) {
                for (int i = 0; i < n && given < globalCeiling; i++) {
                    if (shares[i] == 0 && (pass == 1 || nodes.get(i).demand() > 0)) {
                        shares[i] = 1;
                        given++;
                    }
                }
            }
            return shares;
        }
        // Water-filling: the least demanding nodes are served first, each to min(demand, the
        // equal part of what is left); ties keep the rule's order, so the first take the remainder.
        Integer[] byDemand = new Integer[n];
        for (int i = 0; i < n; i++) {
            byDemand[i] = i;
        }
        Arrays.sort(byDemand, Comparator.comparingInt((Integer i) -> want(nodes.get(i))).thenComparingInt(i -> i));
        long left = globalCeiling;
        int served = 0;
        while (served < n) {
            int rest = n - served;
            long part = left / rest;
            int next = byDemand[served];
            if (want(nodes.get(next)) <= part) {
                shares[next] = want(nodes.get(next));
                left -= shares[next];
                served++;
                continue;
            }
            // Everyone left wants more than an equal part: split what is left evenly, in order.
            int[] unserved = new int[rest];
            for (int j = 0; j < rest; j++) {
                unserved[j] = byDemand[served + j];
            }
            Arrays.sort(unserved);
            long extra = left % rest;
            for (int j = 0; j < rest; j++) {
                shares[unserved[j]] = (int) (part + (j < extra ? 1 : 0));
            }
            break;
        }
        return shares;
    }

    /** At least one slot, so that an idle node can start at once; a demand beyond it is a wish for more. */
    private static int want(NodeReport r) {
        return Math.max(1, r.demand());
    }
}
