package dev.adaptive.camel;

import dev.adaptive.testing.FlakyHttpServerExtension;
import dev.adaptive.testing.FlakyModel;
import org.apache.camel.RoutesBuilder;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.component.http.HttpComponent;
import org.apache.camel.test.junit5.CamelTestSupport;
import org.apache.camel.test.junit5.TestExecutionConfiguration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import javax.management.MBeanServer;
import javax.management.ObjectName;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A pool's figures are the attributes of its one MBean ({@code type=adaptive-pools}), however
 * many endpoints share it, so that summing over MBeans counts each pool once; the endpoints'
 * MBeans name their pool. The route policy is managed too.
 */
class JmxTest extends CamelTestSupport {

    @RegisterExtension
    static final FlakyHttpServerExtension server = FlakyHttpServerExtension.of(FlakyModel.s3());

    @Override
    public void configureTest(TestExecutionConfiguration testExecutionConfiguration) {
        super.configureTest(testExecutionConfiguration);
        testExecutionConfiguration.withEnableJMX();
    }

    @Override
    protected RoutesBuilder createRouteBuilder() {
        return new RouteBuilder() {
            @Override
            public void configure() {
                getContext().getComponent("http", HttpComponent.class).setAutomaticRetriesDisabled(true);
                from("direct:in").to("adaptive:jmx?algorithm=fixed&maxLimit=4");
                from("direct:again").to("adaptive:jmx");
                from("adaptive:jmx").setBody(constant("ok"));
                from("direct:limited").to("adaptive:limited");
                from("adaptive:limited").errorHandler(noErrorHandler())
                        .to("http://127.0.0.1:" + server.port() + "/first429/jmx").convertBodyTo(String.class);
                from("direct:guarded").routeId("guarded").routePolicy(AdaptiveRoutePolicy.builder().build())
                        .setBody(constant("ok"));
            }
        };
    }

    private MBeanServer mbeans() {
        return context.getManagementStrategy().getManagementAgent().getMBeanServer();
    }

    private ObjectName pool(String name) throws Exception {
        Set<ObjectName> pools = mbeans().queryNames(new ObjectName("org.apache.camel:type=adaptive-pools,*"), null);
        return pools.stream().filter(n -> ObjectName.unquote(n.getKeyProperty("name")).equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no MBean for pool " + name + " in " + pools));
    }

    @Test
    void onePoolIsOneMBeanWithItsLimitLoadAndCounters() throws Exception {
        for (int i = 0; i < 3; i++) {
            assertThat(template.requestBody("direct:in", "x")).isEqualTo("ok");
        }
        assertThat(template.requestBody("direct:again", "x")).isEqualTo("ok");

        MBeanServer mbeans = mbeans();
        Set<ObjectName> pools = mbeans.queryNames(new ObjectName("org.apache.camel:type=adaptive-pools,*"), null);
        assertThat(pools).filteredOn(n -> ObjectName.unquote(n.getKeyProperty("name")).equals("jmx")).hasSize(1);
        ObjectName pool = pool("jmx");
        assertThat(mbeans.getAttribute(pool, "Name")).isEqualTo("jmx");
        assertThat(mbeans.getAttribute(pool, "Limit")).isEqualTo(4);
        assertThat(mbeans.getAttribute(pool, "Inflight")).isEqualTo(0);
        assertThat(mbeans.getAttribute(pool, "Waiting")).isEqualTo(0);
        assertThat(mbeans.getAttribute(pool, "Pending")).isEqualTo(0);
        assertThat(mbeans.getAttribute(pool, "MaxLimitReached")).isEqualTo(4);
        assertThat(mbeans.getAttribute(pool, "RatePaused")).isEqualTo(false);
        assertThat(mbeans.getAttribute(pool, "PoolState")).isEqualTo("RUNNING");
        assertThat(mbeans.getAttribute(pool, "ExchangesAccepted")).isEqualTo(4L);
        assertThat(mbeans.getAttribute(pool, "ExchangesCompleted")).isEqualTo(4L);
        assertThat(mbeans.getAttribute(pool, "ExchangesFailed")).isEqualTo(0L);
        assertThat(mbeans.getAttribute(pool, "ExchangesRejected")).isEqualTo(0L);
        assertThat(mbeans.getAttribute(pool, "Attempts")).isEqualTo(4L);
        assertThat(mbeans.getAttribute(pool, "RetryAttempts")).isEqualTo(0L);
        assertThat(mbeans.getAttribute(pool, "CongestionEvents")).isEqualTo(0L);
        assertThat(mbeans.getAttribute(pool, "RateLimitEvents")).isEqualTo(0L);
        assertThat(mbeans.getAttribute(pool, "PauseCount")).isEqualTo(0L);
        assertThat(mbeans.getAttribute(pool, "RemainingPauseMillis")).isEqualTo(0L);
        assertThat(mbeans.getAttribute(pool, "Outage")).isEqualTo(false);
        assertThat(mbeans.getAttribute(pool, "OutageCount")).isEqualTo(0L);
        assertThat(mbeans.getAttribute(pool, "LastRetryAfterMillis")).isEqualTo(0L);
        assertThat(mbeans.getAttribute(pool, "FleetShare")).isEqualTo(-1);

        Set<ObjectName> endpoints = mbeans.queryNames(new ObjectName("org.apache.camel:type=endpoints,*"), null);
        assertThat(endpoints).filteredOn(n -> ObjectName.unquote(n.getKeyProperty("name")).startsWith("adaptive://jmx"))
                .hasSize(2).allSatisfy(e -> {
                    assertThat(mbeans.getAttribute(e, "Name")).isEqualTo("jmx");
                    assertThat(mbeans.getMBeanInfo(e).getAttributes()).noneMatch(a -> a.getName().equals("Limit"));
                });

        context.stop();
        assertThat(mbeans.queryNames(new ObjectName("org.apache.camel:type=adaptive-pools,*"), null)).isEmpty();
    }

    @Test
    void theMBeanShowsPausesAndTheLastRetryAfterSeen() throws Exception {
        assertThat(template.requestBody("direct:limited", "x")).isEqualTo("ok");
        ObjectName pool = pool("limited");
        assertThat(mbeans().getAttribute(pool, "PauseCount")).isEqualTo(1L);
        assertThat(mbeans().getAttribute(pool, "LastRetryAfterMillis")).isEqualTo(1000L);
        assertThat(mbeans().getAttribute(pool, "RemainingPauseMillis")).isEqualTo(0L); // the retry waited it out
        assertThat(mbeans().getAttribute(pool, "RateLimitEvents")).isEqualTo(1L);
        assertThat(mbeans().getAttribute(pool, "RetryAttempts")).isEqualTo(1L);
        assertThat((Long) mbeans().getAttribute(pool, "LimitDecreases")).isPositive();
    }

    @Test
    void theRoutePolicyIsManaged() throws Exception {
        for (int i = 0; i < 5; i++) {
            assertThat(template.requestBody("direct:guarded", "x")).isEqualTo("ok");
        }
        Set<ObjectName> services = mbeans().queryNames(new ObjectName("org.apache.camel:type=services,*"), null);
        ObjectName policy = services.stream().filter(n -> n.getKeyProperty("name").contains("AdaptiveRoutePolicy"))
                .findFirst().orElseThrow(() -> new AssertionError("no MBean for the policy in " + services));
        assertThat(mbeans().getAttribute(policy, "Limit")).isEqualTo(4);
        assertThat(mbeans().getAttribute(policy, "Inflight")).isEqualTo(0);
        assertThat(mbeans().getAttribute(policy, "Admitted")).isEqualTo(5L);
        assertThat(mbeans().getAttribute(policy, "Suspensions")).isEqualTo(0L);
        assertThat(mbeans().getAttribute(policy, "Overflow")).isEqualTo(0L);
        assertThat(mbeans().getAttribute(policy, "SuspendedConsumers")).isEqualTo(0);
        assertThat(mbeans().getAttribute(policy, "ResumeRatio")).isEqualTo(0.7);
    }
}
