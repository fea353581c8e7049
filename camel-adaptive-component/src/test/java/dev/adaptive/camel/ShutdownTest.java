package dev.adaptive.camel;

import org.apache.camel.Exchange;
import org.apache.camel.Processor;
import org.apache.camel.RoutesBuilder;
import org.apache.camel.Service;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.spi.ShutdownPrepared;
import org.apache.camel.test.junit5.CamelTestSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
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
                            firstEntered.countDown();
                            assertThat(gate.await(60, TimeUnit.SECONDS)).isTrue();
                            e.getMessage().setBody("done " + e.getIn().getBody());
                        });
            }
        };
    }

    @Test
    void queuedExchangesStillRunBeforeTheConsumerRouteStops() throws Exception {
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
}
