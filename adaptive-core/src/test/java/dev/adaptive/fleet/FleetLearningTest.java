package dev.adaptive.fleet;

import dev.adaptive.Lease;
import dev.adaptive.Limiter;
import dev.adaptive.StepLimit;
import dev.adaptive.limit.Outcome;
import dev.adaptive.limit.FixedLimit;
import dev.adaptive.limit.Vegas;
import dev.adaptive.trace.TraceEvent;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The rules by which a fleet learns its backend's capacity ({@link FleetMember.Builder#learnCapacity},
 * the default), each in virtual time on the {@link InMemoryCoordinator}: samples carry the
 * fleet's in flight, another member's refusal is folded into the local limit, busy nodes sync
 * every sync interval, shares follow demand, and resumes after a fleet pause are staggered.
 * The ceiling itself is checked at every admission ({@link FleetSim}); the even-split rules
 * are {@link FleetMemberTest}'s.
 */
class FleetLearningTest {

    private static final Duration BEAT = FleetMember.DEFAULT_HEARTBEAT;
    private static final Duration SYNC = BEAT.dividedBy(FleetMember.SYNC_PER_HEARTBEAT);

    private final FleetSim sim = new FleetSim();

    FleetLearningTest() {
        sim.learn = true;
    }

    /** A node whose limiter runs Vegas, as an application's would. */
    private FleetSim.Node vegasNode(String id) {
        FleetSim.Node n = sim.new Node(id, Limiter.builder().name(id).limit(Vegas.defaults()).time(sim.time)
                .maxRetryAfter(Duration.ofMinutes(1)).build(), OutagePolicy.FAIL_CLOSED);
        sim.nodes.put(id, n);
        return n;
    }

    /**
     * Two Vegas members against a backend that answers in 40 ms whatever the load: with the
     * fleet's in flight in their samples, their limits (and the global ceiling, their median)
     * grow as one client's would. With each node's own in flight (the even-split rules) every
     * success is admitted below the local limit, Vegas ignores it as app-limited, and the
     * ceiling stays within a few slots of the initial limits (8 here, the most it reached in any
     * run of the fleet benchmark before the rule): this is the regression the rule fixes.
     */
    @Test
    void theCeilingGrowsWithTheFleetsLoadAsOneClientsLimitWould() {
        assertThat(ceilingAfterLoad(true)).isGreaterThanOrEqualTo(20);
        assertThat(ceilingAfterLoad(false)).isLessThanOrEqualTo(8);
    }

    private int ceilingAfterLoad(boolean learn) {
        FleetSim local = new FleetSim();
        local.learn = learn;
        List<FleetSim.Node> nodes = new ArrayList<>();
        for (String id : List.of("a", "b")) {
            FleetSim.Node n = local.new Node(id, Limiter.builder().name(id).limit(Vegas.defaults()).time(local.time)
                    .build(), OutagePolicy.FAIL_CLOSED);
            local.nodes.put(id, n);
            nodes.add(n.join());
        }
        nodes.forEach(n -> n.call(3000, Duration.ofMillis(40)));
        local.advance(Duration.ofSeconds(3));
        assertThat(local.time.uncaught()).isEmpty();
        return nodes.get(0).member.stats().globalCeiling();
    }

    @Test
    void aSampleRecordsTheNodesOwnInFlightPlusTheOthersLastReported() {
        List<TraceEvent.Decision> decisions = new ArrayList<>();
        Limiter traced = Limiter.builder().name("a").limit(FixedLimit.of(30)).time(sim.time)
                .traceListener(e -> {
                    if (e instanceof TraceEvent.Decision d) {
                        decisions.add(d);
                    }
                }).build();
        FleetSim.Node a = sim.new Node("a", traced, OutagePolicy.FAIL_CLOSED);
        sim.nodes.put("a", a);
        a.join();
        FleetSim.Node b = sim.node("b", 30).join();
        b.hold(7);
        sim.advance(BEAT.plus(SYNC)); // a is idle: it reports (and reads) once a heartbeat
        assertThat(a.limiter.othersInflight()).isEqualTo(7);
        a.hold(1); // idle until now, a holds one slot: its call is admitted at once
        a.release(1);
        // Admitted with 1 of its own in flight, and b's 7.
        assertThat(decisions).extracting(d -> d.sample().inflight()).containsExactly(1 + 7);
        assertThat(a.limiter.inflight()).isZero();
        a.member.close();
        assertThat(a.limiter.othersInflight()).isZero(); // alone again
    }

    @Test
    void anotherMembersRetryAfterHalvesTheLocalLimitOncePerPause() {
        FleetSim.Node a = vegasNode("a").join();
        FleetSim.Node b = vegasNode("b").join();
        CompletableFuture<Lease> lease = a.limiter.acquire();
        assertThat(lease).isDone();
        a.call(2000, Duration.ofMillis(40));
        b.call(2000, Duration.ofMillis(40));
        sim.advance(Duration.ofSeconds(2));
        int before = b.limiter.localLimit();
        assertThat(before).isGreaterThan(4);
        lease.join().release(Outcome.rateLimited(Duration.ofSeconds(1)));
        assertThat(b.limiter.isRatePaused()).isTrue();
        assertThat(b.limiter.localLimit()).isLessThanOrEqualTo((before + 1) / 2);
        int halved = b.limiter.localLimit();
        // A second refusal of the same burst, published while the pause is open, does not cut again.
        a.limiter.pauseFor(Duration.ofMillis(1100));
        assertThat(b.limiter.localLimit()).isEqualTo(halved);
    }

    @Test
    void aJoiningNodeSendsItsFirstRequestWithinOneHeartbeat() {
        sim.ceiling = 30;
        FleetSim.Node a = sim.node("a", 30).join();
        FleetSim.Node b = sim.node("b", 30).join();
        a.call(10_000, Duration.ofMillis(40));
        b.call(10_000, Duration.ofMillis(40));
        sim.advance(Duration.ofMillis(2_345)); // any phase
        assertThat(sim.totalInflight()).isEqualTo(30);
        long joined = sim.time.nanoTime();
        long[] first = {-1};
        FleetSim.Node c = sim.node("c", 30).join();
        c.limiter.acquire().thenAccept(lease -> {
            first[0] = sim.time.nanoTime();
            sim.checkAdmission(c);
            lease.release(Outcome.SUCCESS);
        });
        c.call(10_000, Duration.ofMillis(40));
        sim.advance(BEAT);
        assertThat(first[0]).isNotNegative();
        assertThat(first[0] - joined).isLessThanOrEqualTo(BEAT.toNanos());
        sim.advance(BEAT);
        assertThat(List.of(a.member.share(), b.member.share(), c.member.share())).containsExactly(10, 10, 10);
        assertThat(sim.violations).isEmpty();
        assertThat(sim.maxTotal).isEqualTo(30);
    }

    @Test
    void anIdleNodesShareGoesToTheNodesWithWorkAndComesBackWithinAHeartbeat() {
        sim.ceiling = 30;
        FleetSim.Node a = sim.node("a", 30).join();
        FleetSim.Node b = sim.node("b", 30).join();
        a.call(10_000, Duration.ofMillis(40));
        sim.advance(SYNC.multipliedBy(5));
        // b keeps one slot, to start at once when work comes; a has the rest.
        assertThat(List.of(a.member.share(), b.member.share())).containsExactly(29, 1);
        assertThat(a.limiter.inflight()).isEqualTo(29);
        long busyAt = sim.time.nanoTime();
        b.call(10_000, Duration.ofMillis(40));
        assertThat(b.limiter.inflight()).isEqualTo(1); // its slot, at once
        sim.advance(BEAT);
        assertThat(List.of(a.member.share(), b.member.share())).containsExactly(15, 15);
        long evenAt = b.events(FleetEvent.ShareChanged.class).stream().filter(e -> e.to() == 15).findFirst()
                .orElseThrow().timeNanos();
        assertThat(evenAt - busyAt).isLessThanOrEqualTo(BEAT.toNanos());
        assertThat(sim.violations).isEmpty();
    }

    /**
     * An idle node holds one slot and reports that it needs no more. When calls start to wait it
     * says so at once, not at its next sync: the others read its demand at their next sync
     * rather than a sync later. (Before this rule every node that joined idle and then got work,
     * as every client of the fleet benchmark does, ran on one slot for up to a sync interval.)
     */
    @Test
    void workArrivingAtAnIdleNodeIsReportedAtOnceNotAtItsNextSync() {
        sim.ceiling = 30;
        FleetSim.Node a = sim.node("a", 30).join();
        FleetSim.Node b = sim.node("b", 30).join();
        a.call(10_000, Duration.ofMillis(40));
        sim.advance(SYNC.multipliedBy(5).plus(SYNC.dividedBy(2))); // half-way between two syncs
        assertThat(List.of(a.member.share(), b.member.share())).containsExactly(29, 1);
        long before = b.member.stats().heartbeats();
        b.call(10_000, Duration.ofMillis(40));
        sim.advance(Duration.ofMillis(1));
        assertThat(b.member.stats().heartbeats()).isGreaterThan(before);
        assertThat(b.member.stats().targetShare()).isEqualTo(15);
        // a reads b's demand at its next sync: its share halves, and b's follows once a's calls drain.
        sim.advance(SYNC);
        assertThat(a.member.stats().targetShare()).isEqualTo(15);
        sim.advance(SYNC.multipliedBy(2));
        assertThat(List.of(a.member.share(), b.member.share())).containsExactly(15, 15);
        assertThat(sim.violations).isEmpty();
    }

    /**
     * A node whose local limit moves reports it at once, so the global ceiling follows the
     * limit's own decisions (a slow-start step is one round trip) rather than the sync pace;
     * the others read it at their next sync. At most one such early report between two syncs,
     * however often the limit moves: the next move waits for the sync.
     */
    @Test
    void aLocalLimitThatMovesIsReportedAtOnceAndAtMostOnceBetweenTwoSyncs() {
        FleetSim.Node a = sim.new Node("a", Limiter.builder().name("a").limit(new StepLimit(10, 10)).time(sim.time)
                .build(), OutagePolicy.FAIL_CLOSED);
        sim.nodes.put("a", a);
        a.join();
        FleetSim.Node b = sim.node("b", 10).join();
        a.hold(5);
        b.hold(5);
        sim.advance(SYNC.multipliedBy(3).plus(SYNC.dividedBy(2))); // half-way between two syncs
        assertThat(a.member.stats().globalCeiling()).isEqualTo(10);
        assertThat(List.of(a.limiter.inflight(), b.limiter.inflight())).containsExactly(5, 5);
        a.release(1); // a's limit: 10 -> 20; the ceiling, the upper median of 20 and 10, is 20
        sim.advance(Duration.ofMillis(1));
        assertThat(a.limiter.localLimit()).isEqualTo(20);
        assertThat(a.member.stats().globalCeiling()).isEqualTo(20);
        assertThat(b.member.stats().globalCeiling()).isEqualTo(10);
        long early = a.member.stats().heartbeats();
        a.release(1); // 20 -> 30 within the same sync interval: reported at the next sync
        sim.advance(Duration.ofMillis(1));
        assertThat(a.limiter.localLimit()).isEqualTo(30);
        assertThat(a.member.stats().heartbeats()).isEqualTo(early);
        assertThat(a.member.stats().globalCeiling()).isEqualTo(20);
        sim.advance(SYNC);
        assertThat(a.member.stats().globalCeiling()).isEqualTo(30);
        assertThat(b.member.stats().globalCeiling()).isEqualTo(30);
        a.member.close();
        b.member.close();
        a.release(3);
        b.release(5);
        sim.advance(SYNC);
        assertThat(sim.time.uncaught()).isEmpty();
    }

    /**
     * A fleet cap below the number of nodes (every node on {@code FixedLimit.of(2)}, three
     * nodes): the two slots go to the nodes with work. By order alone, the two idle nodes first
     * in order kept them, and the busy one waited for ever, since a fixed {@code G} never grows.
     */
    @Test
    void withFewerSlotsThanNodesABusyNodeIsNotStarvedByIdleOnes() {
        sim.ceiling = 2;
        FleetSim.Node a = sim.node("a", 2).join();
        FleetSim.Node b = sim.node("b", 2).join();
        FleetSim.Node c = sim.node("c", 2).join();
        sim.advance(BEAT);
        assertThat(List.of(a.member.share(), b.member.share(), c.member.share())).containsExactly(1, 1, 0);
        long[] served = {0};
        for (int i = 0; i < 20; i++) {
            c.limiter.acquire().thenAccept(lease -> {
                sim.checkAdmission(c);
                served[0]++;
                sim.time.schedule(lease::release, Duration.ofMillis(40));
            });
        }
        // c waits for an idle node to give its slot back: at that node's next heartbeat.
        sim.advance(BEAT.plus(SYNC.multipliedBy(2)));
        assertThat(served[0]).isPositive();
        assertThat(c.member.share()).isEqualTo(1);
        sim.advance(BEAT);
        assertThat(served[0]).isEqualTo(20);
        assertThat(sim.violations).isEmpty();
        assertThat(sim.maxTotal).isLessThanOrEqualTo(2);
    }

    @Test
    void aBusyNodeSyncsEverySyncIntervalAnIdleOneOnceAHeartbeat() {
        FleetSim.Node a = sim.node("a", 30).join();
        FleetSim.Node b = sim.node("b", 30).join();
        sim.advance(BEAT.multipliedBy(2));
        long aBefore = a.member.stats().heartbeats();
        long bBefore = b.member.stats().heartbeats();
        a.call(10_000, Duration.ofMillis(40));
        sim.advance(BEAT);
        assertThat(a.member.stats().heartbeats() - aBefore).isBetween(9L, 12L);
        // b reported when a's demand changed its share (its claim moved), and once a heartbeat.
        assertThat(b.member.stats().heartbeats() - bBefore).isBetween(1L, 3L);
        assertThat(a.member.syncInterval()).isEqualTo(SYNC);
    }

    @Test
    void membersResumeOneAfterAnotherAfterAFleetPauseAndALaterRefusalStillReachesEveryone() {
        FleetSim.Node a = sim.node("a", 30).join();
        FleetSim.Node b = sim.node("b", 30).join();
        FleetSim.Node c = sim.node("c", 30).join();
        sim.advance(BEAT);
        long now = sim.time.nanoTime();
        long until = now + Duration.ofSeconds(1).toNanos();
        a.limiter.pauseFor(Duration.ofSeconds(1));
        // A later refusal at b, whose window ends after a's: published and applied by all.
        sim.advance(Duration.ofMillis(2));
        b.limiter.pauseFor(Duration.ofSeconds(1));
        long later = until + Duration.ofMillis(2).toNanos();
        for (FleetSim.Node n : List.of(a, b, c)) {
            assertThat(n.limiter.pausedUntilNanos()).as(n.id).isEqualTo(later);
        }
        sim.time.advanceTo(later - 1);
        long step = SYNC.toNanos() / 3;
        assertThat(a.limiter.pausedUntilNanos()).isEqualTo(later);
        assertThat(b.limiter.pausedUntilNanos()).isEqualTo(later + step);
        assertThat(c.limiter.pausedUntilNanos()).isEqualTo(later + 2 * step);
        // The staggered ends are not news for the fleet: nobody extends anybody else's.
        sim.advance(SYNC);
        assertThat(a.limiter.isRatePaused()).isFalse();
        assertThat(c.limiter.isRatePaused()).isFalse();
        assertThat(a.member.stats().pausesPublished() + b.member.stats().pausesPublished()
                + c.member.stats().pausesPublished()).isEqualTo(2);
    }

    /**
     * A member whose own maxRetryAfter cut a fleet pause short has resumed long before the
     * fleet's window ends; its staggered resume is not a reason to pause it again at that end.
     */
    @Test
    void aMemberThatCutAFleetPauseShortIsNotPausedAgainWhenTheFleetResumes() {
        FleetSim.Node a = sim.node("a", 30).join();
        FleetSim.Node b = sim.new Node("b", Limiter.builder().name("b").limit(FixedLimit.of(30)).time(sim.time)
                .maxRetryAfter(Duration.ofSeconds(10)).build(), OutagePolicy.FAIL_CLOSED);
        sim.nodes.put("b", b);
        b.join();
        sim.advance(BEAT);
        sim.store.publishPause(FleetSim.KEY, new FleetPause("a", sim.clock.instant().plus(Duration.ofSeconds(30))));
        long until = sim.time.nanoTime() + Duration.ofSeconds(30).toNanos();
        assertThat(a.limiter.pausedUntilNanos()).isEqualTo(until);
        assertThat(b.limiter.isRatePaused()).as("b, capped at 10 s").isTrue();

        sim.time.advanceTo(until - Duration.ofSeconds(1).toNanos());
        assertThat(b.limiter.isRatePaused()).as("b, after its own 10 s").isFalse();
        sim.time.advanceTo(until + 1);
        assertThat(a.limiter.isRatePaused()).as("a, at the fleet's end").isFalse();
        assertThat(b.limiter.isRatePaused()).as("b, at the fleet's end").isFalse();
        assertThat(b.limiter.stats().pausesOpened()).as("pauses opened on b").isEqualTo(1);
    }
}
