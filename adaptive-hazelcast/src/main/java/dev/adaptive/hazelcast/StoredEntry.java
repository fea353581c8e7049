package dev.adaptive.hazelcast;

import com.hazelcast.map.ExtendedMapEntry;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * What the entry processors share about the entries they write: how a stored value is read
 * (unreadable text counts as empty: it can only come from something else writing into these
 * maps, and one bad value must not stop the fleet) and how long the map keeps an entry.
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

    /** The longest the map keeps an entry: far beyond any report's TTL or any pause worth obeying. */
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
     * Writes {@code value} so that the map keeps it at least {@code liveMillis}. The stamped
     * expiries inside the value decide what is live; the map's TTL only clears what nobody
     * removes, so it is a whole second longer, rounded up to whole seconds: Hazelcast keeps
     * expiry times in seconds, and a TTL rounded down could drop a report before the reader
     * that should still see it.
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
