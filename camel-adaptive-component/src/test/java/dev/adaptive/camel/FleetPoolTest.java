package dev.adaptive.camel;

import dev.adaptive.RateLimitedException;
import dev.adaptive.fleet.InMemoryCoordinator;
import dev.adaptive.time.VirtualTime;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.Processor;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.AsyncProcessorConverterHelper;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two pools joined through one coordinator, as two Camel applications calling one backend
 * would be, in virtual time: they share one ceiling, and a Retry-After seen by one pauses both.
 */
class FleetPoolTest {

    private final VirtualTime time = new VirtualTime();
    private final InMemoryCoordinator coordinator = new InMemoryCoordinator(time);
    private final CamelContext camel = new DefaultCamelContext();

    @AfterEach
    void noTaskFailed() {
        assertThat(time.uncaught()).isEmpty();
    }

    private ExchangePool node(String id, Executor workers, Processor route) {
        PoolConfig config = PoolConfig.builder().set("algorithm", "fixed").set("maxLimit", 6).set("coordinator", coordinator)
                .set("fleetNodeId", id).set("fleetHeartbeat", Duration.ofMillis(100)).build();
        ExchangePool pool = new ExchangePool("backend", () -> config, time, time, workers,
                time.clock(Instant.parse("2025-03-01T12:00:00Z")));
        pool.attach(this, AsyncProcessorConverterHelper.convert(route));
        return pool;
    }

    private void submit(ExchangePool pool, int n) {
        for (int i = 0; i < n; i++) {
            pool.submit(new DefaultExchange(camel), doneSync -> { }, Duration.ofSeconds(30), false);
        }
    }

    @Test
    void twoNodesShareOneCeiling() {
        List<Runnable> heldA = new ArrayList<>();
        List<Runnable> heldB = new ArrayList<>();
        ExchangePool a = node("a", heldA::add, e -> { });
        ExchangePool b = node("b", heldB::add, e -> { });

        submit(a, 10);
        submit(b, 10);
        time.advance(Duration.ofMillis(500));
        assertThat(a.stats().inflight() + b.stats().inflight()).isLessThanOrEqualTo(6);
        assertThat(a.stats().fleet().globalCeiling()).isEqualTo(6);
        assertThat(b.stats().fleet().liveNodes()).isEqualTo(2);

        // As calls finish, the shares settle at 3 + 3 while both have work, and the fleet never exceeds 6.
        boolean evenWhileBusy = false;
        for (int round = 0; round < 20; round++) {
            List<Runnable> run = new ArrayList<>(heldA);
            run.addAll(heldB);
            heldA.clear();
            heldB.clear();
            run.forEach(Runnable::run);
            time.advance(Duration.ofMillis(100));
            assertThat(a.stats().inflight() + b.stats().inflight()).isLessThanOrEqualTo(6);
            evenWhileBusy |= a.stats().fleet().share() == 3 && b.stats().fleet().share() == 3;
        }
        assertThat(evenWhileBusy).isTrue();
        // Idle now: shares follow demand, each node keeps one slot, and the ceiling stays 6.
        assertThat(a.stats().fleet().share()).isEqualTo(1);
        assertThat(b.stats().fleet().share()).isEqualTo(1);
        assertThat(a.stats().fleet().globalCeiling()).isEqualTo(6);
        assertThat(a.stats().completed() + b.stats().completed()).isEqualTo(20);
        a.close();
        b.close();
        assertThat(coordinator.liveReports("backend")).isEmpty();
    }

    @Test
    void aRetryAfterSeenByOneNodePausesTheOther() {
        AtomicInteger calls = new AtomicInteger();
        List<Long> aLog = new ArrayList<>();
        List<Long> bLog = new ArrayList<>();
        ExchangePool a = node("a", Runnable::run, e -> {
            aLog.add(time.elapsed().toMillis());
            if (calls.getAndIncrement() == 0) {
                throw new RateLimitedException(Duration.ofSeconds(5));
            }
        });
        ExchangePool b = node("b", Runnable::run, e -> bLog.add(time.elapsed().toMillis()));
        submit(b, 1);
        assertThat(bLog).containsExactly(0L);

        // a joins with no share until b's claim makes room (b's next heartbeat), then meets a 429.
        submit(a, 1);
        time.advance(Duration.ofMillis(500));
        assertThat(aLog).hasSize(1);
        long pausedAt = aLog.get(0);
        assertThat(a.stats().ratePaused()).isTrue();
        assertThat(b.stats().ratePaused()).as("the pause reached the other node").isTrue();

        submit(b, 1);
        time.advanceTo(time.nanoTime() + Duration.ofMillis(pausedAt + 4_999 - time.elapsed().toMillis()).toNanos());
        assertThat(bLog).as("nothing dispatched by b inside a's pause").containsExactly(0L);

        time.advance(Duration.ofMillis(200));
        assertThat(bLog).hasSize(2);
        assertThat(bLog.get(1)).isGreaterThanOrEqualTo(pausedAt + 5_000);
        assertThat(b.stats().fleet().pausesReceived()).isPositive();
        assertThat(b.stats().rateLimitEvents()).as("b itself saw no 429").isZero();
        a.close();
        b.close();
    }

    @Test
    void withoutACoordinatorThereIsNoFleet() {
        PoolConfig config = PoolConfig.builder().build();
        ExchangePool alone = new ExchangePool("alone", () -> config, time, time, Runnable::run,
                time.clock(Instant.EPOCH));
        alone.attach(this, AsyncProcessorConverterHelper.convert(e -> { }));
        Exchange x = new DefaultExchange(camel);
        alone.submit(x, doneSync -> { }, Duration.ZERO, false);
        assertThat(alone.stats().fleet()).isNull();
    }
}
