package dev.adaptive.fleet;

import dev.adaptive.Limiter;
import dev.adaptive.limit.FixedLimit;
import dev.adaptive.time.TrapTicker;
import dev.adaptive.time.VirtualTime;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

/**
 * The {@link dev.adaptive.time.Ticker} (the limiter's) and the {@link Clock} a member reads are
 * user code: one that throws once inside the member's own timers and lifecycle must cost that
 * one reading, not the member's heartbeats for good, nor its fail-closed expiry, nor its leave.
 * Each trap throws at the next reading made inside the named method of the member.
 */
class FleetThrowingTimeTest {

    private static final Duration BEAT = FleetMember.DEFAULT_HEARTBEAT;

    private final VirtualTime time = new VirtualTime();
    private final Clock clock = time.clock(Instant.parse("2030-01-01T00:00:00Z"));
    private final InMemoryCoordinator store = new InMemoryCoordinator(time);
    private final SwitchableCoordinator line = new SwitchableCoordinator(store);
    private final IllegalStateException broken = new IllegalStateException("broken clock");

    @AfterEach
    void nothingEscapedToTheScheduler() {
        assertThat(time.uncaught()).isEmpty();
    }

    private Limiter limiter(TrapTicker ticker) {
        return Limiter.builder().limit(FixedLimit.of(8)).ticker(ticker).scheduler(time).build();
    }

    /** Even split: an idle node's share is the whole ceiling, so a lost share shows. */
    private FleetMember join(Limiter limiter, Clock clock) {
        return FleetMember.builder(limiter, line).key("backend").nodeId("a").clock(clock).learnCapacity(false).join();
    }

    private void armThrow(TrapTicker ticker) {
        ticker.arm(() -> {
            throw broken;
        });
    }

    @Test
    void aTickerThrowingAtAHeartbeatsTickCostsThatTickOnly() {
        TrapTicker ticker = new TrapTicker(time, "tick");
        Limiter limiter = limiter(ticker);
        FleetMember m = join(limiter, clock);
        time.advance(BEAT.multipliedBy(3));
        assertThat(m.share()).isEqualTo(8);
        long before = m.stats().heartbeats();

        armThrow(ticker);
        time.advance(BEAT.multipliedBy(5));

        assertThat(ticker.sprung()).isTrue();
        assertThat(m.stats().heartbeats()).as("heartbeats after the throw").isGreaterThanOrEqualTo(before + 4);
        assertThat(m.share()).as("share").isEqualTo(8);
        assertThat(m.stats().listenerFailures()).as("counted").isEqualTo(1);
    }

    @Test
    void aTickerThrowingAtATickWhileAHeartbeatIsPendingCostsThatTickOnly() {
        TrapTicker ticker = new TrapTicker(time, "tick");
        Limiter limiter = limiter(ticker);
        FleetMember m = join(limiter, clock);
        time.advance(BEAT.multipliedBy(3));

        line.set(SwitchableCoordinator.Line.HANGING);
        time.advance(BEAT); // a heartbeat goes and hangs
        armThrow(ticker);
        time.advance(BEAT); // the tick that would count it an outage
        assertThat(ticker.sprung()).isTrue();
        line.set(SwitchableCoordinator.Line.UP);
        long before = m.stats().heartbeats();
        time.advance(BEAT.multipliedBy(5));

        assertThat(m.stats().heartbeats()).as("heartbeats once the line is back").isGreaterThan(before);
        assertThat(m.stats().coordinatorUp()).isTrue();
        assertThat(m.share()).as("share").isEqualTo(8);
    }

    @Test
    void aTickerThrowingAsAnEarlyReportIsPreparedIsNoOutage() {
        TrapTicker ticker = new TrapTicker(time, "sendEarlyReport");
        Limiter limiter = limiter(ticker);
        // Demand-following shares: an idle node holds one slot, and work that begins to wait
        // is reported at once, by an early report.
        FleetMember m = FleetMember.builder(limiter, line).key("backend").nodeId("a").clock(clock).join();
        time.advance(BEAT.multipliedBy(3));
        assertThat(m.share()).isEqualTo(1);

        armThrow(ticker);
        limiter.acquire();
        limiter.acquire(); // waits: news for the fleet
        time.advance(BEAT.multipliedBy(4));

        assertThat(ticker.sprung()).isTrue();
        assertThat(m.stats().coordinatorUp()).as("coordinator up").isTrue();
        assertThat(m.stats().heartbeatFailures()).as("heartbeat failures").isZero();
        assertThat(limiter.inflight()).as("in flight: the waiting call got its slot").isEqualTo(2);
        assertThat(m.share()).as("share").isEqualTo(2);
        assertThat(m.stats().listenerFailures()).as("counted").isEqualTo(1);
    }

    @Test
    void aClockThrowingWhileAHeartbeatIsPreparedIsNoOutage() {
        TrapTicker ticker = new TrapTicker(time, "none");
        Limiter limiter = limiter(ticker);
        ThrowingClock wall = new ThrowingClock(clock, broken);
        FleetMember m = join(limiter, wall);
        time.advance(BEAT.multipliedBy(3));

        wall.throwOnce = true;
        time.advance(BEAT.multipliedBy(4));

        assertThat(wall.throwOnce).isFalse();
        assertThat(m.stats().coordinatorUp()).as("coordinator up").isTrue();
        assertThat(m.stats().heartbeatFailures()).as("heartbeat failures").isZero();
        assertThat(m.share()).as("share").isEqualTo(8);
        assertThat(m.stats().listenerFailures()).as("counted").isEqualTo(1);
    }

    @Test
    void aTickerThrowingAtTheExpiryStillFailsClosed() {
        TrapTicker ticker = new TrapTicker(time, "expire");
        Limiter limiter = limiter(ticker);
        FleetMember m = join(limiter, clock);
        time.advance(BEAT.multipliedBy(3));
        assertThat(m.share()).isEqualTo(8);

        line.set(SwitchableCoordinator.Line.FAILING);
        armThrow(ticker);
        time.advance(m.ttl());

        assertThat(ticker.sprung()).isTrue();
        assertThat(m.share()).as("share once the last report may have expired").isZero();
        assertThat(limiter.tryAcquire()).as("admits nothing").isEmpty();
    }

    @Test
    void aTickerThrowingInCloseStillLeaves() {
        TrapTicker ticker = new TrapTicker(time, "close");
        Limiter limiter = limiter(ticker);
        FleetMember m = join(limiter, clock);
        time.advance(BEAT.multipliedBy(3));

        armThrow(ticker);
        assertThatCode(m::close).as("close()").doesNotThrowAnyException();

        assertThat(ticker.sprung()).isTrue();
        assertThat(m.hasLeft()).isTrue();
        assertThat(limiter.ceiling()).isZero();
        assertThat(store.liveReports("backend")).isEmpty();
        limiter.pauseFor(Duration.ofSeconds(5));
        assertThat(m.stats().pausesPublished()).as("pauses published after close").isZero();
        time.advance(Duration.ofSeconds(10));
        assertThat(time.pendingTasks()).as("no timer of the member left").isZero();
    }
}
