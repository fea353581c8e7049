package dev.adaptive.camel;

import dev.adaptive.LimiterState;
import dev.adaptive.testing.Until;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.test.junit5.CamelTestSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A consumer route that starts dispatches, whatever happened to it before: a route suspended
 * (which pauses its pool), then stopped and started again, serves exchanges as a fresh one.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ConsumerRouteRestartTest extends CamelTestSupport {

    @Override
    protected RouteBuilder createRouteBuilder() {
        return new RouteBuilder() {
            @Override
            public void configure() {
                from("adaptive:restarted").routeId("consumer").setBody(simple("ok ${body}"));
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
}
