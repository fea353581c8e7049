package dev.adaptive.time;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.util.Objects;

/**
 * The wall-clock view returned by {@link VirtualTime#clock(Instant)}: {@code epoch} plus the
 * virtual time elapsed, read on every call so it follows {@code advance}. Thread-safe.
 */
final class VirtualClock extends Clock {

    private final VirtualTime time;
    private final Instant epoch;
    private final ZoneId zone;

    VirtualClock(VirtualTime time, Instant epoch, ZoneId zone) {
        this.time = Objects.requireNonNull(time, "time");
        this.epoch = Objects.requireNonNull(epoch, "epoch");
        this.zone = Objects.requireNonNull(zone, "zone");
    }

    @Override
    public ZoneId getZone() {
        return zone;
    }

    @Override
    public Clock withZone(ZoneId newZone) {
        return new VirtualClock(time, epoch, newZone);
    }

    @Override
    public Instant instant() {
        return epoch.plus(time.elapsed());
    }

    @Override
    public String toString() {
        return "VirtualClock[epoch=" + epoch + ", zone=" + zone + ", " + time + "]";
    }
}
