package dev.adaptive.fleet;

import dev.adaptive.Lease;
import dev.adaptive.Limiter;
import dev.adaptive.limit.FixedLimit;
import dev.adaptive.time.RejectingScheduler;
import dev.adaptive.time.VirtualTime;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.RejectedExecutionException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

/**
 * The limiter's {@link dev.adaptive.time.Scheduler} is user code, and may refuse a timer (a
 * shut-down executor). One that refuses the member's first timer fails {@code join()}, and a join
 * that fails leaves nothing behind: the limiter as it was, no report in the store, no pause
 * subscription, no pause hook. One that refuses the timer of a report's trusted life, or the
 * next heartbeat, never leaves the node admitting after its report may have expired. One that
 * refuses for a while (a saturated executor) costs the member its share for that while only: the
 * next activity that reaches the member (a call that waits, a reply), or, for an idle one, the
 * end of its last report's trusted life, arms the heartbeat again, and the member rejoins by the
 * normal path.
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
    void aMemberWhoseHeartbeatWasRefusedRejoinsOnceTheSchedulerAcceptsAgain() {
        Limiter other = Limiter.builder().name("b").limit(FixedLimit.of(8)).time(time).build();
        FleetMember a = FleetMember.builder(limiter, store).key("backend").nodeId("a").clock(clock).join();
        FleetMember b = FleetMember.builder(other, store).key("backend").nodeId("b").clock(clock).join();
        time.advance(FleetMember.DEFAULT_HEARTBEAT.multipliedBy(3));
        assertThat(a.share()).isPositive();

        // Saturated: the next heartbeat's timer, its try again as the report's trusted life ends,
        // then the first try of the activity below.
        scheduler.refuseNext(3);
        time.advance(a.syncInterval());
        assertThat(a.share()).as("share once no heartbeat can follow").isZero();
        time.advance(a.ttl().multipliedBy(2));
        assertThat(store.liveReports("backend")).extracting(NodeReport::nodeId).as("live reports").containsExactly("b");

        CompletableFuture<Lease> first = limiter.acquire(); // waits: the member tries again, refused
        time.advance(FleetMember.DEFAULT_HEARTBEAT.multipliedBy(3));
        assertThat(first).as("admitted while the scheduler still refused").isNotDone();
        first.cancel(true); // its caller gave up
        CompletableFuture<Lease> second = limiter.acquire(); // the scheduler accepts again
        time.advance(FleetMember.DEFAULT_HEARTBEAT.multipliedBy(3));

        SoftAssertions.assertSoftly(soft -> {
            soft.assertThat(scheduler.refused()).as("timers refused").isEqualTo(3);
            soft.assertThat(second).as("admitted once the scheduler accepts again").isCompleted();
            soft.assertThat(a.share()).as("a's share").isPositive();
            soft.assertThat(a.share() + b.share()).as("shares together").isLessThanOrEqualTo(8);
            soft.assertThat(store.liveReports("backend")).extracting(NodeReport::nodeId).as("live reports")
                    .containsExactlyInAnyOrder("a", "b");
            soft.assertThat(a.stats().listenerFailures()).as("refusals counted").isEqualTo(3);
        });
    }

    /**
     * An idle member (no call made, none waiting, its local limit still) whose next heartbeat's
     * timer the scheduler refused once: nothing reaches it from outside, yet it rejoins on its
     * own, once its last report's trusted life ends, as the scheduler accepts again.
     */
    @ParameterizedTest
    @EnumSource(OutagePolicy.class)
    void anIdleMemberWhoseHeartbeatWasRefusedOnceRejoinsOnItsOwn(OutagePolicy policy) {
        Limiter other = Limiter.builder().name("b").limit(FixedLimit.of(8)).time(time).build();
        FleetMember a = FleetMember.builder(limiter, store).key("backend").nodeId("a").clock(clock).outagePolicy(policy)
                .join();
        FleetMember b = FleetMember.builder(other, store).key("backend").nodeId("b").clock(clock).join();
        time.advance(FleetMember.DEFAULT_HEARTBEAT.multipliedBy(3));
        int before = a.share();
        assertThat(before).isPositive();

        scheduler.refuseNext(1); // saturated for one timer: the next heartbeat's
        time.advance(a.syncInterval());
        assertThat(a.share()).as("share once no heartbeat can follow").isNotEqualTo(before);
        time.advance(a.ttl().multipliedBy(3));

        SoftAssertions.assertSoftly(soft -> {
            soft.assertThat(scheduler.refused()).as("timers refused").isEqualTo(1);
            soft.assertThat(a.share()).as("a's share").isEqualTo(before);
            soft.assertThat(a.share() + b.share()).as("shares together").isLessThanOrEqualTo(8);
            soft.assertThat(store.liveReports("backend")).extracting(NodeReport::nodeId).as("live reports")
                    .containsExactlyInAnyOrder("a", "b");
        });
    }

    @Test
    void aMemberWhoseSchedulerKeepsRefusingAdmitsNothingAndStillLeaves() {
        FleetMember m = FleetMember.builder(limiter, store).key("backend").nodeId("a").clock(clock).join();
        time.advance(FleetMember.DEFAULT_HEARTBEAT.multipliedBy(3));
        assertThat(m.share()).isPositive();

        scheduler.rejecting = true; // shut down for good
        time.advance(m.syncInterval());
        CompletableFuture<Lease> call = limiter.acquire(); // the member tries again, refused
        time.advance(FleetMember.DEFAULT_HEARTBEAT.multipliedBy(5)); // and as its report's trusted life ends

        SoftAssertions.assertSoftly(soft -> {
            soft.assertThat(m.share()).as("share").isZero();
            soft.assertThat(call).as("admitted").isNotDone();
            soft.assertThat(m.stats().listenerFailures()).as("refusals counted").isEqualTo(3);
        });
        call.cancel(true);
        m.close();
        assertThat(m.hasLeft()).isTrue();
        assertThat(store.liveReports("backend")).isEmpty();
    }

    /**
     * A member whose heartbeat the scheduler refused (shut down for good) is closed with a call
     * in flight: no tick and no reply will come. Its report stays, claiming that call, while it
     * runs; the call's release finishes the leave, and the report is gone then, not only at
     * its TTL, as a dead node's.
     */
    @Test
    void aLeavingMemberWhoseHeartbeatWasRefusedLeavesAsItsLastCallEnds() {
        FleetMember m = join();
        time.advance(FleetMember.DEFAULT_HEARTBEAT.multipliedBy(3));
        Lease call = limiter.tryAcquire().orElseThrow();
        time.advance(FleetMember.DEFAULT_HEARTBEAT); // its claim written
        scheduler.rejecting = true; // shut down for good
        time.advance(FleetMember.DEFAULT_HEARTBEAT); // the next heartbeat's timer is refused
        assertThat(m.share()).as("share once no heartbeat can follow").isZero();

        m.close();
        List<NodeReport> whileItRuns = store.liveReports("backend");
        boolean leftWhileItRuns = m.hasLeft();
        call.release();
        boolean leftAtItsEnd = m.hasLeft();
        List<NodeReport> atItsEnd = store.liveReports("backend");
        time.advance(m.ttl().multipliedBy(5));

        SoftAssertions.assertSoftly(soft -> {
            soft.assertThat(whileItRuns).extracting(NodeReport::nodeId, NodeReport::inflight).as("reports while the call runs")
                    .containsExactly(tuple("a", 1));
            soft.assertThat(leftWhileItRuns).as("left while the call runs").isFalse();
            soft.assertThat(leftAtItsEnd).as("left as the call ended").isTrue();
            soft.assertThat(atItsEnd).as("reports as the call ended, within the TTL").isEmpty();
            soft.assertThat(m.hasLeft()).as("left, long after").isTrue();
            soft.assertThat(limiter.ceiling()).as("the ceiling").isZero();
        });
    }

    /**
     * As above, with the member's last heartbeat still on its way as its last call ends (the
     * line hangs): with no tick to give that heartbeat up, the leave does not wait for its reply,
     * which may never come; the failure that comes later changes nothing.
     */
    @Test
    void aLeavingMemberWhoseHeartbeatWasRefusedLeavesAsItsLastCallEndsWithAHeartbeatOnItsWay() {
        SwitchableCoordinator cut = new SwitchableCoordinator(store);
        FleetMember m = FleetMember.builder(limiter, cut).key("backend").nodeId("a").clock(clock).learnCapacity(false)
                .join();
        time.advance(FleetMember.DEFAULT_HEARTBEAT.multipliedBy(3));
        Lease call = limiter.tryAcquire().orElseThrow();
        cut.set(SwitchableCoordinator.Line.HANGING);
        time.advance(FleetMember.DEFAULT_HEARTBEAT); // a heartbeat goes, and hangs
        scheduler.rejecting = true; // shut down for good
        time.advance(FleetMember.DEFAULT_HEARTBEAT); // the tick after it is refused
        assertThat(m.share()).as("share once no heartbeat can follow").isZero();

        m.close();
        call.release();
        boolean leftAtTheCallsEnd = m.hasLeft();
        cut.set(SwitchableCoordinator.Line.UP); // the hung heartbeat fails
        time.advance(m.ttl().multipliedBy(5));

        SoftAssertions.assertSoftly(soft -> {
            soft.assertThat(leftAtTheCallsEnd).as("left as the call ended, a heartbeat on its way").isTrue();
            soft.assertThat(m.hasLeft()).as("left, once that heartbeat failed").isTrue();
            soft.assertThat(store.liveReports("backend")).as("reports").isEmpty();
        });
    }

    /**
     * A member whose heartbeat hangs (a transport without a timeout: no reply, no failure, ever)
     * while the scheduler refuses every timer (shut down for good) is closed with nothing in
     * flight: no tick can give that heartbeat up, and no reply will end it. The leave does not
     * wait for it.
     */
    @Test
    void aLeavingMemberWhoseHeartbeatHangsWhileTheSchedulerRefusesEverythingStillLeaves() {
        SwitchableCoordinator cut = new SwitchableCoordinator(store);
        FleetMember m = FleetMember.builder(limiter, cut).key("backend").nodeId("a").clock(clock).learnCapacity(false)
                .join();
        time.advance(FleetMember.DEFAULT_HEARTBEAT.multipliedBy(3));
        cut.set(SwitchableCoordinator.Line.HANGING);
        time.advance(FleetMember.DEFAULT_HEARTBEAT); // a heartbeat goes, and hangs for good
        scheduler.rejecting = true; // shut down for good
        time.advance(FleetMember.DEFAULT_HEARTBEAT); // the tick after it is refused
        assertThat(m.share()).as("share once no heartbeat can follow").isZero();

        m.close();
        time.advance(m.ttl().multipliedBy(5));

        SoftAssertions.assertSoftly(soft -> {
            soft.assertThat(m.hasLeft()).as("left").isTrue();
            soft.assertThat(store.liveReports("backend")).as("reports").isEmpty();
            soft.assertThat(limiter.ceiling()).as("the ceiling").isZero();
        });
    }

    /**
     * As above, with a call in flight at the close: the leave waits for the call (its report
     * claims it), not for the heartbeat that will never answer; the call's release finishes it.
     */
    @Test
    void aLeavingMemberWhoseHeartbeatHangsWhileTheSchedulerRefusesEverythingLeavesAsItsLastCallEnds() {
        SwitchableCoordinator cut = new SwitchableCoordinator(store);
        FleetMember m = FleetMember.builder(limiter, cut).key("backend").nodeId("a").clock(clock).learnCapacity(false)
                .join();
        time.advance(FleetMember.DEFAULT_HEARTBEAT.multipliedBy(3));
        Lease call = limiter.tryAcquire().orElseThrow();
        time.advance(FleetMember.DEFAULT_HEARTBEAT); // its claim written
        cut.set(SwitchableCoordinator.Line.HANGING);
        time.advance(FleetMember.DEFAULT_HEARTBEAT); // a heartbeat goes, and hangs for good
        scheduler.rejecting = true;
        time.advance(FleetMember.DEFAULT_HEARTBEAT); // the tick after it is refused

        m.close();
        boolean leftWhileItRuns = m.hasLeft();
        call.release();
        boolean leftAtItsEnd = m.hasLeft();
        time.advance(m.ttl().multipliedBy(5));

        SoftAssertions.assertSoftly(soft -> {
            soft.assertThat(leftWhileItRuns).as("left while the call runs").isFalse();
            soft.assertThat(leftAtItsEnd).as("left as the call ended").isTrue();
            soft.assertThat(store.liveReports("backend")).as("reports").isEmpty();
        });
    }

    @Test
    void aRefusedEarlyReportIsCountedByTheMemberAndTheNextSyncCarriesTheNews() {
        FleetMember m = FleetMember.builder(limiter, store).key("backend").nodeId("a").clock(clock).join();
        time.advance(FleetMember.DEFAULT_HEARTBEAT.multipliedBy(3));
        int heartbeatsBefore = (int) m.stats().heartbeats();

        scheduler.refuseNext(1);
        CompletableFuture<Lease> call = limiter.acquire(); // admitted on the idle node's one slot
        CompletableFuture<Lease> waits = limiter.acquire(); // news: its early report is refused
        time.advance(m.syncInterval());

        SoftAssertions.assertSoftly(soft -> {
            soft.assertThat(scheduler.refused()).as("timers refused").isEqualTo(1);
            soft.assertThat(m.stats().listenerFailures()).as("counted by the member").isEqualTo(1);
            soft.assertThat(limiter.stats().listenerFailures()).as("thrown into the limiter's listeners").isZero();
            soft.assertThat(m.stats().heartbeats()).as("heartbeats").isGreaterThan(heartbeatsBefore);
            soft.assertThat(waits).as("the waiting call, after the next sync").isCompleted();
        });
        call.join().release();
        waits.join().release();
    }

    @Test
    void aLocalOnlyMemberWhoseHeartbeatWasRefusedIsKeptInTheFleetByTheNextReply() {
        Limiter other = Limiter.builder().name("b").limit(FixedLimit.of(8)).time(time).build();
        FleetMember a = FleetMember.builder(limiter, line).key("backend").nodeId("a").clock(clock)
                .learnCapacity(false).outagePolicy(OutagePolicy.LOCAL_ONLY).join();
        FleetMember b = FleetMember.builder(other, store).key("backend").nodeId("b").clock(clock)
                .learnCapacity(false).join();
        time.advance(FleetMember.DEFAULT_HEARTBEAT.multipliedBy(3));
        assertThat(a.share()).isEqualTo(4);

        line.hold();
        time.advance(FleetMember.DEFAULT_HEARTBEAT); // a heartbeat goes; its reply is on its way
        scheduler.refuseNext(1);
        time.advance(FleetMember.DEFAULT_HEARTBEAT); // the next one's timer is refused
        assertThat(a.share()).as("share once no heartbeat can follow").isEqualTo(Integer.MAX_VALUE);
        line.release(); // the reply arrives; the scheduler accepts again
        time.advance(FleetMember.DEFAULT_HEARTBEAT.multipliedBy(5));

        SoftAssertions.assertSoftly(soft -> {
            soft.assertThat(store.liveReports("backend")).extracting(NodeReport::nodeId).as("live reports")
                    .containsExactlyInAnyOrder("a", "b");
            soft.assertThat(a.share() + b.share()).as("shares together").isLessThanOrEqualTo(8);
            soft.assertThat(a.share()).as("a's share").isEqualTo(4);
        });
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
