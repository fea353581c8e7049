package dev.adaptive.camel;

import dev.adaptive.LimiterStats;
import dev.adaptive.RateLimitedException;
import dev.adaptive.testing.Until;
import org.apache.camel.Exchange;
import org.apache.camel.Processor;
import org.apache.camel.RoutesBuilder;
import org.apache.camel.Service;
import org.apache.camel.ServiceStatus;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.spi.ShutdownPrepared;
import org.apache.camel.test.junit5.CamelTestSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Stopping Camel with exchanges queued in a pool: the shutdown strategy sees them as pending
 * and keeps the consumer route running until they ran; if its timeout runs out, every
 * exchange still held fails with a clear exception. None is lost or left hanging.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class ShutdownTest extends CamelTestSupport {

    private static final int EXCHANGES = 20;
    private final CountDownLatch gate = new CountDownLatch(1);
    private final CountDownLatch firstEntered = new CountDownLatch(1);
    /** The bodies of the attempts that entered the blocking step, in order. */
    private final List<Object> entered = new CopyOnWriteArrayList<>();
    private final StrategyWaiting strategyWaiting = new StrategyWaiting();

    /**
     * A step of the consumer route that Camel's shutdown strategy prepares after it decided
     * which consumers to defer and before it waits for pending exchanges.
     */
    private static final class StrategyWaiting implements Processor, Service, ShutdownPrepared {
        final CountDownLatch prepared = new CountDownLatch(1);

        @Override
        public void process(Exchange exchange) {
        }

        @Override
        public void prepareShutdown(boolean suspendOnly, boolean forced) {
            prepared.countDown();
        }

        @Override
        public void start() {
        }

        @Override
        public void stop() {
        }
    }

    @AfterEach
    void openGate() {
        gate.countDown();
    }

    @Override
    protected RoutesBuilder createRouteBuilder() {
        return new RouteBuilder() {
            @Override
            public void configure() {
                from("adaptive:slow").routeId("slow")
                        .process(strategyWaiting)
                        .process(e -> {
                            entered.add(e.getIn().getBody());
                            firstEntered.countDown();
                            assertThat(gate.await(60, TimeUnit.SECONDS)).isTrue();
                            e.getMessage().setBody("done " + e.getIn().getBody());
                        });
                // The backend answers the blocked attempt with a 429 once the gate opens.
                from("adaptive:limited").routeId("limited")
                        .process(e -> {
                            if (e.getIn().getBody() instanceof Integer) {
                                entered.add(e.getIn().getBody());
                                firstEntered.countDown();
                                assertThat(gate.await(60, TimeUnit.SECONDS)).isTrue();
                                throw new RateLimitedException("the backend answered 429", Duration.ofMillis(200));
                            }
                            e.getMessage().setBody("done " + e.getIn().getBody());
                        });
            }
        };
    }

    @Test
    void queuedExchangesStillRunBeforeTheConsumerRouteSteps() throws Exception {
        context.getShutdownStrategy().setTimeout(60);
        AsyncSends.Batch batch = AsyncSends.send(context, "adaptive:slow?algorithm=fixed&maxLimit=1", EXCHANGES,
                i -> i, Map.of());
        assertThat(firstEntered.await(30, TimeUnit.SECONDS)).isTrue();
        AdaptiveConsumer consumer = (AdaptiveConsumer) context.getRoute("slow").getConsumer();
        assertThat(consumer.getPendingExchangesSize()).isEqualTo(EXCHANGES);

        Thread stopper = new Thread(context::stop, "stopper");
        stopper.start();
        assertThat(strategyWaiting.prepared.await(30, TimeUnit.SECONDS)).isTrue();
        // The strategy is about to wait; the consumer was deferred, not stopped.
        assertThat(consumer.isStarted()).isTrue();
        gate.countDown();
        stopper.join(TimeUnit.SECONDS.toMillis(60));
        assertThat(stopper.isAlive()).isFalse();

        List<Exchange> done = batch.await(10);
        assertThat(done).allSatisfy(e -> {
            assertThat(e.getException()).isNull();
            assertThat(e.getMessage().getBody(String.class)).startsWith("done ");
        });
        assertThat(consumer.isStopped()).isTrue();
        batch.stop();
    }

    @Test
    void whenTheShutdownTimesOutEveryHeldExchangeFailsWithAClearException() throws Exception {
        context.getShutdownStrategy().setTimeout(1);
        AsyncSends.Batch batch = AsyncSends.send(context, "adaptive:slow?algorithm=fixed&maxLimit=1", EXCHANGES,
                i -> i, Map.of());
        assertThat(firstEntered.await(30, TimeUnit.SECONDS)).isTrue();

        context.stop(); // the running attempt never finishes: the gate stays shut

        List<Exchange> done = batch.await(30);
        assertThat(done).allSatisfy(e -> assertThat(e.getException())
                .isInstanceOf(AdaptivePoolStoppedException.class)
                .hasMessageContaining("adaptive pool 'slow' refused the exchange"));
        batch.stop();
    }

    /**
     * A stop of the consumer route alone whose timeout runs out while an attempt holds the only
     * slot: Camel stops the consumer (the context goes on), and the exchanges queued behind the
     * attempt fail at once, not when a slot would have come to them; the running attempt
     * finishes its step; every exchange ends once; the route starts again and serves the next
     * exchange.
     */
    @Test
    void aRouteStopWhoseTimeoutRunsOutFailsTheQueuedExchangesAtOnceAndTheRouteStartsAgain() throws Exception {
        forcedStopOfTheConsumerRoute(() -> context.getRouteController().stopRoute("slow", 1, TimeUnit.SECONDS),
                ServiceStatus.Stopped, () -> context.getRouteController().startRoute("slow"));
    }

    /** The same with the timeout the strategy gives every stop, made short. */
    @Test
    void aRouteStopWhoseDefaultTimeoutRunsOutDoesTheSame() throws Exception {
        context.getShutdownStrategy().setTimeout(1);
        forcedStopOfTheConsumerRoute(() -> context.getRouteController().stopRoute("slow"), ServiceStatus.Stopped,
                () -> context.getRouteController().startRoute("slow"));
    }

    /**
     * A suspend waits for what the pool holds to end; when its timeout runs out first, Camel
     * stops the consumer instead of suspending it (its shutdown task may suspend it too, first or
     * after, which pauses the pool), and the pool fails what is queued as for a forced stop. The
     * running attempt is not retried in the paused pool. A resume does not start a stopped
     * consumer: a stop and a start of the route do.
     */
    @Test
    void aSuspendWhoseTimeoutRunsOutStopsTheConsumerAndFailsTheQueuedExchangesTheSameWay() throws Exception {
        forcedStopOfTheConsumerRoute(() -> context.getRouteController().suspendRoute("slow", 1, TimeUnit.SECONDS),
                ServiceStatus.Suspended, () -> {
                    context.getRouteController().stopRoute("slow");
                    context.getRouteController().startRoute("slow");
                });
    }

    /**
     * A running attempt that the backend answers with a rate limit once the route's stop was
     * forced is not retried either, not even on the rate-limit budget: the retry could only be
     * refused, or wait for good in the paused pool. It still counts as a rate limit, and its
     * Retry-After still pauses the pool.
     */
    @Test
    void aRateLimitedAttemptEndingAfterAForcedRouteStopIsNotRetried() throws Exception {
        forcedStopOfTheConsumerRoute("limited", () -> context.getRouteController().stopRoute("limited", 1, TimeUnit.SECONDS),
                ServiceStatus.Stopped, () -> context.getRouteController().startRoute("limited"),
                RateLimitedException.class);
    }

    /** The same after a suspend whose timeout runs out, where the retry would wait in the paused pool. */
    @Test
    void aRateLimitedAttemptEndingAfterASuspendThatTimedOutIsNotRetried() throws Exception {
        forcedStopOfTheConsumerRoute("limited",
                () -> context.getRouteController().suspendRoute("limited", 1, TimeUnit.SECONDS),
                ServiceStatus.Suspended, () -> {
                    context.getRouteController().stopRoute("limited");
                    context.getRouteController().startRoute("limited");
                }, RateLimitedException.class);
    }

    /** A call to the route controller. */
    private interface RouteStep {
        void run() throws Exception;
    }

    private void forcedStopOfTheConsumerRoute(RouteStep stop, ServiceStatus statusAfter, RouteStep restart)
            throws Exception {
        forcedStopOfTheConsumerRoute("slow", stop, statusAfter, restart, RejectedExecutionException.class);
    }

    /**
     * @param route     the consumer route, and its pool's name
     * @param failure   what the running attempt fails with once the gate opens
     */
    private void forcedStopOfTheConsumerRoute(String route, RouteStep stop, ServiceStatus statusAfter, RouteStep restart,
                                              Class<? extends Throwable> failure) throws Exception {
        String uri = "adaptive:" + route + "?algorithm=fixed&maxLimit=1";
        AsyncSends.Batch batch = AsyncSends.send(context, uri, EXCHANGES, i -> i, Map.of());
        assertThat(firstEntered.await(30, TimeUnit.SECONDS)).isTrue();
        int running = (Integer) entered.get(0);

        stop.run();

        assertThat(context.getRouteController().getRouteStatus(route)).isEqualTo(statusAfter);
        assertThat(context.getShutdownStrategy().isTimeoutOccurred()).as("the strategy timed out").isTrue();
        assertThat(context.getStatus().isStarted()).as("the context goes on").isTrue();
        List<CompletableFuture<Exchange>> queued = new ArrayList<>(batch.done());
        queued.remove(running);
        // The gate is still shut: the running attempt holds the only slot, so nothing queued
        // behind it could have ended by being dispatched.
        assertThat(CompletableFuture.allOf(queued.toArray(new CompletableFuture<?>[0])))
                .as("the queued exchanges, while the running attempt holds the slot")
                .succeedsWithin(Duration.ofSeconds(10));
        assertThat(batch.done().get(running)).as("the running attempt's exchange").isNotDone();
        for (int i = 0; i < EXCHANGES; i++) {
            if (i != running) {
                assertThat(batch.exchanges().get(i).getException()).as("queued exchange %s", i)
                        .isInstanceOf(AdaptivePoolStoppedException.class)
                        .hasMessage("adaptive pool '" + route + "' refused the exchange: its consumer route stopped before"
                                + " the exchange completed");
            }
        }

        gate.countDown();
        // Its step runs to its end; Camel then refuses to route it on (the stopped route's error
        // handler rejects it), and the pool, stopping, tells its caller so.
        // Not retried: a retry could only be refused.
        Exchange first = batch.done().get(running).get(30, TimeUnit.SECONDS);
        if (failure == RejectedExecutionException.class) {
            assertThat(first.getMessage().getBody(String.class)).isEqualTo("done " + running);
        }
        assertThat(first.getException()).isInstanceOf(AdaptivePoolStoppedException.class)
                .hasMessageStartingWith("adaptive pool '" + route + "' stopped while the exchange's attempt was running (its"
                        + " consumer route stopped before the exchange completed)")
                .hasCauseInstanceOf(failure);
        AdaptiveComponent adaptive = context.getComponent("adaptive", AdaptiveComponent.class);
        Until.met("the pool holds nothing", Duration.ofSeconds(30),
                () -> adaptive.stats(route).orElseThrow().pending() == 0
                        && adaptive.stats(route).orElseThrow().inflight() == 0);
        for (int i = 0; i < EXCHANGES; i++) {
            assertThat(batch.callbacks(i)).as("callbacks of exchange %s", i).isEqualTo(1);
        }
        assertThat(entered).as("only the running attempt entered the route").containsExactly(running);
        AdaptiveStats stats = adaptive.stats(route).orElseThrow();
        assertThat(stats.failed()).isEqualTo(EXCHANGES);
        if (failure == RateLimitedException.class) {
            // Released as the rate limit it was, which paused the pool for its Retry-After (for
            // the route's next start), not as a drop.
            assertThat(stats.rateLimitEvents()).as("rate-limited attempts").isEqualTo(1);
            assertThat(stats.congestionEvents()).as("drops").isZero();
            LimiterStats limiter = adaptive.pool(route).limiter().stats();
            assertThat(limiter.pausesOpened()).as("Retry-After pauses opened").isEqualTo(1);
            assertThat(limiter.lastRetryAfter()).isEqualTo(Duration.ofMillis(200));
        }

        restart.run();
        assertThat(template.requestBody(uri, "after the restart", String.class)).isEqualTo("done after the restart");
        batch.stop();
    }
}
