package dev.adaptive.hazelcast;

import com.hazelcast.map.EntryProcessor;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A heartbeat's atomic step on one fleet key's entry (all its reports, one JSON array): drop
 * the reports whose stamped expiry is past, replace this node's report, store, and return the
 * array as it now stands. Runs on the key's partition thread, so no other write to the key
 * comes between this write and this read; the backup replicas run it again with the same
 * fields and reach the same value. The entry has no map TTL ({@link StoredEntry#storeReports}).
 *
 * <p>A report never replaces a later one of the same writer: a heartbeat that the caller gave
 * up on may still land after the next one, and its claim may be lower than what the node has
 * since been granted.
 *
 * <p>Needs only the JDK and Hazelcast on the member that runs it.
 *
 * @param report      this node's report as stored: a JSON object with the fields of
 *                    {@link StoredEntry}
 * @param nodeId      the report's node id
 * @param incarnation the report's incarnation
 * @param writer      the coordinator that wrote it
 * @param seq         its order among that coordinator's writes
 * @param nowMillis   the caller's wall clock: expiry is judged by the node that reads
 */
record HeartbeatProcessor(String report, String nodeId, String incarnation, String writer, long seq,
                          long nowMillis) implements EntryProcessor<String, String, String> {

    private static final long serialVersionUID = 1L;

    @Override
    public String process(Map.Entry<String, String> entry) {
        List<String> kept = new ArrayList<>();
        boolean superseded = false;
        for (FleetJson.Element e : StoredEntry.elements(entry.getValue())) {
            long expiry;
            boolean same;
            boolean later;
            try {
                expiry = e.number(StoredEntry.EXPIRES_AT);
                same = e.string(StoredEntry.NODE_ID).equals(nodeId) && e.string(StoredEntry.INCARNATION).equals(incarnation);
                later = same && writer.equals(e.fields().get(StoredEntry.WRITER)) && e.number(StoredEntry.SEQ, -1) > seq;
            } catch (IllegalArgumentException unreadable) {
                continue;
            }
            if (expiry <= nowMillis || (same && !later)) {
                continue;
            }
            superseded |= later;
            kept.add(e.text());
        }
        if (!superseded) {
            kept.add(report);
        }
        String value = FleetJson.array(kept);
        StoredEntry.storeReports(entry, value);
        return value;
    }
}
