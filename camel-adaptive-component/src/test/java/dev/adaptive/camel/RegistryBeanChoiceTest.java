package dev.adaptive.camel;

import dev.adaptive.fleet.InMemoryCoordinator;
import dev.adaptive.time.Ticker;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.camel.CamelContext;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The beans the component picks from the registry by type: which {@link MeterRegistry} a pool's
 * meters go to (the one named {@code meterRegistry}, else the only one; several, none of them
 * named so, none, and a warning says why), and the coordinator autowired only when it is the
 * only one (several: none, and a warning says why).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RegistryBeanChoiceTest {

    @RegisterExtension
    final StandardErrorCapture err = new StandardErrorCapture();

    /** Runs one exchange through pool "metered" with {@code beans} in the registry. */
    private static void runOne(Map<String, MeterRegistry> beans) throws Exception {
        try (CamelContext camel = new DefaultCamelContext()) {
            beans.forEach(camel.getRegistry()::bind);
            camel.addRoutes(new RouteBuilder() {
                @Override
                public void configure() {
                    from("adaptive:metered").setBody(constant("ok"));
                }
            });
            camel.start();
            assertThat(camel.createProducerTemplate().requestBody("adaptive:metered", "x")).isEqualTo("ok");
            for (MeterRegistry r : beans.values()) {
                r.getMeters().forEach(m -> r.counter("seen." + m.getId().getName()));
            }
        }
    }

    private static boolean metered(MeterRegistry r) {
        return r.find("seen.adaptive.limiter.limit").counter() != null;
    }

    @Test
    void theBeanNamedMeterRegistryIsChosenAmongSeveral() throws Exception {
        SimpleMeterRegistry named = new SimpleMeterRegistry();
        SimpleMeterRegistry other = new SimpleMeterRegistry();
        runOne(Map.of("meterRegistry", named, "jmxMeterRegistry", other));
        assertThat(metered(named)).isTrue();
        assertThat(metered(other)).isFalse();
    }

    @Test
    void theOnlyBeanIsChosenWhateverItsName() throws Exception {
        SimpleMeterRegistry only = new SimpleMeterRegistry();
        runOne(Map.of("prometheusMeterRegistry", only));
        assertThat(metered(only)).isTrue();
    }

    @Test
    void severalBeansWithoutAKnownNameGiveNoMetersAndAWarningThatSaysWhy() throws Exception {
        SimpleMeterRegistry a = new SimpleMeterRegistry();
        SimpleMeterRegistry b = new SimpleMeterRegistry();
        runOne(Map.of("prometheusMeterRegistry", a, "jmxMeterRegistry", b));
        assertThat(metered(a) || metered(b)).isFalse();
        assertThat(err.text())
                .contains("adaptive:metered runs without meters: the registry holds 2 MeterRegistry beans and none is"
                        + " named meterRegistry or metricsRegistry");
    }

    /** Camel autowires a component option only from a single bean: with two coordinators a warning says why no fleet forms. */
    @Test
    void severalCoordinatorBeansAutowireNoneAndAWarningSaysWhy() throws Exception {
        try (CamelContext camel = new DefaultCamelContext()) {
            camel.getRegistry().bind("fleetA", new InMemoryCoordinator(Ticker.system()));
            camel.getRegistry().bind("fleetB", new InMemoryCoordinator(Ticker.system()));
            camel.start();
            AdaptiveComponent adaptive = camel.getComponent("adaptive", AdaptiveComponent.class);
            assertThat(adaptive.getConfiguration().getCoordinator()).isNull();
            assertThat(err.text()).contains("the registry holds 2 Coordinator beans");
        }
    }
}
