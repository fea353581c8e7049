package dev.adaptive.camel;

import dev.adaptive.LimiterState;
import dev.adaptive.testing.Until;
import org.apache.camel.Exchange;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.test.junit5.CamelTestSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A consumer route that starts dispatches, whatever happened to it before: a route suspended
 * (which pauses its pool), then stopped and started again, serves exchanges as a fresh one.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ConsumerRouteRestartTest extends CamelTestSupport {

    private final CountDownLatch entered = new CountDownLatch(1);
    private final CountDownLatch release = new CountDownLatch(1);

    @Override
    protected RouteBuilder createRouteBuilder() {
        return new RouteBuilder() {
            @Override
            public void configure() {
                from("adaptive:restarted").routeId("consumer").setBody(simple("ok ${body}"));
                from("adaptive:held?algorithm=fixed&maxLimit=1").routeId("held")
                        .process(e -> {
                            if ("0".equals(e.getMessage().getBody(String.class))) {
                                entered.countDown();
                                release.await(30, TimeUnit.SECONDS);
                            }
                        })
                        .setBody(simple("ok ${body}"));
            }
        };
    }

    @Test
    void aSuspendedConsumerRouteStoppedAndStartedAgainDispatches() throws Exception {
        assertThat(template.requestBody("adaptive:restarted", "1", String.class)).isEqualTo("ok 1");
        context.getRouteController().suspendRoute("consumer");
        context.getRouteController().stopRoute("consumer");
        context.getRouteController().startRoute("consumer");
        assertThat(context.getRouteController().getRouteStatus("consumer").isStarted()).isTrue();

        CompletableFuture<String> reply = template.asyncRequestBody("adaptive:restarted", "2", String.class);
        assertThat(reply.get(30, TimeUnit.SECONDS)).isEqualTo("ok 2");
        AdaptiveStats stats = context.getComponent("adaptive", AdaptiveComponent.class).stats("restarted").orElseThrow();
        assertThat(stats.state()).isEqualTo(LimiterState.RUNNING);
    }

    /**
     * A graceful stop of the consumer route fails nothing (the pool held nothing), and does not
     * mark the pool as stopping for good: an exchange sent while the route is stopped waits for
     * its consumer, and runs, not fails as stopped, once the route starts again.
     */
    @Test
    void anExchangeSentWhileTheConsumerRouteIsStoppedRunsOnceItStartsAgain() throws Exception {
        assertThat(template.requestBody("adaptive:restarted", "1", String.class)).isEqualTo("ok 1");
        context.getRouteController().stopRoute("consumer");
        CompletableFuture<String> waiting = template.asyncRequestBody("adaptive:restarted", "2", String.class);
        AdaptiveComponent adaptive = context.getComponent("adaptive", AdaptiveComponent.class);
        Until.met("the exchange waits for its consumer", Duration.ofSeconds(30),
                () -> adaptive.stats("restarted").map(AdaptiveStats::pending).orElse(0) >= 1);
        assertThat(waiting).as("no consumer: nothing runs it").isNotDone();
        context.getRouteController().startRoute("consumer");
        assertThat(waiting.get(30, TimeUnit.SECONDS)).isEqualTo("ok 2");
    }

    @Test
    void aSuspendedAndResumedConsumerRouteDispatchesAsBefore() throws Exception {
        context.getRouteController().suspendRoute("consumer");
        CompletableFuture<String> held = template.asyncRequestBody("adaptive:restarted", "held", String.class);
        AdaptiveComponent adaptive = context.getComponent("adaptive", AdaptiveComponent.class);
        Until.met("the held exchange waits in the paused pool", Duration.ofSeconds(30),
                () -> adaptive.stats("restarted").map(AdaptiveStats::pending).orElse(0) >= 1);
        assertThat(held).as("a suspended consumer route takes nothing").isNotDone();
        context.getRouteController().resumeRoute("consumer");
        assertThat(held.get(30, TimeUnit.SECONDS)).isEqualTo("ok held");
    }

    /**
     * Camel's suspend of a route is graceful, for this consumer as for seda's: the shutdown
     * strategy waits until the exchanges the pool holds (running and queued alike) have ended,
     * dispatching them meanwhile, and only then suspends the consumer; exchanges sent after that
     * wait until the route resumes.
     */
    @Test
    void aSuspendFirstLetsTheExchangesThePoolHoldsEndThenHoldsTheNextOnes() throws Exception {
        List<CompletableFuture<String>> held = new ArrayList<>();
        held.add(template.asyncRequestBody("adaptive:held", "0", String.class));
        assertThat(entered.await(30, TimeUnit.SECONDS)).isTrue();
        for (int i = 1; i <= 3; i++) {
            held.add(template.asyncRequestBody("adaptive:held", String.valueOf(i), String.class));
        }
        AdaptiveComponent adaptive = context.getComponent("adaptive", AdaptiveComponent.class);
        Until.met("three exchanges queued behind the running one", Duration.ofSeconds(30),
                () -> adaptive.stats("held").map(AdaptiveStats::pending).orElse(0) == 4);

        CompletableFuture<Void> suspend = CompletableFuture.runAsync(() -> {
            try {
                context.getRouteController().suspendRoute("held");
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        // The suspend waits for all four: it cannot end while the first holds the only slot.
        assertThat(suspend).isNotDone();
        release.countDown();
        for (int i = 0; i < held.size(); i++) {
            assertThat(held.get(i).get(30, TimeUnit.SECONDS)).isEqualTo("ok " + i);
        }
        suspend.get(30, TimeUnit.SECONDS);
        assertThat(context.getRouteController().getRouteStatus("held").isSuspended()).isTrue();

        CompletableFuture<String> after = template.asyncRequestBody("adaptive:held", "4", String.class);
        Until.met("the exchange sent after the suspend waits in the paused pool", Duration.ofSeconds(30),
                () -> adaptive.stats("held").map(AdaptiveStats::pending).orElse(0) == 1);
        assertThat(after).isNotDone();
        context.getRouteController().resumeRoute("held");
        assertThat(after.get(30, TimeUnit.SECONDS)).isEqualTo("ok 4");
    }

    /**
     * A stop of a suspended route does not wait for the exchanges the paused pool holds: nothing
     * dispatches them before a resume, which a stop never brings. With the shutdown strategy's
     * timeout at 60 s, the stop returns without timing out and they fail at once as stopped, each
     * once; a start after the stop dispatches again.
     */
    @Test
    void aStopOfASuspendedRouteFailsTheExchangesItHeldAtOnceNotWhenItsTimeoutRunsOut() throws Exception {
        context.getShutdownStrategy().setTimeout(60);
        context.getRouteController().suspendRoute("consumer");
        AsyncSends.Batch held = AsyncSends.send(context, "adaptive:restarted", 3, i -> "held " + i, Map.of());
        AdaptiveComponent adaptive = context.getComponent("adaptive", AdaptiveComponent.class);
        Until.met("the held exchanges wait in the paused pool", Duration.ofSeconds(30),
                () -> adaptive.stats("restarted").map(AdaptiveStats::pending).orElse(0) == 3);
        assertThat(held.done()).as("a suspended consumer route takes nothing").noneMatch(CompletableFuture::isDone);

        CompletableFuture<Void> stop = CompletableFuture.runAsync(() -> {
            try {
                context.getRouteController().stopRoute("consumer");
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });

        assertThat(stop).as("the stop, far from its 60 s timeout").succeedsWithin(Duration.ofSeconds(20));
        assertThat(context.getShutdownStrategy().isTimeoutOccurred()).as("the strategy timed out").isFalse();
        List<Exchange> ended = held.await(20);
        for (int i = 0; i < ended.size(); i++) {
            assertThat(ended.get(i).getException()).as("held exchange %s", i)
                    .isInstanceOf(AdaptivePoolStoppedException.class)
                    .hasMessage("adaptive pool 'restarted' refused the exchange: its consumer route stopped before the"
                            + " exchange completed");
            assertThat(held.callbacks(i)).as("callbacks of held exchange %s", i).isEqualTo(1);
        }
        assertThat(adaptive.stats("restarted").orElseThrow().pending()).isZero();

        context.getRouteController().startRoute("consumer");
        assertThat(template.asyncRequestBody("adaptive:restarted", "after", String.class).get(30, TimeUnit.SECONDS))
                .isEqualTo("ok after");
        held.stop();
    }
}
