package dev.adaptive.hazelcast;

import com.hazelcast.map.EntryProcessor;

import java.time.Instant;
import java.util.Map;

/**
 * Stores a fleet pause under its key unless a pause that ends no earlier is stored already,
 * and keeps it until it ends (then a little longer: see {@link StoredEntry#store}). The store is
 * what relays it: subscribers listen to this entry, so a pause reaches them only once it is
 * stored, and a pause that changes nothing is not relayed again. Needs only the JDK and
 * Hazelcast on the member that runs it.
 *
 * @param pause      the pause as stored: a JSON object with the fields of {@link StoredEntry}
 * @param until      its end
 * @param liveMillis how long it has to run, by the caller's wall clock
 */
record PauseProcessor(String pause, Instant until, long liveMillis) implements EntryProcessor<String, String, Boolean> {

    private static final long serialVersionUID = 1L;

    @Override
    public Boolean process(Map.Entry<String, String> entry) {
        FleetJson.Element stored = StoredEntry.object(entry.getValue());
        if (stored != null) {
            try {
                if (!Instant.parse(stored.string(StoredEntry.UNTIL)).isBefore(until)) {
                    return Boolean.FALSE;
                }
            } catch (RuntimeException unreadable) {
                // replaced below
            }
        }
        StoredEntry.store(entry, pause, liveMillis);
        return Boolean.TRUE;
    }
}
