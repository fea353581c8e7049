package dev.adaptive.fleet;

import dev.adaptive.Limiter;
import dev.adaptive.limit.FixedLimit;
import dev.adaptive.time.RejectingScheduler;
import dev.adaptive.time.VirtualTime;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.RejectedExecutionException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The limiter's {@link dev.adaptive.time.Scheduler} is user code, and may refuse a timer (a
 * shut-down executor). One that refuses the member's first timer fails {@code join()}, and a join
 * that fails leaves nothing behind: the limiter as it was, no report in the store, no pause
 * subscription, no pause hook. One that refuses the timer of a report's trusted life, or the
 * next heartbeat, never leaves the node admitting after its report may have expired.
 */
class FleetSchedulerRejectsTest {

    private final VirtualTime time = new VirtualTime();
    private final Clock clock = time.clock(Instant.parse("2030-01-01T00:00:00Z"));
    private final InMemoryCoordinator store = new InMemoryCoordinator(time);
    private final RejectingScheduler scheduler = new RejectingScheduler(time);
    private final Limiter limiter = Limiter.builder().limit(FixedLimit.of(8)).ticker(time).scheduler(scheduler).build();
    private final DelayedReplies line = new DelayedReplies(store);

    /** Even split: an idle node's share is the whole ceiling, so a share kept too long shows. */
    private FleetMember join() {
        return FleetMember.builder(limiter, line).key("backend").nodeId("a").clock(clock).learnCapacity(false).join();
    }

    @AfterEach
    void nothingEscapedToTheScheduler() {
        assertThat(time.uncaught()).isEmpty();
    }

    @Test
    void aJoinWhoseFirstTimerIsRefusedFailsAndLeavesNothingBehind() {
        scheduler.rejecting = true;
        assertThatThrownBy(() -> FleetMember.builder(limiter, store).key("backend").nodeId("a").clock(clock).join())
                .isInstanceOf(RejectedExecutionException.class);
        scheduler.rejecting = false;

        store.publishPause("backend", new FleetPause("b", clock.instant().plusSeconds(5)));
        boolean pausedByTheFleet = limiter.isRatePaused();
        List<FleetPause> relayed = new CopyOnWriteArrayList<>();
        store.subscribePauses("backend", relayed::add);
        relayed.clear(); // the pause published above, told to a late subscriber
        limiter.pauseFor(Duration.ofMinutes(1));

        SoftAssertions.assertSoftly(soft -> {
            soft.assertThat(limiter.ceiling()).as("the limiter's ceiling").isEqualTo(Integer.MAX_VALUE);
            soft.assertThat(store.liveReports("backend")).as("reports in the store").isEmpty();
            soft.assertThat(pausedByTheFleet).as("paused by the fleet after the failed join").isFalse();
            soft.assertThat(relayed).as("the limiter's own pause published after the failed join").isEmpty();
        });
    }

    @Test
    void aReplyWhoseTrustedLifeCannotBeTimedKeepsTheEarlierExpiry() {
        FleetMember m = join();
        time.advance(FleetMember.DEFAULT_HEARTBEAT.multipliedBy(3));
        assertThat(m.share()).isEqualTo(8);

        line.hold();
        time.advance(FleetMember.DEFAULT_HEARTBEAT); // a report goes; its reply is held
        scheduler.rejecting = true;
        line.release(); // the reply arrives while the scheduler refuses
        scheduler.rejecting = false;
        line.hold(); // from now on the coordinator answers nothing

        time.advance(m.ttl().multipliedBy(2));
        assertThat(m.share()).as("share after the last trusted report may have expired").isZero();
        assertThat(limiter.tryAcquire()).as("admits nothing").isEmpty();
    }

    @Test
    void aHeartbeatThatCannotBeScheduledFailsClosedAtOnce() {
        FleetMember m = join();
        time.advance(FleetMember.DEFAULT_HEARTBEAT.multipliedBy(3));
        assertThat(m.share()).isEqualTo(8);

        scheduler.rejecting = true; // a shut-down executor: what it already holds still runs
        time.advance(FleetMember.DEFAULT_HEARTBEAT);

        assertThat(m.share()).as("share once no heartbeat can follow").isZero();
        assertThat(m.stats().listenerFailures()).as("counted").isEqualTo(1);
        scheduler.rejecting = false;
        m.close();
        assertThat(m.hasLeft()).isTrue();
        assertThat(store.liveReports("backend")).isEmpty();
    }

    @Test
    void aTimerWhoseCancelThrowsDoesNotStopTheLeave() {
        FleetMember m = join();
        time.advance(FleetMember.DEFAULT_HEARTBEAT.multipliedBy(3));

        scheduler.cancelThrows = new AssertionError("cancel broke");
        assertThatCode(m::close).as("close()").doesNotThrowAnyException();
        scheduler.cancelThrows = null;

        assertThat(m.hasLeft()).isTrue();
        assertThat(store.liveReports("backend")).as("reports in the store").isEmpty();
        time.advance(FleetMember.DEFAULT_HEARTBEAT.multipliedBy(3)); // the timers that were not cancelled fire, and do nothing
        assertThat(limiter.ceiling()).isZero();
    }
}
