package dev.adaptive.contract;

import dev.adaptive.fleet.Coordinator;
import dev.adaptive.fleet.FleetPause;
import dev.adaptive.fleet.NodeReport;
import dev.adaptive.time.VirtualTime;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The contract of a distributed {@link Coordinator}, run against each implementation (the
 * Vert.x shared-data one, the Hazelcast one) by a subclass that says how to make one. The wall
 * clock is a {@link VirtualTime} clock the tests move; each test uses a namespace of its own,
 * and two coordinators of one namespace share one store.
 */
public abstract class CoordinatorContract {

    private static final Duration TTL = Duration.ofSeconds(2);
    private static final Instant EPOCH = Instant.parse("2030-01-01T00:00:00Z");

    /**
     * @param namespace where its storage lives (a prefix of map names); fresh for each test
     * @param clock     the wall clock that stamps reports and pauses
     * @return a coordinator over the shared store of {@code namespace}
     */
    protected abstract Coordinator coordinator(String namespace, Clock clock);

    /** A coordinator's answer, waited for at most 10 s. */
    private static <T> T await(CompletionStage<T> stage) {
        return stage.toCompletableFuture().orTimeout(10, TimeUnit.SECONDS).join();
    }

    private static String namespace() {
        return "t" + UUID.randomUUID() + ".";
    }

    /**
     * @return whether a subscriber is never told of a pause that ends before one it has already
     *         heard; the {@link Coordinator} interface allows relaying each pause (a limiter keeps
     *         the later end anyway), and an implementation that filters says so here
     */
    protected boolean dropsEarlierPauses() {
        return false;
    }

    /**
     * A subscription may register asynchronously: publishes {@code pause} under "api" until the
     * subscriber hears something (live, or from the store once registered), waiting on the
     * event, never on the clock alone.
     *
     * @return the first pause the subscriber heard
     */
    private static FleetPause publishUntilHeard(Coordinator publisher, FleetPause pause,
                                                CompletableFuture<FleetPause> heard) {
        for (int tries = 0; !heard.isDone() && tries < 1_000; tries++) {
            await(publisher.publishPause("api", pause));
            try {
                heard.get(10, TimeUnit.MILLISECONDS);
            } catch (TimeoutException notYet) {
                // publish again
            } catch (InterruptedException | ExecutionException e) {
                throw new AssertionError(e);
            }
        }
        return await(heard);
    }

    private static NodeReport report(String node, String incarnation, int limit, Clock clock) {
        return new NodeReport(node, incarnation, limit, 0, clock.instant());
    }

    @Test
    void aHeartbeatReturnsEveryLiveReportIncludingItsOwnAndDropsThosePastTheirTtl() {
        VirtualTime time = new VirtualTime();
        Clock clock = time.clock(EPOCH);
        Coordinator c = coordinator(namespace(), clock);
        await(c.heartbeat("api", report("b", "b1", 7, clock), TTL));
        List<NodeReport> live = await(c.heartbeat("api", report("a", "a1", 5, clock), TTL));
        assertThat(live).extracting(NodeReport::nodeId).containsExactly("a", "b");
        assertThat(live.get(1).localLimit()).isEqualTo(7);
        assertThat(live.get(1).reportedAt()).isEqualTo(clock.instant());
        NodeReport claiming = new NodeReport("c \"quoted\" \\ \u00e9\n", "c1", 9, 2, 4, clock.instant());
        assertThat(await(c.heartbeat("api", claiming, TTL))).as("every field survives the store").contains(claiming);
        assertThat(await(c.heartbeat("other", report("z", "z1", 1, clock), TTL))).as("keys are separate").hasSize(1);
        time.advance(Duration.ofMillis(1_500));
        await(c.heartbeat("api", report("a", "a1", 5, clock), TTL));
        time.advance(Duration.ofMillis(600)); // b's and c's reports are now 2.1 s old
        assertThat(await(c.heartbeat("api", report("a", "a1", 6, clock), TTL)))
                .singleElement().satisfies(r -> assertThat(r.localLimit()).isEqualTo(6));
        assertThat(live).as("an answer is a copy, not a view of the store").hasSize(2);
    }

    @Test
    void twoIncarnationsOfOneIdStayVisibleAndLeaveRemovesThemAll() {
        VirtualTime time = new VirtualTime();
        Clock clock = time.clock(EPOCH);
        Coordinator c = coordinator(namespace(), clock);
        await(c.heartbeat("api", report("dup", "first", 3, clock), TTL));
        await(c.heartbeat("api", report("dup", "second", 4, clock), TTL));
        assertThat(await(c.heartbeat("api", report("x", "x1", 2, clock), TTL)))
                .extracting(NodeReport::incarnation).containsExactly("first", "second", "x1");
        await(c.leave("api", "dup"));
        assertThat(await(c.heartbeat("api", report("x", "x1", 2, clock), TTL)))
                .extracting(NodeReport::nodeId).containsExactly("x");
        await(c.leave("api", "nobody"));
    }

    @Test
    void aPauseReachesEverySubscriberAndALateOneCatchesUpButNeverAnEarlierPause() throws Exception {
        VirtualTime time = new VirtualTime();
        Clock clock = time.clock(EPOCH);
        String namespace = namespace();
        Coordinator publisher = coordinator(namespace, clock);
        Coordinator other = coordinator(namespace, clock);
        List<FleetPause> first = new CopyOnWriteArrayList<>();
        CompletableFuture<FleetPause> got = new CompletableFuture<>();
        AutoCloseable sub = other.subscribePauses("api", p -> {
            first.add(p);
            got.complete(p);
        });
        FleetPause later = new FleetPause("n1", clock.instant().plusSeconds(30));
        assertThat(publishUntilHeard(publisher, later, got)).isEqualTo(later);
        await(publisher.publishPause("api", new FleetPause("n2", clock.instant().plusSeconds(5))));
        CompletableFuture<FleetPause> caughtUp = new CompletableFuture<>();
        AutoCloseable late = other.subscribePauses("api", caughtUp::complete);
        assertThat(await(caughtUp)).as("the stored pause is the later one").isEqualTo(later);
        sub.close();
        late.close();
        sub.close();
        FleetPause afterClose = new FleetPause("n3", clock.instant().plusSeconds(60));
        await(publisher.publishPause("api", afterClose));
        assertThat(first).as("the first pause heard").first().isEqualTo(later);
        assertThat(first).as("nothing after close").doesNotContain(afterClose);
        if (dropsEarlierPauses()) {
            assertThat(first).as("no earlier pause relayed").containsOnly(later);
        }
    }

    /**
     * A subscription closed right after it was made hears nothing once close() has returned, not
     * even the stored pause that a catch-up read still under way finds: "closes the
     * subscription" holds from the close on (a delivery that began before it may end in it). Instead of waiting a fixed time, a control subscription made after the 20
     * closed ones is the barrier: once it has heard the stored pause (its own catch-up, issued
     * after theirs on the same key) and then a pause published afterwards, the closed ones'
     * catch-ups and deliveries have had their turn.
     */
    @Test
    void aSubscriptionClosedAtOnceNeverHearsTheStoredPause() throws Exception {
        VirtualTime time = new VirtualTime();
        Clock clock = time.clock(EPOCH);
        Coordinator c = coordinator(namespace(), clock);
        await(c.publishPause("api", new FleetPause("n1", clock.instant().plusSeconds(30))));
        List<Integer> heardAfterClose = new CopyOnWriteArrayList<>();
        for (int i = 0; i < 20; i++) {
            int round = i;
            AtomicBoolean closed = new AtomicBoolean();
            AutoCloseable sub = c.subscribePauses("api", p -> {
                if (closed.get()) {
                    heardAfterClose.add(round);
                }
            });
            sub.close();
            closed.set(true);
        }
        FleetPause later = new FleetPause("n2", clock.instant().plusSeconds(40));
        CompletableFuture<FleetPause> storedHeard = new CompletableFuture<>();
        CompletableFuture<FleetPause> laterHeard = new CompletableFuture<>();
        try (AutoCloseable control = c.subscribePauses("api", p -> {
            storedHeard.complete(p);
            if (p.equals(later)) {
                laterHeard.complete(p);
            }
        })) {
            assertThat(await(storedHeard)).as("the control subscription hears the stored pause").isNotNull();
            assertThat(publishUntilHeard(c, later, laterHeard)).isEqualTo(later);
        }
        assertThat(heardAfterClose).as("rounds whose listener was called after close()").isEmpty();
    }

    @Test
    void aPauseAlreadyOverIsNotShared() {
        VirtualTime time = new VirtualTime();
        Clock clock = time.clock(EPOCH);
        String namespace = namespace();
        Coordinator c = coordinator(namespace, clock);
        await(c.publishPause("api", new FleetPause("over", clock.instant().minusSeconds(1))));
        await(c.publishPause("api", new FleetPause("ending", clock.instant())));
        CompletableFuture<FleetPause> heard = new CompletableFuture<>();
        AutoCloseable sub = coordinator(namespace, clock).subscribePauses("api", heard::complete);
        FleetPause live = new FleetPause("live", clock.instant().plusSeconds(30));
        assertThat(publishUntilHeard(c, live, heard)).as("the first pause heard is the live one").isEqualTo(live);
        try {
            sub.close();
        } catch (Exception e) {
            throw new AssertionError("closing a subscription threw", e);
        }
    }

    @Test
    void aHeartbeatWithoutATtlIsRejectedNamingIt() {
        Coordinator c = coordinator(namespace(), new VirtualTime().clock(EPOCH));
        assertThatThrownBy(() -> c.heartbeat("k", new NodeReport("a", "i", 1, 0, EPOCH), Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ttl");
    }
}
