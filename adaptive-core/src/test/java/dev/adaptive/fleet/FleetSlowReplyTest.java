package dev.adaptive.fleet;

import dev.adaptive.Limiter;
import dev.adaptive.limit.FixedLimit;
import dev.adaptive.time.VirtualTime;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A coordinator whose replies take a while (a cluster under load, a sync interval set close to
 * its latency): a sync that finds the last report still on its way looks again at the next sync,
 * so a busy node keeps reporting at the pace of its sync interval, not of its heartbeat.
 */
class FleetSlowReplyTest {

    private static final Duration BEAT = FleetMember.DEFAULT_HEARTBEAT;

    private final VirtualTime time = new VirtualTime();
    private final Clock clock = time.clock(Instant.parse("2030-01-01T00:00:00Z"));
    private final DelayedReplies line = new DelayedReplies(new InMemoryCoordinator(time));

    @AfterEach
    void nothingEscapedToTheScheduler() {
        assertThat(time.uncaught()).isEmpty();
    }

    @Test
    void aBusyNodeWhoseRepliesTakeLongerThanASyncStillReportsAtTheSyncsPace() {
        Limiter limiter = Limiter.builder().limit(FixedLimit.of(8)).time(time).build();
        FleetMember m = FleetMember.builder(limiter, line).key("backend").nodeId("a").clock(clock).join();
        assertThat(m.syncInterval()).isEqualTo(Duration.ofMillis(100));
        time.advance(BEAT);
        limiter.acquire();
        limiter.acquire(); // busy: two calls in flight, held
        time.advance(BEAT);
        assertThat(limiter.inflight()).isEqualTo(2);

        // Each reply arrives 150 ms after its report: the sync 100 ms after a report finds it on
        // its way, and the next sync, 200 ms after it, sends the next one.
        line.lag(time, Duration.ofMillis(150));
        int before = line.heartbeats();
        time.advance(Duration.ofSeconds(5));

        assertThat(line.heartbeats() - before).as("reports in 5 s").isGreaterThanOrEqualTo(20);
        assertThat(m.stats().heartbeatFailures()).as("a reply within the heartbeat is no outage").isZero();
        assertThat(m.stats().coordinatorUp()).isTrue();
    }

    @Test
    void aSyncThatFindsAnEarlyReportOnItsWayDoesNotStopTheSyncsForAHeartbeat() {
        Limiter limiter = Limiter.builder().limit(FixedLimit.of(8)).time(time).build();
        FleetMember m = FleetMember.builder(limiter, line).key("backend").nodeId("a").clock(clock).join();
        limiter.acquire(); // held: a busy node with a demand of 1, whose share is 1
        time.advance(BEAT); // syncs at 100 ms, 200 ms, ... 1 s
        assertThat(m.share()).isEqualTo(1);

        // Replies take 5 ms. 2 ms before the next sync a call begins to wait: the node reports
        // at once, and that early report is still on its way when the sync comes.
        time.advance(Duration.ofMillis(98));
        line.lag(time, Duration.ofMillis(5));
        int before = line.heartbeats();
        limiter.acquire();
        time.advance(Duration.ofMillis(900));

        assertThat(limiter.inflight()).as("the waiting call got its room").isEqualTo(2);
        assertThat(line.heartbeats() - before).as("reports in the 900 ms after the early one").isGreaterThanOrEqualTo(9);
    }
}
