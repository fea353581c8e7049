package dev.adaptive.fleet;

import dev.adaptive.Limiter;
import dev.adaptive.limit.FixedLimit;
import dev.adaptive.time.VirtualTime;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link FleetMember#close()} while a heartbeat's reply is on its way back: the reply must not
 * undo the close. A closed member admits nothing, whatever share the fleet still computes for
 * it, and leaves once its calls have finished.
 */
class FleetCloseRaceTest {

    private static final Duration BEAT = FleetMember.DEFAULT_HEARTBEAT;

    private final VirtualTime time = new VirtualTime();
    private final Clock clock = time.clock(Instant.parse("2030-01-01T00:00:00Z"));
    private final InMemoryCoordinator store = new InMemoryCoordinator(time);
    private final DelayedReplies line = new DelayedReplies(store);
    private final Limiter limiter = Limiter.builder().limit(FixedLimit.of(8)).time(time).build();
    private final List<FleetEvent> events = new ArrayList<>();

    @AfterEach
    void nothingEscapedToTheScheduler() {
        assertThat(time.uncaught()).isEmpty();
    }

    @ParameterizedTest(name = "learnCapacity={0}")
    @ValueSource(booleans = {true, false})
    void aReplyThatArrivesAfterCloseDoesNotRaiseTheCeilingAgain(boolean learn) {
        FleetMember m = FleetMember.builder(limiter, line).key("backend").nodeId("a").clock(clock)
                .learnCapacity(learn).listener(events::add).join();
        time.advance(BEAT.multipliedBy(3));
        // 8 with the even split; 1 with demand-following shares, for an idle node.
        assertThat(m.share()).isPositive();

        line.hold();
        time.advance(BEAT); // the next report is written; its reply is on its way back
        assertThat(line.held()).isEqualTo(1);
        m.close();
        assertThat(limiter.ceiling()).isZero();
        line.release();

        assertThat(limiter.ceiling()).as("ceiling after the late reply").isZero();
        assertThat(limiter.tryAcquire()).as("a closed member admits nothing").isEmpty();
        assertThat(events).filteredOn(e -> e instanceof FleetEvent.ShareChanged s && "raised".equals(s.reason()))
                .as("raises after the close").hasSize(1); // the join's only
        time.advance(BEAT.multipliedBy(2));
        assertThat(m.hasLeft()).isTrue();
        assertThat(store.liveReports("backend")).isEmpty();
        assertThat(limiter.ceiling()).as("ceiling after leaving").isZero();
        assertThat(time.pendingTasks()).as("no timer of the member left").isZero();
    }

    @Test
    void aReplyThatArrivesAfterCloseLeavesTheLimiterCountingNoOtherNodesCalls() {
        Limiter other = Limiter.builder().limit(FixedLimit.of(8)).time(time).build();
        FleetMember.builder(other, store).key("backend").nodeId("b").clock(clock).join();
        FleetMember m = FleetMember.builder(limiter, line).key("backend").nodeId("a").clock(clock).join();
        time.advance(BEAT.multipliedBy(3));
        for (int i = 0; i < 2; i++) {
            other.acquire(); // held: b has 2 calls in flight
        }
        time.advance(BEAT);
        assertThat(limiter.othersInflight()).isEqualTo(2);

        line.hold();
        time.advance(BEAT);
        assertThat(line.held()).isEqualTo(1);
        m.close();
        assertThat(limiter.othersInflight()).isZero();
        line.release();

        assertThat(limiter.othersInflight()).as("others' calls after the late reply").isZero();
        assertThat(limiter.ceiling()).isZero();
    }
}
