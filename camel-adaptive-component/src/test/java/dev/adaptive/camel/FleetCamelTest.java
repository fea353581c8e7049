package dev.adaptive.camel;

import dev.adaptive.fleet.InMemoryCoordinator;
import dev.adaptive.testing.FlakyHttpServerExtension;
import dev.adaptive.testing.FlakyModel;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.component.http.HttpComponent;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two Camel applications (two contexts) calling one loopback backend through pools joined by
 * one {@code coordinator} bean: both see the fleet, and a 429 with Retry-After met by one
 * pauses the other.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FleetCamelTest {

    @RegisterExtension
    static final FlakyHttpServerExtension server = FlakyHttpServerExtension.of(FlakyModel.s3());

    private static CamelContext node(InMemoryCoordinator coordinator, PauseRecorder pauses) throws Exception {
        CamelContext camel = new DefaultCamelContext();
        camel.getRegistry().bind("fleet", coordinator);
        camel.getRegistry().bind("pauses", pauses);
        camel.getComponent("http", HttpComponent.class).setAutomaticRetriesDisabled(true);
        camel.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("adaptive:api").errorHandler(noErrorHandler())
                        .toD("http://127.0.0.1:" + server.port() + "${header.path}")
                        .convertBodyTo(String.class);
            }
        });
        camel.start();
        return camel;
    }

    private static Exchange call(CamelContext camel, String node, String path) {
        return camel.createProducerTemplate().request("adaptive:api?coordinator=#fleet&fleetNodeId=" + node
                + "&fleetKey=flaky-backend&fleetHeartbeat=100ms&traceListener=#pauses", e -> {
                    e.getIn().setHeader("path", path);
                    e.getIn().setHeader("X-Client", node);
                });
    }

    @Test
    void aRetryAfterMetByOneApplicationPausesTheOther() throws Exception {
        InMemoryCoordinator coordinator = InMemoryCoordinator.create();
        PauseRecorder pausesA = new PauseRecorder();
        PauseRecorder pausesB = new PauseRecorder();
        try (CamelContext a = node(coordinator, pausesA); CamelContext b = node(coordinator, pausesB)) {
            assertThat(call(b, "b", "/flaky").getException()).isNull();
            assertThat(call(a, "a", "/flaky").getException()).isNull();
            AdaptiveStats statsB = b.getComponent("adaptive", AdaptiveComponent.class).stats("api").orElseThrow();
            assertThat(statsB.fleet()).isNotNull();
            assertThat(coordinator.liveReports("flaky-backend")).hasSize(2);

            Exchange limited = call(a, "a", "/first429/fleet?x=1");
            assertThat(limited.getException()).isNull();
            assertThat(limited.getMessage().getHeader(AdaptiveConstants.ATTEMPTS, Integer.class)).isEqualTo(2);
            assertThat(pausesA.count()).isPositive();
            assertThat(pausesB.count()).as("b paused on a's Retry-After").isPositive();
            AdaptiveStats afterB = b.getComponent("adaptive", AdaptiveComponent.class).stats("api").orElseThrow();
            assertThat(afterB.rateLimitEvents()).as("b met no 429 itself").isZero();
            assertThat(afterB.fleet().pausesReceived()).isPositive();
        }
        assertThat(coordinator.liveReports("flaky-backend")).as("both left when their contexts stopped").isEmpty();
    }
}
