package dev.adaptive.hazelcast;

import dev.adaptive.fleet.FleetPause;
import dev.adaptive.fleet.NodeReport;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import static dev.adaptive.hazelcast.StoredEntry.CLAIM;
import static dev.adaptive.hazelcast.StoredEntry.DEMAND;
import static dev.adaptive.hazelcast.StoredEntry.EXPIRES_AT;
import static dev.adaptive.hazelcast.StoredEntry.INCARNATION;
import static dev.adaptive.hazelcast.StoredEntry.INFLIGHT;
import static dev.adaptive.hazelcast.StoredEntry.LOCAL_LIMIT;
import static dev.adaptive.hazelcast.StoredEntry.NODE_ID;
import static dev.adaptive.hazelcast.StoredEntry.ORIGIN;
import static dev.adaptive.hazelcast.StoredEntry.REPORTED_AT;
import static dev.adaptive.hazelcast.StoredEntry.SEQ;
import static dev.adaptive.hazelcast.StoredEntry.UNTIL;
import static dev.adaptive.hazelcast.StoredEntry.WRITER;

/**
 * {@link NodeReport}s and {@link FleetPause}s to and from the JSON the maps hold. What does
 * not read as one is skipped, never fatal.
 */
final class ReportCodec {

    private static final Comparator<NodeReport> ORDER =
            Comparator.comparing(NodeReport::nodeId).thenComparing(NodeReport::incarnation);

    private ReportCodec() {
    }

    static String encode(NodeReport r, long expiresAtMillis, String writer, long seq) {
        return FleetJson.object(NODE_ID, r.nodeId(), INCARNATION, r.incarnation(), LOCAL_LIMIT, r.localLimit(),
                INFLIGHT, r.inflight(), CLAIM, r.claim(), DEMAND, r.demand(), REPORTED_AT, r.reportedAt().toString(),
                EXPIRES_AT, expiresAtMillis, WRITER, writer, SEQ, seq);
    }

    static String encode(FleetPause p) {
        return FleetJson.object(ORIGIN, p.originNodeId(), UNTIL, p.until().toString());
    }

    /** @return the reports of a stored array that are live at {@code nowMillis}, in the fleet's order */
    static List<NodeReport> live(String array, long nowMillis) {
        List<NodeReport> out = new ArrayList<>();
        for (FleetJson.Element e : StoredEntry.elements(array)) {
            try {
                if (e.number(EXPIRES_AT) <= nowMillis) {
                    continue;
                }
                int inflight = Math.toIntExact(e.number(INFLIGHT));
                out.add(new NodeReport(e.string(NODE_ID), e.string(INCARNATION), Math.toIntExact(e.number(LOCAL_LIMIT)),
                        inflight, Math.toIntExact(e.number(CLAIM, inflight)), Instant.parse(e.string(REPORTED_AT)),
                        Math.toIntExact(e.number(DEMAND, NodeReport.UNBOUNDED_DEMAND))));
            } catch (RuntimeException unreadable) {
                // skipped: not a report this version can read
            }
        }
        out.sort(ORDER);
        return List.copyOf(out);
    }

    /** @return the pause, or {@code null} if absent or unreadable */
    static FleetPause pause(String json) {
        FleetJson.Element e = StoredEntry.object(json);
        if (e == null) {
            return null;
        }
        try {
            return new FleetPause(e.string(ORIGIN), Instant.parse(e.string(UNTIL)));
        } catch (RuntimeException unreadable) {
            return null;
        }
    }
}
