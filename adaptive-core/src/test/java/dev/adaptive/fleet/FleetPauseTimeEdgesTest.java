package dev.adaptive.fleet;

import dev.adaptive.Limiter;
import dev.adaptive.limit.FixedLimit;
import dev.adaptive.time.VirtualTime;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A fleet pause converted to a ticker whose readings lie near the end of a {@code long}: the
 * conversion saturates instead of wrapping, so the pause is applied, capped, and ends.
 */
class FleetPauseTimeEdgesTest {

    @Test
    void aFleetPauseReceivedNearTheEndOfTheTickersRangeIsAppliedAndEnds() {
        VirtualTime time = new VirtualTime(Long.MAX_VALUE - Duration.ofMinutes(1).toNanos());
        Clock clock = time.clock(Instant.parse("2030-01-01T00:00:00Z"));
        InMemoryCoordinator store = new InMemoryCoordinator(time);
        Limiter limiter = Limiter.builder().limit(FixedLimit.of(4)).time(time).build();
        FleetMember member = FleetMember.builder(limiter, store).key("backend").nodeId("a").clock(clock).join();
        store.publishPause("backend", new FleetPause("b", clock.instant().plus(Duration.ofMinutes(5))));
        assertThat(limiter.isRatePaused()).isTrue();
        assertThat(limiter.pausedUntilNanos()).isEqualTo(Long.MAX_VALUE);
        assertThat(member.stats().pausesReceived()).isEqualTo(1);
        // Leave first: a heartbeat due at the very last instant would be due there for ever.
        member.close();
        time.advanceTo(Long.MAX_VALUE);
        assertThat(limiter.isRatePaused()).isFalse();
    }
}
