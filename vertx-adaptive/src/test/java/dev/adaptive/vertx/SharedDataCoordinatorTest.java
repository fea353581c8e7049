package dev.adaptive.vertx;

import dev.adaptive.fleet.FleetPause;
import dev.adaptive.fleet.NodeReport;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The coordinator's contract on one (non-clustered) Vert.x, with a wall clock the test moves. */
@ExtendWith(VertxExtension.class)
class SharedDataCoordinatorTest {

    private static final Duration TTL = Duration.ofSeconds(2);

    /** A wall clock that moves only when told. */
    static final class MovableClock extends Clock {
        private volatile Instant now = Instant.parse("2030-01-01T00:00:00Z");

        void advance(Duration d) {
            now = now.plus(d);
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
            return now;
        }
    }

    private static <T> T await(CompletionStage<T> stage) {
        return Await.result(Future.fromCompletionStage(stage));
    }

    private static NodeReport report(String node, String incarnation, int limit, MovableClock clock) {
        return new NodeReport(node, incarnation, limit, 0, clock.instant());
    }

    @Test
    void theMapKeepsAnEntryAWholeSecondPastItsStampedExpiry() {
        // The stamp decides what is live; the map's TTL only clears what nobody removes, and a
        // cluster manager may round it to whole seconds.
        assertThat(SharedDataCoordinator.storeTtl(1)).isEqualTo(2_000);
        assertThat(SharedDataCoordinator.storeTtl(1_000)).isEqualTo(2_000);
        assertThat(SharedDataCoordinator.storeTtl(1_001)).isEqualTo(3_000);
        assertThat(SharedDataCoordinator.storeTtl(Long.MAX_VALUE)).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void aHeartbeatReturnsEveryLiveReportIncludingItsOwnAndDropsThosePastTheirTtl(Vertx vertx) {
        MovableClock clock = new MovableClock();
        SharedDataCoordinator c = SharedDataCoordinator.create(vertx, "t1.", Duration.ofSeconds(5), clock);
        await(c.heartbeat("api", report("b", "b1", 7, clock), TTL));
        List<NodeReport> live = await(c.heartbeat("api", report("a", "a1", 5, clock), TTL));
        assertThat(live).extracting(NodeReport::nodeId).containsExactly("a", "b");
        assertThat(live.get(1).localLimit()).isEqualTo(7);
        assertThat(live.get(1).reportedAt()).isEqualTo(clock.instant());
        NodeReport claiming = new NodeReport("c", "c1", 9, 2, 4, clock.instant());
        assertThat(await(c.heartbeat("api", claiming, TTL))).as("every field survives the store").contains(claiming);
        assertThat(await(c.heartbeat("other", report("z", "z1", 1, clock), TTL))).as("keys are separate").hasSize(1);
        clock.advance(Duration.ofMillis(1_500));
        await(c.heartbeat("api", report("a", "a1", 5, clock), TTL));
        clock.advance(Duration.ofMillis(600)); // b's report is now 2.1 s old
        assertThat(await(c.heartbeat("api", report("a", "a1", 6, clock), TTL)))
                .singleElement().satisfies(r -> assertThat(r.localLimit()).isEqualTo(6));
        assertThat(live).hasSize(2);
    }

    @Test
    void twoIncarnationsOfOneIdStayVisibleAndLeaveRemovesThemAll(Vertx vertx) {
        MovableClock clock = new MovableClock();
        SharedDataCoordinator c = SharedDataCoordinator.create(vertx, "t2.", Duration.ofSeconds(5), clock);
        await(c.heartbeat("api", report("dup", "first", 3, clock), TTL));
        await(c.heartbeat("api", report("dup", "second", 4, clock), TTL));
        assertThat(await(c.heartbeat("api", report("x", "x1", 2, clock), TTL)))
                .extracting(NodeReport::incarnation).containsExactly("first", "second", "x1");
        await(c.leave("api", "dup"));
        assertThat(await(c.heartbeat("api", report("x", "x1", 2, clock), TTL)))
                .extracting(NodeReport::nodeId).containsExactly("x");
    }

    @Test
    void aPauseReachesEverySubscriberAndALateOneCatchesUpButNeverAnEarlierPause(Vertx vertx) {
        MovableClock clock = new MovableClock();
        SharedDataCoordinator c = SharedDataCoordinator.create(vertx, "t3.", Duration.ofSeconds(5), clock);
        List<FleetPause> first = new CopyOnWriteArrayList<>();
        Promise<FleetPause> got = Promise.promise();
        AutoCloseable sub = c.subscribePauses("api", p -> {
            first.add(p);
            got.tryComplete(p);
        });
        FleetPause later = new FleetPause("n1", clock.instant().plusSeconds(30));
        // The consumer registers asynchronously; publish until the subscription hears it.
        while (!got.future().isComplete()) {
            await(c.publishPause("api", later));
            Await.result(vertx.timer(10));
        }
        assertThat(got.future().result()).isEqualTo(later);
        await(c.publishPause("api", new FleetPause("n2", clock.instant().plusSeconds(5))));
        Promise<FleetPause> caughtUp = Promise.promise();
        AutoCloseable late = c.subscribePauses("api", caughtUp::tryComplete);
        assertThat(Await.result(caughtUp.future())).as("the stored pause is the later one").isEqualTo(later);
        assertThatCode(() -> {
            sub.close();
            late.close();
        }).doesNotThrowAnyException();
    }

    @Test
    void aPauseAlreadyOverIsNotShared(Vertx vertx) {
        MovableClock clock = new MovableClock();
        SharedDataCoordinator c = SharedDataCoordinator.create(vertx, "t4.", Duration.ofSeconds(5), clock);
        await(c.publishPause("api", new FleetPause("n1", clock.instant().minusSeconds(1))));
        Promise<FleetPause> heard = Promise.promise();
        c.subscribePauses("api", heard::tryComplete);
        Await.result(vertx.timer(100));
        assertThat(heard.future().isComplete()).isFalse();
    }

    @Test
    void badArgumentsAreRejected(Vertx vertx) {
        assertThatThrownBy(() -> SharedDataCoordinator.create(vertx, "p.", Duration.ZERO, Clock.systemUTC()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lockTimeout");
        SharedDataCoordinator c = SharedDataCoordinator.create(vertx);
        assertThatThrownBy(() -> c.heartbeat("k", new NodeReport("a", "i", 1, 0, Instant.now()), Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ttl");
    }
}
