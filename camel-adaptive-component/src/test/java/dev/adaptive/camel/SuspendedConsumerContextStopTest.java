package dev.adaptive.camel;

import dev.adaptive.testing.Until;
import org.apache.camel.Exchange;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.support.service.ServiceHelper;
import org.apache.camel.test.junit5.CamelTestSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The context stops while the consumer route of a pool is suspended and a route of the same
 * context has sent an exchange into the paused pool. Camel counts that exchange in flight in
 * the sending route, and nothing would dispatch it before the context is gone: the stop fails
 * it at once with {@link AdaptivePoolStoppedException}, and so returns long before the shutdown
 * strategy's timeout (120 s here), without that timeout running out. An attempt still running
 * in the pool is waited for, and ends as it would have.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class SuspendedConsumerContextStopTest extends CamelTestSupport {

    private final CountDownLatch entered = new CountDownLatch(1);
    private final CountDownLatch release = new CountDownLatch(1);
    private final CountDownLatch sendLate = new CountDownLatch(1);

    @AfterEach
    void openGate() {
        release.countDown();
        sendLate.countDown();
    }

    @Override
    protected RouteBuilder createRouteBuilder() {
        return new RouteBuilder() {
            @Override
            public void configure() {
                from("direct:send").routeId("send")
                        .process(e -> {
                            if ("late".equals(e.getMessage().getBody(String.class))) {
                                sendLate.await(60, TimeUnit.SECONDS);
                            }
                        })
                        .to("adaptive:p?algorithm=fixed&maxLimit=2");
                from("adaptive:p").routeId("consumer")
                        .process(e -> {
                            if ("running".equals(e.getMessage().getBody(String.class))) {
                                entered.countDown();
                                release.await(60, TimeUnit.SECONDS);
                            }
                        })
                        .setBody(simple("ok ${body}"));
            }
        };
    }

    @Test
    void anExchangeARouteSentIntoTheSuspendedPoolFailsAtOnceAndTheStopDoesNotWaitOutItsTimeout() throws Exception {
        context.getShutdownStrategy().setTimeout(120);
        context.getRouteController().suspendRoute("consumer");
        AsyncSends.Batch held = AsyncSends.send(context, "direct:send", 1, i -> "held", Map.of());
        AdaptiveComponent adaptive = context.getComponent("adaptive", AdaptiveComponent.class);
        Until.met("the exchange waits in the paused pool", Duration.ofSeconds(30),
                () -> adaptive.stats("p").map(AdaptiveStats::pending).orElse(0) == 1);
        assertThat(context.getInflightRepository().size("send")).as("in flight in the sending route").isEqualTo(1);

        CompletableFuture<Void> stop = CompletableFuture.runAsync(context::stop);

        assertThat(stop).as("the context's stop, far from its 120 s timeout").succeedsWithin(Duration.ofSeconds(30));
        assertThat(context.getShutdownStrategy().isTimeoutOccurred()).as("the strategy timed out").isFalse();
        Exchange ended = held.await(30).get(0);
        assertThat(ended.getException()).isInstanceOf(AdaptivePoolStoppedException.class)
                .hasMessage("adaptive pool 'p' refused the exchange: the Camel context stopped while its consumer"
                        + " route was suspended");
        assertThat(held.callbacks(0)).isEqualTo(1);
        assertThat(context.getInflightRepository().size()).isZero();
        held.stop();
    }

    /**
     * A route of the context sends into the paused pool while the stop already waits (its
     * exchange was on its way there when the stop began): that exchange fails too, at the
     * shutdown strategy's next look, and the stop still ends without its timeout running out.
     */
    @Test
    void anExchangeARouteSendsIntoTheSuspendedPoolWhileTheStopWaitsFailsToo() throws Exception {
        context.getShutdownStrategy().setTimeout(120);
        context.getRouteController().suspendRoute("consumer");
        AsyncSends.Batch held = AsyncSends.send(context, "direct:send", 1, i -> "held", Map.of());
        // Its route holds the sending thread until sendLate opens: it is sent from a thread of its own.
        CompletableFuture<AsyncSends.Batch> late = CompletableFuture.supplyAsync(
                () -> AsyncSends.send(context, "direct:send", 1, i -> "late", Map.of()));
        AdaptiveComponent adaptive = context.getComponent("adaptive", AdaptiveComponent.class);
        Until.met("the first exchange waits in the paused pool", Duration.ofSeconds(30),
                () -> adaptive.stats("p").map(AdaptiveStats::pending).orElse(0) == 1);
        Until.met("the second exchange is in flight in the sending route", Duration.ofSeconds(30),
                () -> context.getInflightRepository().size("send") == 2);

        CompletableFuture<Void> stop = CompletableFuture.runAsync(context::stop);

        assertThat(held.await(30).get(0).getException()).isInstanceOf(AdaptivePoolStoppedException.class);
        assertThat(late).as("still on its way to the pool").isNotDone();
        sendLate.countDown();
        AsyncSends.Batch lateBatch = late.get(30, TimeUnit.SECONDS);
        Exchange ended = lateBatch.await(30).get(0);
        assertThat(ended.getException()).isInstanceOf(AdaptivePoolStoppedException.class)
                .hasMessageContaining("adaptive pool 'p'");
        assertThat(stop).as("the context's stop, far from its 120 s timeout").succeedsWithin(Duration.ofSeconds(30));
        assertThat(context.getShutdownStrategy().isTimeoutOccurred()).as("the strategy timed out").isFalse();
        held.stop();
        lateBatch.stop();
    }

    /**
     * The consumer suspended while an attempt runs (as a route policy suspends it, with no
     * graceful wait): the stop fails the queued exchange at once, yet waits for the running
     * attempt, which ends with its own result.
     */
    @Test
    void anAttemptRunningInTheSuspendedPoolIsWaitedForWhileTheQueuedExchangeFailsAtOnce() throws Exception {
        context.getShutdownStrategy().setTimeout(120);
        AsyncSends.Batch running = AsyncSends.send(context, "direct:send", 1, i -> "running", Map.of());
        assertThat(entered.await(30, TimeUnit.SECONDS)).isTrue();
        ServiceHelper.suspendService(context.getRoute("consumer").getConsumer());
        AsyncSends.Batch queued = AsyncSends.send(context, "direct:send", 1, i -> "queued", Map.of());
        AdaptiveComponent adaptive = context.getComponent("adaptive", AdaptiveComponent.class);
        Until.met("the second exchange waits in the paused pool", Duration.ofSeconds(30),
                () -> adaptive.stats("p").map(AdaptiveStats::pending).orElse(0) == 2);

        CompletableFuture<Void> stop = CompletableFuture.runAsync(context::stop);

        List<Exchange> failed = queued.await(30);
        assertThat(failed.get(0).getException()).isInstanceOf(AdaptivePoolStoppedException.class)
                .hasMessageContaining("adaptive pool 'p'");
        assertThat(running.done().get(0)).as("the running attempt is waited for").isNotDone();
        assertThat(stop).as("the stop waits for the running attempt").isNotDone();

        release.countDown();
        Exchange ran = running.await(30).get(0);
        assertThat(ran.getException()).isNull();
        assertThat(ran.getMessage().getBody(String.class)).isEqualTo("ok running");
        assertThat(stop).as("the context's stop, far from its 120 s timeout").succeedsWithin(Duration.ofSeconds(30));
        assertThat(context.getShutdownStrategy().isTimeoutOccurred()).as("the strategy timed out").isFalse();
        running.stop();
        queued.stop();
    }
}
