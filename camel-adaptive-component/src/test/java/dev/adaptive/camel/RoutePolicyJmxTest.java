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

/** With JMX on, the route policy is an MBean with the guard's limit, load and counters. */
class RoutePolicyJmxTest extends CamelTestSupport {

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
                from("direct:guarded").routeId("guarded").routePolicy(AdaptiveRoutePolicy.builder().build())
                        .setBody(constant("ok"));
            }
        };
    }

    @Test
    void thePolicyIsManaged() throws Exception {
        for (int i = 0; i < 5; i++) {
            assertThat(template.requestBody("direct:guarded", "x")).isEqualTo("ok");
        }
        MBeanServer mbeans = context.getManagementStrategy().getManagementAgent().getMBeanServer();
        Set<ObjectName> services = mbeans.queryNames(new ObjectName("org.apache.camel:type=services,*"), null);
        ObjectName policy = services.stream()
                .filter(n -> n.getKeyProperty("name").contains("AdaptiveRoutePolicy"))
                .findFirst().orElseThrow(() -> new AssertionError("no MBean for the policy in " + services));
        assertThat(mbeans.getAttribute(policy, "Limit")).isEqualTo(4);
        assertThat(mbeans.getAttribute(policy, "Inflight")).isEqualTo(0);
        assertThat(mbeans.getAttribute(policy, "Admitted")).isEqualTo(5L);
        assertThat(mbeans.getAttribute(policy, "Suspensions")).isEqualTo(0L);
        assertThat(mbeans.getAttribute(policy, "Overflow")).isEqualTo(0L);
        assertThat(mbeans.getAttribute(policy, "SuspendedConsumers")).isEqualTo(0);
        assertThat(mbeans.getAttribute(policy, "ResumeRatio")).isEqualTo(0.7);
    }
}
