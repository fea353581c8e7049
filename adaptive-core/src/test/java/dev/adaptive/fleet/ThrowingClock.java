package dev.adaptive.fleet;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** A wall clock for tests that throws {@code broken} at its next reading once armed. */
final class ThrowingClock extends Clock {
    private final Clock delegate;
    private final RuntimeException broken;
    volatile boolean throwOnce;

    ThrowingClock(Clock delegate, RuntimeException broken) {
        this.delegate = delegate;
        this.broken = broken;
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return this;
    }

    @Override
    public Instant instant() {
        if (throwOnce) {
            throwOnce = false;
            throw broken;
        }
        return delegate.instant();
    }
}
