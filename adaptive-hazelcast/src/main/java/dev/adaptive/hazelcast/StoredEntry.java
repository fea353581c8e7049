package dev.adaptive.hazelcast;

import com.hazelcast.map.ExtendedMapEntry;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * What the entry processors share about the entries they write: how a stored value is read
 * (fields of a later version are ignored, see {@link FleetJson}; text that is not JSON counts
 * as empty: it can only come from something else writing into these maps, and one bad value
 * must not stop the fleet) and how long the map keeps an entry (reports until removed, a pause
 * until it ends).
 */
final class StoredEntry {

    /** Report fields: the {@link dev.adaptive.fleet.NodeReport} record's, and the store's own. */
    static final String NODE_ID = "nodeId";
    static final String INCARNATION = "incarnation";
    static final String LOCAL_LIMIT = "localLimit";
    static final String INFLIGHT = "inflight";
    static final String CLAIM = "claim";
    static final String DEMAND = "demand";
    static final String REPORTED_AT = "reportedAt";
    /** The report's end of life in epoch milliseconds, by the writer's wall clock. */
    static final String EXPIRES_AT = "expiresAt";
    /** The coordinator that wrote it (random per coordinator) and the order of its writes. */
    static final String WRITER = "writer";
    static final String SEQ = "seq";
    /** Pause fields: the {@link dev.adaptive.fleet.FleetPause} record's. */
    static final String ORIGIN = "origin";
    static final String UNTIL = "until";

    /** The longest the map keeps a pause: far beyond any pause worth obeying. */
    private static final long MAX_STORE_SECONDS = Duration.ofDays(3_650).toSeconds();

    private StoredEntry() {
    }

    /** @return the value's elements, or none if it is absent or unreadable */
    static List<FleetJson.Element> elements(String value) {
        if (value == null) {
            return List.of();
        }
        try {
            return FleetJson.parseArray(value);
        } catch (IllegalArgumentException unreadable) {
            return List.of();
        }
    }

    /** @return the value as one object, or {@code null} if it is absent or unreadable */
    static FleetJson.Element object(String value) {
        if (value == null) {
            return null;
        }
        try {
            return FleetJson.parseObject(value);
        } catch (IllegalArgumentException unreadable) {
            return null;
        }
    }

    /**
     * Writes a key's reports with no map TTL: they stay until a leave removes the last of them.
     * Their stamps decide what is live. A map TTL here would not be the reports' own: after a
     * split, Hazelcast's merge keeps the larger side's value of a key both sides hold (the
     * default {@code PutIfAbsentMergePolicy}) but gives it the merging entry's expiration, so a
     * TTL that followed the smaller side's latest stamp would end the larger side's entry, and
     * every live claim in it, early. Written as TTL 0 (none), whatever the map's default.
     */
    static void storeReports(Map.Entry<String, String> entry, String value) {
        if (entry instanceof ExtendedMapEntry<String, String> timed) {
            timed.setValue(value, 0, TimeUnit.SECONDS);
        } else {
            entry.setValue(value);
        }
    }

    /**
     * Writes {@code value} so that the map keeps it at least {@code liveMillis} (a pause, which
     * ends by itself). The map's TTL is a whole second longer, rounded up to whole seconds:
     * Hazelcast keeps expiry times in seconds, and a TTL rounded down could drop a pause before
     * the reader that should still see it.
     */
    static void store(Map.Entry<String, String> entry, String value, long liveMillis) {
        long seconds = liveMillis <= 0 ? 1
                : Math.min(liveMillis / 1_000 + (liveMillis % 1_000 == 0 ? 0 : 1) + 1, MAX_STORE_SECONDS);
        if (entry instanceof ExtendedMapEntry<String, String> timed) {
            timed.setValue(value, seconds, TimeUnit.SECONDS);
        } else {
            entry.setValue(value);
        }
    }
}
