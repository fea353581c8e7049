package dev.adaptive.micrometer;

import dev.adaptive.Limiter;
import dev.adaptive.limit.FixedLimit;
import dev.adaptive.time.VirtualTime;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The builder's tags: a tag without a key or a value fails where it is given, naming it; a tag
 * whose key the meters set themselves (the limiter's {@code name}, an {@code outcome}, ...) is
 * refused, since it would either hide the limiter's name or be overwritten on some meters only.
 */
class BuilderTagsTest {

    private final Limiter limiter = Limiter.builder().name("orders").time(new VirtualTime())
            .limit(FixedLimit.of(10)).build();

    @Test
    void aTagWithoutAValueOrAKeyFailsNamingIt() {
        assertThatThrownBy(() -> LimiterMetrics.builder(limiter).tag("region", null))
                .isInstanceOf(NullPointerException.class).hasMessage("tag 'region' has no value");
        assertThatThrownBy(() -> LimiterMetrics.builder(limiter).tag(null, "eu-1"))
                .isInstanceOf(NullPointerException.class).hasMessage("a tag has no key (its value: 'eu-1')");
    }

    @Test
    void aTagTheMetersSetThemselvesIsRefused() {
        assertThatThrownBy(() -> LimiterMetrics.builder(limiter).tag("name", "other"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("tag 'name' is set by the meters (name: the limiter's name, 'orders'; give the"
                        + " limiter the name instead): other");
        assertThatThrownBy(() -> LimiterMetrics.builder(limiter).tags(Tags.of("region", "eu-1", "outcome", "x")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("tag 'outcome' is set by the meters");
        for (String key : new String[] {"cause", "direction", "callback", "fleet"}) {
            assertThatThrownBy(() -> LimiterMetrics.builder(limiter).tag(key, "x"))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("tag '" + key + "' is set");
        }
    }

    @Test
    void everyMeterCarriesTheLimitersNameAndTheOtherTags() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (LimiterMetrics metrics = LimiterMetrics.builder(limiter).tag("region", "eu-1")
                .tags(Tags.of("app", "shop")).build()) {
            metrics.bindTo(registry);
            assertThat(registry.getMeters()).isNotEmpty().allSatisfy(m -> {
                assertThat(m.getId().getTag("name")).isEqualTo("orders");
                assertThat(m.getId().getTag("region")).isEqualTo("eu-1");
                assertThat(m.getId().getTag("app")).isEqualTo("shop");
            });
        }
    }
}
