package dev.adaptive.fleet;

import dev.adaptive.Lease;
import dev.adaptive.Limiter;
import dev.adaptive.limit.Outcome;
import dev.adaptive.limit.FixedLimit;
import dev.adaptive.time.VirtualTime;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The fleet member with the even-split rules ({@link FleetMember.Builder#learnCapacity(boolean)}
 * off, which {@link FleetSim} uses unless told otherwise): joins, drains, deaths, leaves, the
 * falling ceiling, outage policies, pauses and duplicate ids. The rules that learn the capacity
 * are {@link FleetLearningTest}'s; the ceiling under both, {@link FleetCeilingPropertyTest}'s.
 */
class FleetMemberTest {

    private static final Duration BEAT = FleetMember.DEFAULT_HEARTBEAT;

    private final FleetSim sim = new FleetSim();

    @AfterEach
    void noTaskFailedAndNoAdmissionBrokeTheCeiling() {
        assertThat(sim.time.uncaught()).isEmpty();
        assertThat(sim.violations).isEmpty();
    }

    @Test
    void everyNodeGetsAnEvenSplitOfTheCeilingAtJoin() {
        sim.ceiling = 30;
        FleetSim.Node a = sim.node("a", 30).join();
        assertThat(a.limit()).isEqualTo(30);
        FleetSim.Node b = sim.node("b", 30).join();
        // a still holds its claim of 30 until its next heartbeat gives room back.
        assertThat(b.limit()).isZero();
        sim.advance(BEAT);
        assertThat(a.limit()).isEqualTo(15);
        assertThat(b.limit()).isEqualTo(15);
        FleetSim.Node c = sim.node("c", 30).join();
        sim.advance(BEAT.multipliedBy(2));
        assertThat(List.of(a.limit(), b.limit(), c.limit())).containsExactly(10, 10, 10);
        assertThat(c.member.stats()).satisfies(s -> {
            assertThat(s.globalCeiling()).isEqualTo(30);
            assertThat(s.liveNodes()).isEqualTo(3);
            assertThat(s.coordinatorUp()).isTrue();
            assertThat(s.duplicateNodeId()).isFalse();
        });
    }

    @Test
    void effectiveLimitIsTheSmallerOfShareAndLocalLimit() {
        FleetSim.Node a = sim.node("a", 10).join();
        FleetSim.Node b = sim.node("b", 20).join();
        FleetSim.Node c = sim.node("c", 40).join();
        sim.advance(BEAT.multipliedBy(3));
        // G = upper median of {10, 20, 40} = 20; shares 7, 7, 6 by node order.
        assertThat(c.member.stats().globalCeiling()).isEqualTo(20);
        assertThat(List.of(a.member.share(), b.member.share(), c.member.share())).containsExactly(7, 7, 6);
        assertThat(List.of(a.limit(), b.limit(), c.limit())).containsExactly(7, 7, 6);
        a.limiter.ceiling(Integer.MAX_VALUE); // only to show the local bound on its own
        assertThat(a.limiter.localLimit()).isEqualTo(10);
    }

    @Test
    void aJoiningNodeGetsNothingUntilTheShrinkingNodesHaveDrained() {
        sim.ceiling = 30;
        FleetSim.Node a = sim.node("a", 30).join();
        FleetSim.Node b = sim.node("b", 30).join();
        sim.advance(BEAT);
        a.hold(20);
        b.hold(20);
        assertThat(sim.totalInflight()).isEqualTo(30);
        FleetSim.Node c = sim.node("c", 30).join();
        c.hold(10);
        sim.advance(BEAT);
        // a and b now have a share of 10 but 15 calls each in flight; c may not start one.
        assertThat(a.limit()).isEqualTo(10);
        assertThat(b.limit()).isEqualTo(10);
        assertThat(c.limiter.inflight()).isZero();
        a.release(5);
        sim.advance(BEAT.multipliedBy(2));
        // a's 5 freed slots went nowhere: its queued calls wait under its new share of 10.
        assertThat(a.limiter.inflight()).isEqualTo(10);
        assertThat(c.limiter.inflight()).isZero();
        b.release(5);
        sim.advance(BEAT.multipliedBy(2));
        assertThat(c.limiter.inflight()).isEqualTo(10);
        assertThat(sim.totalInflight()).isEqualTo(30);
        assertThat(c.events(FleetEvent.ShareChanged.class)).extracting(FleetEvent.ShareChanged::reason)
                .containsExactly("raised");
    }

    @Test
    void whenTheCeilingFallsNobodyGrowsUntilTheClaimsFitUnderTheNewOne() {
        FleetSim.Node a = sim.node("a", 10).join();
        FleetSim.Node b = sim.node("b", 10).join();
        FleetSim.Node c = sim.node("c", 40).join();
        FleetSim.Node d = sim.node("d", 40).join();
        sim.advance(BEAT.multipliedBy(3));
        assertThat(c.member.stats().globalCeiling()).isEqualTo(40); // upper median of {10, 10, 40, 40}
        assertThat(List.of(a.limit(), b.limit(), c.limit(), d.limit())).containsExactly(10, 10, 10, 10);
        a.hold(10);
        b.hold(10);
        c.member.close();
        d.member.close();
        sim.advance(BEAT);
        // The two optimists left: G falls to 10, and a and b hold twice that between them.
        assertThat(a.member.stats().globalCeiling()).isEqualTo(10);
        assertThat(List.of(a.limit(), b.limit())).containsExactly(5, 5);
        sim.ceiling = 10; // from here on, every admission must fit under the new ceiling
        FleetSim.Node e = sim.node("e", 40).join();
        e.hold(10);
        sim.advance(BEAT.multipliedBy(2));
        assertThat(e.member.stats().globalCeiling()).isEqualTo(10);
        assertThat(e.limiter.inflight()).isZero();
        a.release(10);
        b.release(6);
        sim.advance(BEAT.multipliedBy(2));
        // Shares 4, 3, 3: b still has 4 calls out, over its 3, so e waits for one more.
        assertThat(List.of(a.limit(), b.limit())).containsExactly(4, 3);
        assertThat(e.limiter.inflight()).isZero();
        b.release(1);
        sim.advance(BEAT.multipliedBy(2));
        assertThat(e.limiter.inflight()).isEqualTo(3);
        assertThat(sim.totalInflight()).isEqualTo(6);
    }

    @Test
    void aDeadNodesShareReturnsToTheOthersAfterItsTtl() {
        sim.ceiling = 30;
        FleetSim.Node a = sim.node("a", 30).join();
        FleetSim.Node b = sim.node("b", 30).join();
        FleetSim.Node c = sim.node("c", 30).join();
        sim.advance(BEAT.multipliedBy(3));
        a.call(1000, Duration.ofMillis(50));
        b.call(1000, Duration.ofMillis(50));
        sim.advance(Duration.ofMillis(300));
        c.crash();
        long crashedAt = sim.time.nanoTime();
        // The store keeps c's report for its TTL (2 s) after c's last heartbeat: a and b wait.
        sim.advance(Duration.ofMillis(1500));
        assertThat(a.limit()).isEqualTo(10);
        assertThat(b.limit()).isEqualTo(10);
        sim.advance(BEAT.multipliedBy(2));
        assertThat(a.limit()).isEqualTo(15);
        assertThat(b.limit()).isEqualTo(15);
        long raisedAt = a.events(FleetEvent.ShareChanged.class).stream()
                .filter(e -> e.to() == 15).findFirst().orElseThrow().timeNanos();
        long lastBeatOfC = crashedAt - Duration.ofMillis(300).toNanos();
        assertThat(raisedAt - lastBeatOfC).isGreaterThanOrEqualTo(Duration.ofSeconds(2).toNanos())
                .isLessThanOrEqualTo(Duration.ofSeconds(3).toNanos());
        assertThat(sim.maxTotal).isEqualTo(30);
    }

    @Test
    void aGracefulLeaveReturnsTheShareAtTheOthersNextHeartbeat() {
        FleetSim.Node a = sim.node("a", 30).join();
        FleetSim.Node b = sim.node("b", 30).join();
        sim.advance(BEAT);
        b.member.close();
        assertThat(b.limit()).isZero();
        assertThat(b.member.isClosed()).isTrue();
        assertThat(b.member.hasLeft()).isTrue(); // nothing in flight: gone at once
        sim.advance(BEAT);
        assertThat(a.limit()).isEqualTo(30);
        assertThat(sim.store.liveReports(FleetSim.KEY)).extracting(NodeReport::nodeId).containsExactly("a");
        b.member.close(); // idempotent
    }

    @Test
    void aLeavingNodeKeepsClaimingItsCallsInFlightUntilTheyFinish() {
        sim.ceiling = 30;
        FleetSim.Node a = sim.node("a", 30).join();
        FleetSim.Node b = sim.node("b", 30).join();
        FleetSim.Node c = sim.node("c", 30).join();
        sim.advance(BEAT.multipliedBy(3));
        a.hold(20);
        b.hold(20);
        c.hold(10);
        assertThat(sim.totalInflight()).isEqualTo(30);
        c.member.close();
        assertThat(c.member.isClosed()).isTrue();
        assertThat(c.member.hasLeft()).isFalse();
        assertThat(c.limit()).isZero();
        sim.advance(BEAT.multipliedBy(3));
        // c's 10 calls still run: its report stays, claiming them, and nobody grows.
        assertThat(List.of(a.limit(), b.limit())).containsExactly(10, 10);
        assertThat(sim.store.liveReports(FleetSim.KEY)).extracting(NodeReport::claim).containsExactly(10, 10, 10);
        c.release(6);
        sim.advance(BEAT);
        assertThat(sim.store.liveReports(FleetSim.KEY)).extracting(NodeReport::claim).containsExactly(10, 10, 4);
        c.release(4);
        sim.advance(BEAT);
        assertThat(c.member.hasLeft()).isTrue();
        sim.advance(BEAT);
        assertThat(List.of(a.limit(), b.limit())).containsExactly(15, 15);
        assertThat(sim.totalInflight()).isEqualTo(30);
        assertThat(sim.maxTotal).isEqualTo(30);
    }

    @Test
    void failClosedKeepsTheLastShareWhileItsReportLivesThenAdmitsNothingThenRecovers() {
        sim.ceiling = 30;
        FleetSim.Node a = sim.node("a", 30).join();
        FleetSim.Node b = sim.node("b", 30).join();
        FleetSim.Node c = sim.node("c", 30).join();
        sim.advance(BEAT.multipliedBy(3));
        long lastGoodBeat = sim.time.nanoTime();
        sim.nodes.values().forEach(n -> n.line.set(SwitchableCoordinator.Line.FAILING));
        sim.advance(BEAT);
        // The coordinator is gone, but our report is live until 2 s after the last good beat.
        assertThat(List.of(a.limit(), b.limit(), c.limit())).containsExactly(10, 10, 10);
        a.hold(12);
        assertThat(a.limiter.inflight()).isEqualTo(10); // never beyond the last share
        assertThat(a.member.stats().coordinatorUp()).isFalse();
        sim.advance(Duration.ofMillis(499));
        assertThat(a.limit()).isEqualTo(10);
        sim.advance(Duration.ofMillis(1));
        // ttl - heartbeat / 2 = 1.5 s after the last good beat: the store may drop us soon.
        assertThat(List.of(a.limit(), b.limit(), c.limit())).containsExactly(0, 0, 0);
        assertThat(a.events(FleetEvent.ShareChanged.class).get(a.events(FleetEvent.ShareChanged.class).size() - 1))
                .satisfies(e -> {
                    assertThat(e.reason()).isEqualTo("expired");
                    assertThat(e.timeNanos() - lastGoodBeat).isEqualTo(Duration.ofMillis(1500).toNanos());
                });
        a.release(10);
        assertThat(a.limiter.inflight()).isZero();
        sim.advance(BEAT.multipliedBy(5));
        assertThat(a.limit()).isZero();
        sim.nodes.values().forEach(n -> n.line.set(SwitchableCoordinator.Line.UP));
        sim.advance(BEAT.multipliedBy(3));
        assertThat(List.of(a.limit(), b.limit(), c.limit())).containsExactly(10, 10, 10);
        assertThat(a.events(FleetEvent.CoordinatorLost.class)).hasSize(1);
        assertThat(a.events(FleetEvent.CoordinatorRestored.class)).hasSize(1);
        assertThat(a.member.stats().heartbeatFailures()).isEqualTo(6); // beats at 4 s .. 9 s
    }

    @Test
    void aNodeCutOffAloneStopsAdmittingBeforeTheOthersTakeItsShare() {
        sim.ceiling = 30;
        FleetSim.Node a = sim.node("a", 30).join();
        FleetSim.Node b = sim.node("b", 30).join();
        FleetSim.Node c = sim.node("c", 30).join();
        sim.advance(BEAT.multipliedBy(3));
        a.call(10_000, Duration.ofMillis(40));
        b.call(10_000, Duration.ofMillis(40));
        c.call(10_000, Duration.ofMillis(40));
        sim.advance(Duration.ofMillis(100));
        c.line.set(SwitchableCoordinator.Line.FAILING);
        sim.advance(BEAT.multipliedBy(4));
        // c closed itself 1.5 s after its last good beat; a and b grew 2 s after it, at a heartbeat.
        assertThat(c.limit()).isZero();
        assertThat(c.limiter.inflight()).isZero();
        assertThat(List.of(a.limit(), b.limit())).containsExactly(15, 15);
        long closedAt = c.events(FleetEvent.ShareChanged.class).stream()
                .filter(e -> e.reason().equals("expired")).findFirst().orElseThrow().timeNanos();
        long grewAt = a.events(FleetEvent.ShareChanged.class).stream()
                .filter(e -> e.to() == 15).findFirst().orElseThrow().timeNanos();
        assertThat(grewAt - closedAt).isGreaterThanOrEqualTo(Duration.ofMillis(500).toNanos());
        assertThat(sim.maxTotal).isEqualTo(30);
        c.line.set(SwitchableCoordinator.Line.UP);
        sim.advance(BEAT.multipliedBy(3));
        assertThat(List.of(a.limit(), b.limit(), c.limit())).containsExactly(10, 10, 10);
    }

    @Test
    void localOnlyRunsOnTheLocalLimitDuringAnOutageAndReturnsToTheShare() {
        FleetSim.Node a = sim.node("a", 30, OutagePolicy.LOCAL_ONLY).join();
        FleetSim.Node b = sim.node("b", 30, OutagePolicy.LOCAL_ONLY).join();
        sim.advance(BEAT.multipliedBy(2));
        assertThat(a.limit()).isEqualTo(15);
        a.line.set(SwitchableCoordinator.Line.FAILING);
        sim.advance(BEAT);
        assertThat(a.limit()).isEqualTo(30);
        assertThat(a.member.share()).isEqualTo(Integer.MAX_VALUE);
        assertThat(a.events(FleetEvent.ShareChanged.class)).last()
                .satisfies(e -> assertThat(e.reason()).isEqualTo("local-only"));
        a.hold(25);
        assertThat(a.limiter.inflight()).isEqualTo(25);
        sim.advance(BEAT.multipliedBy(5));
        // b saw a's report expire and took the whole ceiling: the price of local-only.
        assertThat(b.limit()).isEqualTo(30);
        a.line.set(SwitchableCoordinator.Line.UP);
        sim.advance(BEAT);
        // Back in the fleet, but b holds the whole ceiling: a's share comes back once the claims fit.
        assertThat(a.limit()).isZero();
        assertThat(a.events(FleetEvent.CoordinatorRestored.class)).hasSize(1);
        a.release(25);
        sim.advance(BEAT.multipliedBy(2));
        assertThat(List.of(a.limit(), b.limit())).containsExactly(15, 15);
        assertThat(a.events(FleetEvent.CoordinatorRestored.class)).hasSize(1);
    }

    /**
     * A local-only node's report expired during its outage and the other node took the whole
     * ceiling and filled it. When the coordinator answers again, the node's old share is no
     * longer its to take: it admits only once the claims fit, as a joining node does.
     */
    @Test
    void aLocalOnlyNodeBackFromAnOutageAdmitsNothingUntilTheClaimsFit() {
        sim.ceiling = 30;
        FleetSim.Node a = sim.node("a", 30, OutagePolicy.LOCAL_ONLY).join();
        FleetSim.Node b = sim.node("b", 30, OutagePolicy.LOCAL_ONLY).join();
        sim.advance(BEAT.multipliedBy(2));
        assertThat(a.limit()).isEqualTo(15);
        a.line.set(SwitchableCoordinator.Line.FAILING);
        sim.advance(BEAT.multipliedBy(5)); // a's report expires; b takes the whole ceiling
        assertThat(b.limit()).isEqualTo(30);
        b.hold(30);
        assertThat(b.limiter.inflight()).isEqualTo(30);

        a.line.set(SwitchableCoordinator.Line.UP);
        sim.advance(BEAT);
        a.hold(15);
        sim.advance(BEAT);
        assertThat(sim.violations).as("admissions above the ceiling").isEmpty();
        assertThat(a.limiter.inflight()).as("a's calls while b still holds the whole ceiling").isZero();

        b.release(30);
        sim.advance(BEAT.multipliedBy(3));
        assertThat(List.of(a.limit(), b.limit())).containsExactly(15, 15);
        assertThat(a.limiter.inflight()).as("a's calls once the claims fit").isEqualTo(15);
        assertThat(sim.maxTotal).isEqualTo(30);
    }

    @Test
    void aHeartbeatStillPendingAtTheNextBeatIsAnOutage() {
        FleetSim.Node a = sim.node("a", 30, OutagePolicy.LOCAL_ONLY).join();
        sim.advance(BEAT);
        a.line.set(SwitchableCoordinator.Line.HANGING);
        sim.advance(BEAT);
        assertThat(a.member.stats().coordinatorUp()).isTrue(); // one beat pending, not yet late
        sim.advance(BEAT);
        assertThat(a.member.stats().coordinatorUp()).isFalse();
        assertThat(a.events(FleetEvent.CoordinatorLost.class)).singleElement()
                .satisfies(e -> assertThat(e.cause()).isNull());
        assertThat(a.limit()).isEqualTo(30);
        int sent = a.line.heartbeats();
        sim.advance(BEAT.multipliedBy(3));
        // One heartbeat at a time: the next goes only once the pending one has been given up, a
        // ttl (two beats) after it was sent; in three beats that is once or twice, never more.
        assertThat(a.line.heartbeats()).isBetween(sent + 1, sent + 2);
        a.line.set(SwitchableCoordinator.Line.UP); // the stuck one fails; the next goes through
        sim.advance(BEAT);
        assertThat(a.member.stats().coordinatorUp()).isTrue();
        assertThat(a.limit()).isEqualTo(30);
        assertThat(a.member.share()).isEqualTo(30);
    }

    @Test
    void aFailClosedNodeThatNeverReachedTheCoordinatorAdmitsNothing() {
        FleetSim.Node a = sim.node("a", 30);
        a.line.set(SwitchableCoordinator.Line.FAILING);
        a.join();
        assertThat(a.limit()).isZero();
        assertThat(a.limiter.tryAcquire()).isEmpty();
        sim.advance(BEAT.multipliedBy(3));
        assertThat(a.limit()).isZero();
        a.line.set(SwitchableCoordinator.Line.UP);
        sim.advance(BEAT);
        assertThat(a.limit()).isEqualTo(30);
    }

    @Test
    void aRetryAfterSeenByOneNodePausesEveryNodeUntilTheSameInstant() {
        FleetSim.Node a = sim.node("a", 30).join();
        FleetSim.Node b = sim.node("b", 30).join();
        FleetSim.Node c = sim.node("c", 30).join();
        sim.advance(BEAT.multipliedBy(2));
        Lease lease = a.limiter.tryAcquire().orElseThrow();
        sim.advance(Duration.ofMillis(250));
        lease.release(Outcome.rateLimited(Duration.ofSeconds(5)));
        long until = a.limiter.pausedUntilNanos();
        assertThat(until).isEqualTo(sim.time.nanoTime() + Duration.ofSeconds(5).toNanos());
        assertThat(List.of(b.limiter.pausedUntilNanos(), c.limiter.pausedUntilNanos())).containsOnly(until);
        assertThat(b.limiter.tryAcquire()).isEmpty();
        CompletableFuture<Lease> waiting = b.limiter.acquire();
        sim.advance(Duration.ofMillis(4999));
        assertThat(waiting).isNotDone();
        sim.advance(Duration.ofMillis(1));
        assertThat(waiting).isCompleted();
        assertThat(waiting.join().startNanos()).isEqualTo(until);
        // Published once, by a; received by all three (a's own echo is not published again).
        long published = sim.nodes.values().stream().mapToLong(n -> n.member.stats().pausesPublished()).sum();
        assertThat(published).isEqualTo(1);
        assertThat(sim.nodes.values()).allSatisfy(n -> assertThat(n.member.stats().pausesReceived()).isEqualTo(1));
        assertThat(b.events(FleetEvent.PauseReceived.class)).singleElement()
                .satisfies(e -> assertThat(e.pause().until())
                        .isEqualTo(FleetSim.EPOCH.plusNanos(until)));
    }

    @Test
    void aLongerLocalPauseDuringAFleetPauseIsPublishedAndAShorterOneIsNot() {
        FleetSim.Node a = sim.node("a", 30).join();
        FleetSim.Node b = sim.node("b", 30).join();
        sim.advance(BEAT.multipliedBy(2));
        Lease l1 = b.limiter.tryAcquire().orElseThrow();
        Lease l2 = b.limiter.tryAcquire().orElseThrow();
        a.limiter.pauseFor(Duration.ofSeconds(3));
        l1.release(Outcome.rateLimited(Duration.ofSeconds(1)));
        assertThat(b.member.stats().pausesPublished()).isZero();
        l2.release(Outcome.rateLimited(Duration.ofSeconds(8)));
        assertThat(b.member.stats().pausesPublished()).isEqualTo(1);
        assertThat(a.limiter.pausedUntilNanos()).isEqualTo(b.limiter.pausedUntilNanos())
                .isEqualTo(sim.time.nanoTime() + Duration.ofSeconds(8).toNanos());
    }

    @Test
    void hostileAndStaleFleetPausesAreCappedOrIgnored() {
        FleetSim.Node a = sim.node("a", 30).join();
        sim.advance(BEAT);
        sim.store.publishPause(FleetSim.KEY, new FleetPause("x", FleetSim.EPOCH)); // in the past
        assertThat(a.limiter.isRatePaused()).isFalse();
        sim.store.publishPause(FleetSim.KEY, new FleetPause("x", Instant.MAX));
        // The limiter's maxRetryAfter (1 minute here) caps what a peer can impose.
        assertThat(a.limiter.pausedUntilNanos()).isEqualTo(sim.time.nanoTime() + Duration.ofMinutes(1).toNanos());
        assertThat(a.member.stats().pausesPublished()).isZero();
        assertThat(a.limiter.tryAcquire()).isEmpty();
        sim.advance(Duration.ofMinutes(1));
        assertThat(a.limiter.isRatePaused()).isFalse();
        // After the capped pause, a local pause is news again.
        a.limiter.tryAcquire().orElseThrow().release(Outcome.rateLimited(Duration.ofSeconds(2)));
        assertThat(a.member.stats().pausesPublished()).isEqualTo(1);
    }

    @Test
    void twoProcessesWithOneNodeIdAreBothCountedAndReported() {
        FleetSim.Node a1 = sim.node("a", 30).join();
        Limiter other = Limiter.builder().limit(FixedLimit.of(30)).time(sim.time).build();
        List<FleetEvent> otherEvents = new java.util.ArrayList<>();
        FleetMember a2 = FleetMember.builder(other, sim.store).key(FleetSim.KEY).nodeId("a").clock(sim.clock)
                .listener(otherEvents::add).learnCapacity(false).join();
        FleetSim.Node b = sim.node("b", 30).join();
        sim.advance(BEAT.multipliedBy(3));
        assertThat(sim.store.liveReports(FleetSim.KEY)).hasSize(3);
        assertThat(a1.limit() + other.limit() + b.limit()).isEqualTo(30);
        assertThat(a1.member.stats().duplicateNodeId()).isTrue();
        assertThat(a2.stats().duplicateNodeId()).isTrue();
        assertThat(a1.events(FleetEvent.DuplicateNodeId.class)).singleElement()
                .satisfies(e -> assertThat(e.otherIncarnation()).isEqualTo(a2.incarnation()));
        assertThat(otherEvents).filteredOn(FleetEvent.DuplicateNodeId.class::isInstance).hasSize(1);
        assertThat(b.member.stats().duplicateNodeId()).isFalse();
        a2.close();
    }

    @Test
    void aRestartedNodeIsNotMistakenForADuplicateWhileItsOldReportExpires() {
        FleetSim.Node old = sim.node("a", 30).join();
        sim.advance(BEAT);
        old.crash();
        Limiter fresh = Limiter.builder().limit(FixedLimit.of(30)).time(sim.time).build();
        List<FleetEvent> events = new java.util.ArrayList<>();
        FleetMember restarted = FleetMember.builder(fresh, sim.store).key(FleetSim.KEY).nodeId("a")
                .clock(sim.clock).listener(events::add).learnCapacity(false).join();
        // The old incarnation still counts until its TTL: half the ceiling each.
        assertThat(fresh.limit()).isZero();
        sim.advance(BEAT.multipliedBy(4));
        assertThat(fresh.limit()).isEqualTo(30);
        assertThat(events).noneMatch(FleetEvent.DuplicateNodeId.class::isInstance);
        assertThat(restarted.stats().duplicateNodeId()).isFalse();
        restarted.close();
    }

    @Test
    void listenersThatThrowAreCountedAndChangeNothing() {
        Limiter limiter = Limiter.builder().limit(FixedLimit.of(8)).time(sim.time).build();
        FleetMember m = FleetMember.builder(limiter, sim.store).key("k").nodeId("n").clock(sim.clock)
                .listener(e -> {
                    throw new IllegalStateException("listener bug");
                }).learnCapacity(false).join();
        assertThat(limiter.limit()).isEqualTo(8);
        assertThat(m.stats().listenerFailures()).isPositive();
        m.close();
    }

    @Test
    void defaultsAreOneSecondHeartbeatTwiceThatTtlAndFailClosed() {
        Limiter limiter = Limiter.builder().limit(FixedLimit.of(8)).time(new VirtualTime()).build();
        FleetMember m = FleetMember.builder(limiter, new InMemoryCoordinator(limiter.ticker())).key("k")
                .nodeId("n").learnCapacity(false).join();
        assertThat(m.heartbeat()).isEqualTo(Duration.ofSeconds(1));
        assertThat(m.ttl()).isEqualTo(Duration.ofSeconds(2));
        assertThat(m.outagePolicy()).isEqualTo(OutagePolicy.FAIL_CLOSED);
        assertThat(m.key()).isEqualTo("k");
        assertThat(m.nodeId()).isEqualTo("n");
        assertThat(m.limiter()).isSameAs(limiter);
        assertThat(m.incarnation()).isNotBlank();
        m.close();
    }
}
