package dev.adaptive.camel;

import org.apache.camel.RoutesBuilder;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.test.junit5.CamelTestSupport;
import org.apache.camel.test.junit5.TestExecutionConfiguration;
import org.junit.jupiter.api.Test;

import javax.management.MBeanServer;
import javax.management.ObjectName;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** The pool's figures are attributes of each {@code adaptive:} endpoint's MBean. */
class JmxTest extends CamelTestSupport {

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
                from("direct:in").to("adaptive:jmx?algorithm=fixed&maxLimit=4");
                from("adaptive:jmx").setBody(constant("ok"));
            }
        };
    }

    @Test
    void limitLoadAndCountersAreManagedAttributes() throws Exception {
        for (int i = 0; i < 3; i++) {
            assertThat(template.requestBody("direct:in", "x")).isEqualTo("ok");
        }

        MBeanServer mbeans = context.getManagementStrategy().getManagementAgent().getMBeanServer();
        Set<ObjectName> endpoints = mbeans.queryNames(new ObjectName("org.apache.camel:type=endpoints,*"), null);
        ObjectName producer = endpoints.stream()
                .filter(n -> ObjectName.unquote(n.getKeyProperty("name")).equals("adaptive://jmx?algorithm=fixed&maxLimit=4"))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no MBean for the producer endpoint in " + endpoints));
        ObjectName consumer = endpoints.stream()
                .filter(n -> ObjectName.unquote(n.getKeyProperty("name")).equals("adaptive://jmx")).findFirst()
                .orElseThrow(() -> new AssertionError("no MBean for the consumer endpoint in " + endpoints));

        for (ObjectName endpoint : new ObjectName[] {producer, consumer}) {
            assertThat(mbeans.getAttribute(endpoint, "Name")).isEqualTo("jmx");
            assertThat(mbeans.getAttribute(endpoint, "Limit")).isEqualTo(4);
            assertThat(mbeans.getAttribute(endpoint, "Inflight")).isEqualTo(0);
            assertThat(mbeans.getAttribute(endpoint, "Waiting")).isEqualTo(0);
            assertThat(mbeans.getAttribute(endpoint, "Pending")).isEqualTo(0);
            assertThat(mbeans.getAttribute(endpoint, "MaxLimitReached")).isEqualTo(4);
            assertThat(mbeans.getAttribute(endpoint, "RatePaused")).isEqualTo(false);
            assertThat(mbeans.getAttribute(endpoint, "PoolState")).isEqualTo("RUNNING");
            assertThat(mbeans.getAttribute(endpoint, "ExchangesAccepted")).isEqualTo(3L);
            assertThat(mbeans.getAttribute(endpoint, "ExchangesCompleted")).isEqualTo(3L);
            assertThat(mbeans.getAttribute(endpoint, "ExchangesFailed")).isEqualTo(0L);
            assertThat(mbeans.getAttribute(endpoint, "ExchangesRejected")).isEqualTo(0L);
            assertThat(mbeans.getAttribute(endpoint, "Attempts")).isEqualTo(3L);
            assertThat(mbeans.getAttribute(endpoint, "RetryAttempts")).isEqualTo(0L);
            assertThat(mbeans.getAttribute(endpoint, "CongestionEvents")).isEqualTo(0L);
            assertThat(mbeans.getAttribute(endpoint, "RateLimitEvents")).isEqualTo(0L);
        }
    }
}
