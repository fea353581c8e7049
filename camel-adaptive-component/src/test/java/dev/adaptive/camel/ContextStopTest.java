package dev.adaptive.camel;

import dev.adaptive.testing.FlakyHttpServer;
import dev.adaptive.testing.FlakyModel;
import org.apache.camel.Exchange;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.component.http.HttpComponent;
import org.apache.camel.model.RouteDefinition;
import org.apache.camel.spi.ShutdownStrategy;
import org.apache.camel.test.junit5.CamelTestSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The whole Camel context stops while exchanges wait in a pool and its few slots are taken by
 * attempts that do not finish: a route blocked on a latch (an interruptible wait), and a route
 * blocked in a camel-http call to a server that never answers (a socket read, which an
 * interrupt does not end). The callers are a route of their own, so Camel's shutdown strategy
 * counts their exchanges in flight as well as the pool's pending ones.
 *
 * <p>With a short shutdown timeout: the strategy times out, every caller's exchange ends with
 * {@link AdaptivePoolStoppedException} naming the pool and none hangs, even while attempts are
 * still stuck in their socket reads. The component's threads end: at once when interrupted,
 * and as soon as a stuck read returns (here: the silent server goes away), never kept idle.
 * Nothing is left in Camel's inflight repository.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ContextStopTest extends CamelTestSupport {

    private static final int EXCHANGES = 30;
    private static final int SLOTS = 3;

    private final CountDownLatch gate = new CountDownLatch(1);
    private final CountDownLatch allSlotsTaken = new CountDownLatch(SLOTS);
    private FlakyHttpServer silent;

    @AfterEach
    void release() {
        gate.countDown();
        if (silent != null) {
            silent.close();
        }
    }

    @Test
    void attemptsBlockedOnALatch() throws Exception {
        stopsWithEveryExchangeEnded("latched", route -> route.process(e -> {
            allSlotsTaken.countDown();
            // Never opened before the context stops: the attempt holds its slot to the end.
            gate.await(60, TimeUnit.SECONDS);
        }), () -> allSlotsTaken.await(30, TimeUnit.SECONDS), () -> { });
    }

    @Test
    void attemptsBlockedInAnHttpCallThatIsNeverAnswered() throws Exception {
        silent = FlakyHttpServer.start(FlakyModel.holding(1));
        silent.holding(true);
        HttpComponent http = context.getComponent("http", HttpComponent.class);
        http.setAutomaticRetriesDisabled(true);
        http.setConnectionsPerRoute(16);
        stopsWithEveryExchangeEnded("unanswered", route -> route
                .toD("http://127.0.0.1:" + silent.port() + "/never/${body}?httpMethod=GET"),
                // Every slot's attempt is inside its read when the context stops.
                () -> silent.awaitHeld(SLOTS, Duration.ofSeconds(30)),
                // Camel's stop may leave those reads stuck; the server going away ends them.
                silent::stop);
    }

    /**
     * A strategy that does not force the routes on its timeout: the component's own stop then
     * ends what the pool holds, with the same exception.
     */
    @Test
    void attemptsBlockedInAnHttpCallWhenTheShutdownDoesNotForceTheRoutes() throws Exception {
        context.getShutdownStrategy().setShutdownNowOnTimeout(false);
        attemptsBlockedInAnHttpCallThatIsNeverAnswered();
    }

    /** Something the test waits for, bounded. */
    interface Await {
        boolean await() throws InterruptedException;
    }

    private void stopsWithEveryExchangeEnded(String pool, Consumer<RouteDefinition> blockingSteps, Await slotsTaken,
                                             Runnable downstreamGivesUp) throws Exception {
        context.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("direct:callers").routeId("callers")
                        .to("adaptive:" + pool + "?algorithm=fixed&maxLimit=" + SLOTS + "&retries=0");
                RouteDefinition consumer = from("adaptive:" + pool).routeId(pool).errorHandler(noErrorHandler());
                blockingSteps.accept(consumer);
            }
        });
        ShutdownStrategy strategy = context.getShutdownStrategy();
        strategy.setTimeout(1);
        AsyncSends.Batch batch = AsyncSends.send(context, "direct:callers", EXCHANGES, i -> i, Map.of());
        assertThat(slotsTaken.await()).as("every slot taken by a blocked attempt").isTrue();

        // What the shutdown strategy will find pending: the callers' exchanges, and the pool's.
        AdaptiveConsumer consumer = (AdaptiveConsumer) context.getRoute(pool).getConsumer();
        assertThat(consumer.getPendingExchangesSize()).isEqualTo(EXCHANGES);
        assertThat(context.getInflightRepository().size("callers")).isEqualTo(EXCHANGES);
        assertThat(context.getInflightRepository().size(pool)).as("attempts in the consumer route").isEqualTo(SLOTS);
        List<Thread> componentThreads = componentThreads();
        // A thread per running attempt (the scheduler's starts with its first timer, if any).
        assertThat(componentThreads).hasSizeGreaterThanOrEqualTo(SLOTS);

        context.stop();

        assertThat(strategy.isTimeoutOccurred()).as("the strategy timed out waiting for them").isTrue();
        List<Exchange> done = batch.await(30);
        batch.stop();
        assertThat(done).hasSize(EXCHANGES).allSatisfy(e -> assertThat(e.getException())
                .as("exchange %s", e.getIn().getBody())
                .isInstanceOf(AdaptivePoolStoppedException.class)
                .hasMessageContaining("adaptive pool '" + pool + "'"));

        // Every caller ended even if attempts are still stuck; then the component's threads end
        // (waiting for them is bounded) and none may remain.
        long stuck = componentThreads.stream().filter(Thread::isAlive).count();
        downstreamGivesUp.run();
        for (Thread t : componentThreads) {
            t.join(TimeUnit.SECONDS.toMillis(30));
        }
        assertThat(componentThreads).as("threads of the adaptive component after the context stopped")
                .noneMatch(Thread::isAlive);
        assertThat(componentThreads()).isEmpty();
        assertThat(context.getInflightRepository().size()).isZero();
        System.out.printf("context stop (%s): %d exchanges ended with AdaptivePoolStoppedException; %d threads"
                + " of the component, %d still alive when every caller had ended, all ended%n", pool, EXCHANGES,
                componentThreads.size(), stuck);
    }

    private List<Thread> componentThreads() {
        String camel = "(" + context.getName() + ")";
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().contains(camel)
                        && (t.getName().contains("Adaptive[") || t.getName().contains("AdaptiveScheduler")))
                .toList();
    }
}
