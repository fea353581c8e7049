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
 * @param nodeId    the leaving node, or {@code null} to remove only what has expired
 * @param nowMillis the caller's wall clock
 */
record LeaveProcessor(String nodeId, long nowMillis) implements EntryProcessor<String, String, Void> {

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
                if (expiry > nowMillis && !e.string(StoredEntry.NODE_ID).equals(nodeId)) {
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
