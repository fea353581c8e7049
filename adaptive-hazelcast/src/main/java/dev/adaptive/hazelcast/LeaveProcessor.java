package dev.adaptive.hazelcast;

import com.hazelcast.map.EntryProcessor;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A graceful leave on one fleet key's entry: removes every report of the node (all its
 * incarnations) and those already expired; removes the entry when nothing is left. With no
 * node, only prunes the expired reports. Needs only the JDK and Hazelcast on the member that
 * runs it.
 *
 * <p>A leave never removes a later report of the same writer. Hazelcast goes on with a leave
 * the coordinator gave up on, and it may land after the node has come back through the same
 * coordinator (a new incarnation of the same id: a Camel context stopped and started again):
 * removing that report would hide the node's claim from the others, who could raise into its
 * room while it admits its share. A leave from a member of an earlier version (no writer)
 * removes every report of the node, as before.
 *
 * @param nodeId    the leaving node, or {@code null} to remove only what has expired
 * @param writer    the coordinator that sent the leave, or {@code null}
 * @param seq       the leave's order among that coordinator's writes
 * @param nowMillis the caller's wall clock
 */
record LeaveProcessor(String nodeId, String writer, long seq, long nowMillis)
        implements EntryProcessor<String, String, Void> {

    private static final long serialVersionUID = 1L;

    @Override
    public Void process(Map.Entry<String, String> entry) {
        if (entry.getValue() == null) {
            return null;
        }
        List<String> kept = new ArrayList<>();
        for (FleetJson.Element e : StoredEntry.elements(entry.getValue())) {
            try {
                long expiry = e.number(StoredEntry.EXPIRES_AT);
                boolean leaver = e.string(StoredEntry.NODE_ID).equals(nodeId);
                boolean later = leaver && writer != null && writer.equals(e.fields().get(StoredEntry.WRITER))
                        && e.number(StoredEntry.SEQ, -1) > seq;
                if (expiry > nowMillis && (!leaver || later)) {
                    kept.add(e.text());
                }
            } catch (IllegalArgumentException unreadable) {
                // dropped with the leaver
            }
        }
        if (kept.isEmpty()) {
            entry.setValue(null);
        } else {
            StoredEntry.storeReports(entry, FleetJson.array(kept));
        }
        return null;
    }
}
