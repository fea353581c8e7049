package dev.adaptive.fleet;

import dev.adaptive.Limiter;
import dev.adaptive.limit.FixedLimit;
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
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A {@link Coordinator} is user code: one that throws anything (an {@code Error} included) or
 * returns no stage gets the fallback a failed stage gets. A heartbeat is an outage and the next
 * one tries again; a publication is counted and the local pause stands; a leave is given up
 * (the report expires); a subscription that cannot be made fails the join and leaves the
 * limiter as it was.
 */
class FleetCoordinatorErrorsTest {

    private static final Duration BEAT = FleetMember.DEFAULT_HEARTBEAT;

    private final VirtualTime time = new VirtualTime();
    private final Clock clock = time.clock(Instant.parse("2030-01-01T00:00:00Z"));
    private final InMemoryCoordinator store = new InMemoryCoordinator(time);
    private final Limiter limiter = Limiter.builder().limit(FixedLimit.of(8)).time(time).build();

    /** Which call fails next, and how. */
    private volatile String failing = "";
    private volatile Throwable failure = new AssertionError("coordinator bug");
    private volatile boolean returnNull;
    /** Heartbeats whose stage never completes: a reply lost by a transport without a timeout. */
    private volatile boolean hang;
    /** Publications whose stage fails: the store timed out, or was shut down. */
    private volatile boolean publicationFailsLater;
    private final java.util.concurrent.atomic.AtomicInteger leaves = new java.util.concurrent.atomic.AtomicInteger();

    private final Coordinator broken = new Coordinator() {
        private <T> T maybeFail(String op, T value) {
            if (failing.equals(op)) {
                if (returnNull) {
                    return null;
                }
                if (failure instanceof Error e) {
                    throw e;
                }
                throw (RuntimeException) failure;
            }
            return value;
        }

        @Override
        public CompletionStage<List<NodeReport>> heartbeat(String key, NodeReport report, Duration ttl) {
            if (hang) {
                return new java.util.concurrent.CompletableFuture<>();
            }
            return maybeFail("heartbeat", "heartbeat".equals(failing) ? null : store.heartbeat(key, report, ttl));
        }

        @Override
        public CompletionStage<Void> leave(String key, String nodeId) {
            leaves.incrementAndGet();
            return maybeFail("leave", "leave".equals(failing) ? null : store.leave(key, nodeId));
        }

        @Override
        public CompletionStage<Void> publishPause(String key, FleetPause pause) {
            if (publicationFailsLater) {
                return java.util.concurrent.CompletableFuture.failedFuture(new IllegalStateException("not stored"));
            }
            return maybeFail("publish", "publish".equals(failing) ? null : store.publishPause(key, pause));
        }

        @Override
        public AutoCloseable subscribePauses(String key, Consumer<FleetPause> listener) {
            maybeFail("subscribe", null);
            AutoCloseable real = store.subscribePauses(key, listener);
            return () -> {
                maybeFail("unsubscribe", null);
                real.close();
            };
        }
    };

    private FleetMember join() {
        return FleetMember.builder(limiter, broken).key("backend").nodeId("a").clock(clock).learnCapacity(false).join();
    }

    @AfterEach
    void nothingEscapedToTheScheduler() {
        assertThat(time.uncaught()).isEmpty();
    }

    @Test
    void aHeartbeatThatThrowsAnErrorIsAnOutageAndTheNextOneRecovers() {
        FleetMember m = join();
        assertThat(limiter.limit()).isEqualTo(8);
        failing = "heartbeat";
        time.advance(BEAT);
        assertThat(m.stats().coordinatorUp()).isFalse();
        assertThat(m.stats().heartbeatFailures()).isEqualTo(1);
        failing = "";
        time.advance(BEAT);
        assertThat(m.stats().coordinatorUp()).isTrue();
        assertThat(limiter.limit()).isEqualTo(8);
        time.advance(BEAT.multipliedBy(3));
        assertThat(m.stats().heartbeatFailures()).isEqualTo(1);
    }

    /**
     * An idle member (the default rules, no call made) whose heartbeats the coordinator refuses
     * for longer than its TTL, by throwing: its tick goes on through the outage, so it rejoins on
     * its own once the coordinator answers, with no call to wake it.
     */
    @ParameterizedTest
    @EnumSource(OutagePolicy.class)
    void anIdleMemberWhoseHeartbeatsWereRefusedPastItsTtlRejoinsOnItsOwn(OutagePolicy policy) {
        FleetMember a = FleetMember.builder(limiter, broken).key("backend").nodeId("a").clock(clock).outagePolicy(policy)
                .join();
        FleetMember b = FleetMember.builder(Limiter.builder().name("b").limit(FixedLimit.of(8)).time(time).build(), store)
                .key("backend").nodeId("b").clock(clock).join();
        time.advance(BEAT.multipliedBy(3));
        int before = a.share();
        assertThat(before).isPositive();
        failing = "heartbeat";
        time.advance(a.ttl().multipliedBy(2));
        assertThat(store.liveReports("backend")).extracting(NodeReport::nodeId).as("live reports in the outage")
                .containsExactly("b");
        failing = "";
        time.advance(BEAT.multipliedBy(2));

        SoftAssertions.assertSoftly(soft -> {
            soft.assertThat(a.share()).as("a's share").isEqualTo(before);
            soft.assertThat(a.share() + b.share()).as("shares together").isLessThanOrEqualTo(8);
            soft.assertThat(store.liveReports("backend")).extracting(NodeReport::nodeId).as("live reports")
                    .containsExactlyInAnyOrder("a", "b");
        });
    }

    @Test
    void aHeartbeatThatReturnsNoStageIsAnOutageToo() {
        FleetMember m = join();
        failing = "heartbeat";
        returnNull = true;
        time.advance(BEAT);
        assertThat(m.stats().coordinatorUp()).isFalse();
        failing = "";
        time.advance(BEAT);
        assertThat(m.stats().coordinatorUp()).isTrue();
        assertThat(m.stats().heartbeats()).isPositive();
    }

    @Test
    void aSubscriptionThatThrowsAnErrorFailsTheJoinAndLeavesTheLimiterAsItWas() {
        failing = "subscribe";
        assertThatThrownBy(this::join).isInstanceOf(AssertionError.class).hasMessage("coordinator bug");
        assertThat(limiter.ceiling()).isEqualTo(Integer.MAX_VALUE);
        assertThat(limiter.tryAcquire()).isPresent();
    }

    @Test
    void aPublicationThatThrowsAnErrorIsCountedAndTheLocalPauseStands() {
        FleetMember m = join();
        failing = "publish";
        assertThatCode(() -> limiter.pauseFor(Duration.ofSeconds(5))).doesNotThrowAnyException();
        assertThat(limiter.isRatePaused()).isTrue();
        assertThat(m.stats().listenerFailures()).isEqualTo(1);
        assertThat(limiter.stats().listenerFailures()).isZero();
    }

    @Test
    void aPublicationThatReturnsNoStageIsCountedAndTheLocalPauseStands() {
        FleetMember m = join();
        failing = "publish";
        returnNull = true;
        assertThatCode(() -> limiter.pauseFor(Duration.ofSeconds(5))).doesNotThrowAnyException();
        assertThat(limiter.isRatePaused()).isTrue();
        assertThat(m.stats().listenerFailures()).isEqualTo(1);
    }

    @Test
    void aPublicationWhoseStageFailsIsCountedAndTheLocalPauseStands() {
        FleetMember m = join();
        publicationFailsLater = true;
        assertThatCode(() -> limiter.pauseFor(Duration.ofSeconds(5))).doesNotThrowAnyException();
        assertThat(limiter.isRatePaused()).isTrue();
        assertThat(m.stats().pausesPublished()).isEqualTo(1);
        assertThat(m.stats().listenerFailures()).as("failed publications counted").isEqualTo(1);
    }

    @Test
    void aLeaveOrUnsubscribeThatThrowsAnErrorStillLeaves() {
        FleetMember m = join();
        failing = "unsubscribe";
        assertThatCode(m::close).doesNotThrowAnyException();
        assertThat(m.hasLeft()).isTrue();
        FleetMember other = FleetMember.builder(Limiter.builder().limit(FixedLimit.of(2)).time(time).build(), broken)
                .key("backend").nodeId("b").clock(clock).join();
        failing = "leave";
        assertThatCode(other::close).doesNotThrowAnyException();
        assertThat(other.hasLeft()).isTrue();
    }

    @Test
    void aHeartbeatWhoseReplyNeverComesIsGivenUpAfterTheTtlAndTheNextOneRecovers() {
        FleetMember m = join();
        time.advance(BEAT.multipliedBy(3));
        assertThat(m.share()).isEqualTo(8);
        long before = m.stats().heartbeats();
        hang = true;
        time.advance(BEAT.multipliedBy(2));
        assertThat(m.stats().coordinatorUp()).isFalse();
        hang = false;
        time.advance(BEAT.multipliedBy(5));
        assertThat(m.stats().heartbeats()).as("heartbeats answered after the lost one").isGreaterThan(before);
        assertThat(m.stats().coordinatorUp()).isTrue();
        assertThat(m.share()).isEqualTo(8);
        assertThat(limiter.tryAcquire()).as("the limiter admits again").isPresent();
    }

    @Test
    void aMemberClosedWhileItsHeartbeatHangsStillLeavesAndStopsItsTimer() {
        FleetMember m = join();
        time.advance(BEAT.multipliedBy(3));
        hang = true;
        time.advance(BEAT.multipliedBy(2));
        m.close();
        time.advance(m.ttl().plus(BEAT));
        assertThat(m.hasLeft()).isTrue();
        assertThat(leaves.get()).isEqualTo(1);
        assertThat(time.pendingTasks()).as("no timer of the closed member left").isZero();
    }
}
