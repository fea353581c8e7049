package dev.adaptive.hazelcast;

import dev.adaptive.camel.AdaptiveComponent;
import dev.adaptive.fleet.FleetStats;
import dev.adaptive.testing.FlakyHttpServerExtension;
import dev.adaptive.testing.FlakyModel;
import dev.adaptive.testing.Until;
import org.apache.camel.CamelContext;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.component.http.HttpComponent;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two Camel applications, each with its own context on its own member of one two-member
 * Hazelcast cluster on 127.0.0.1, call one loopback server through {@code adaptive:} pools
 * joined by a {@link HazelcastCoordinator} bean ({@code coordinator=#fleet}). Each pool has a
 * fixed limit of 6, so the fleet's ceiling is 6 and each application gets 3; together they
 * never have more than 6 requests at the server.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class CamelFleetTest {

    private static final int CEILING = 6;

    @RegisterExtension
    static final FlakyHttpServerExtension server = FlakyHttpServerExtension.of(FlakyModel.holding(20));

    private static TestCluster cluster;

    @BeforeAll
    static void start() throws Exception {
        cluster = TestCluster.start(2);
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static CamelContext application(int member) throws Exception {
        CamelContext camel = new DefaultCamelContext();
        camel.getRegistry().bind("fleet", HazelcastCoordinator.create(cluster.member(member)));
        camel.getComponent("http", HttpComponent.class).setAutomaticRetriesDisabled(true);
        camel.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("adaptive:api").errorHandler(noErrorHandler())
                        .to("http://127.0.0.1:" + server.port() + "/app-" + member)
                        .convertBodyTo(String.class);
            }
        });
        camel.start();
        return camel;
    }

    private static String uri(int member) {
        return "adaptive:api?algorithm=fixed&maxLimit=" + CEILING + "&coordinator=#fleet&fleetKey=payments-api"
                + "&fleetNodeId=app-" + member + "&fleetHeartbeat=200ms";
    }

    private static FleetStats fleet(CamelContext camel) {
        return camel.getComponent("adaptive", AdaptiveComponent.class).stats("api").orElseThrow().fleet();
    }

    @Test
    void twoCamelContextsOnTwoMembersShareOneCeiling() throws Exception {
        try (CamelContext a = application(0); CamelContext b = application(1)) {
            ProducerTemplate ta = a.createProducerTemplate();
            ProducerTemplate tb = b.createProducerTemplate();
            assertThat(ta.requestBody(uri(0), "", String.class)).isEqualTo("ok");
            assertThat(tb.requestBody(uri(1), "", String.class)).isEqualTo("ok");
            Until.met("both applications see the fleet", Duration.ofSeconds(30), () ->
                    fleet(a).liveNodes() == 2 && fleet(b).liveNodes() == 2 && fleet(a).globalCeiling() == CEILING
                            && fleet(b).globalCeiling() == CEILING && fleet(a).share() >= 1 && fleet(b).share() >= 1);
            server.get().resetMax();
            List<CompletableFuture<String>> replies = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                replies.add(ta.asyncRequestBody(uri(0), "", String.class));
                replies.add(tb.asyncRequestBody(uri(1), "", String.class));
            }
            for (CompletableFuture<String> r : replies) {
                assertThat(r.get(60, TimeUnit.SECONDS)).isEqualTo("ok");
            }
            System.out.println("camel fleet: server max in flight " + server.get().maxInflight() + "; a " + fleet(a)
                    + "; b " + fleet(b));
            assertThat(server.get().maxInflight()).as("both applications' calls at the server").isLessThanOrEqualTo(CEILING);
            assertThat(server.get().maxInflight()).as("the fleet used more than one application's share")
                    .isGreaterThan(CEILING / 2);
            assertThat(fleet(a).globalCeiling()).isEqualTo(CEILING);
            assertThat(fleet(b).globalCeiling()).isEqualTo(CEILING);
        }
        Until.met("both left when their contexts stopped", Duration.ofSeconds(10),
                () -> !cluster.member(0).getMap("adaptive.fleet.reports").containsKey("payments-api"));
    }
}
