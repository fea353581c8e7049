package dev.adaptive.micrometer;

import dev.adaptive.Limiter;
import dev.adaptive.limit.FixedLimit;
import dev.adaptive.time.VirtualTime;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A registry is user configuration: its meter filters and its added and removed listeners may
 * throw anything, at any meter. A binding is then all or nothing: a bind that fails leaves none
 * of its meters behind (they would stay for good, and block every later bind of the limiter), and
 * a close removes every meter it can.
 */
class RegistryFailureTest {

    private final VirtualTime time = new VirtualTime();
    private final Limiter limiter = Limiter.builder().name("orders").time(time).limit(FixedLimit.of(10)).build();

    @Test
    void aMeterTheRegistryRefusesLeavesNoneOfTheBindingsMetersAndABindCanBeTriedAgain() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        boolean[] refuse = {true};
        registry.config().meterFilter(new MeterFilter() {
            @Override
            public Meter.Id map(Meter.Id id) {
                if (refuse[0] && id.getName().equals("adaptive.limiter.shed")) {
                    throw new IllegalArgumentException("no shed here");
                }
                return id;
            }
        });
        LimiterMetrics metrics = LimiterMetrics.builder(limiter).build();
        assertThatThrownBy(() -> metrics.bindTo(registry)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("no shed here");
        assertThat(registry.getMeters()).isEmpty();

        refuse[0] = false;
        metrics.bindTo(registry);
        assertThat(registry.find("adaptive.limiter.shed").tag("name", "orders").functionCounter()).isNotNull();
        metrics.close();
        assertThat(registry.getMeters()).isEmpty();
    }

    @Test
    void aMeterARegistryKeptBeforeItsListenerThrewIsRemovedToo() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        registry.config().onMeterAdded(m -> {
            if (m.getId().getName().equals("adaptive.limiter.attempt.rtt")) {
                throw new AssertionError("a listener that throws an Error");
            }
        });
        LimiterMetrics metrics = LimiterMetrics.builder(limiter).build();
        assertThatThrownBy(() -> metrics.bindTo(registry)).isInstanceOf(AssertionError.class);
        assertThat(registry.getMeters()).isEmpty();
        // Nothing of the failed bind is left to refuse the limiter as a second one of its name.
        LimiterMetrics.builder(limiter).attemptTimer(false).build().bindTo(registry);
        assertThat(registry.find("adaptive.limiter.limit").tag("name", "orders").gauge().value()).isEqualTo(10.0);
    }

    @Test
    void closeRemovesEveryMeterOfEveryRegistryEvenIfOneRemovalThrows() {
        SimpleMeterRegistry first = new SimpleMeterRegistry();
        SimpleMeterRegistry second = new SimpleMeterRegistry();
        first.config().onMeterRemoved(m -> {
            if (m.getId().getName().equals("adaptive.limiter.inflight")) {
                throw new IllegalStateException("a removed-listener that throws");
            }
        });
        LimiterMetrics metrics = LimiterMetrics.builder(limiter).build();
        metrics.bindTo(first);
        metrics.bindTo(second);
        assertThat(first.getMeters()).isNotEmpty();
        assertThatThrownBy(metrics::close).isInstanceOf(IllegalStateException.class)
                .hasMessage("a removed-listener that throws");
        assertThat(first.getMeters()).isEmpty();
        assertThat(second.getMeters()).isEmpty();
        metrics.close(); // nothing left: nothing thrown
    }
}
