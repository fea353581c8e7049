package dev.adaptive.vertx;

import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class AdaptiveOptionsTest {

    @Test
    void defaultsAreTheDocumentedConstants() {
        AdaptiveOptions o = new AdaptiveOptions();
        assertThat(o.getName()).isEqualTo("adaptive");
        assertThat(o.getAlgorithm()).isEqualTo("vegas");
        assertThat(o.getInitialLimit()).isEqualTo(5);
        assertThat(o.getMinLimit()).isEqualTo(1);
        assertThat(o.getMaxLimit()).isEqualTo(Integer.MAX_VALUE);
        assertThat(o.getRetries()).isEqualTo(3);
        assertThat(o.getBackoff()).isEqualTo("exponential");
        assertThat(o.getMinDelay()).isEqualTo(100);
        assertThat(o.getMaxDelay()).isEqualTo(30_000);
        assertThat(o.getJitter()).isEqualTo(0.2);
        assertThat(o.getMaxRateLimitRetries()).isEqualTo(10);
        assertThat(o.getMaxRetryAfter()).isEqualTo(600_000);
        assertThat(o.getTaskTimeout()).isZero();
        assertThat(o.getWaitTimeout()).isZero();
        assertThat(o.getStatsAddress()).isEqualTo("vertx.adaptive");
        assertThat(o.isStatsLocalOnly()).isTrue();
        assertThat(o.getStatsInterval()).isEqualTo(2_000);
        assertThat(o.isStatsOnChange()).isTrue();
    }

    @Test
    void jsonRoundTripKeepsEveryOption() {
        AdaptiveOptions o = new AdaptiveOptions()
                .setName("orders").setAlgorithm("AIMD").setInitialLimit(7).setMinLimit(2).setMaxLimit(40)
                .setMaxWaiters(100).setWaitTimeout(5_000).setTaskTimeout(2_000).setRetries(5)
                .setBackoff("linear").setMinDelay(50).setMaxDelay(1_000).setJitter(0.1)
                .setMaxRateLimitRetries(4).setMaxRetryAfter(60_000).setAdaptOnLatency(false)
                .setAdaptOnErrors(false).setAdaptOnRateLimit(false).setStatsAddress(null)
                .setStatsLocalOnly(false).setStatsInterval(0).setStatsOnChange(false);
        JsonObject json = o.toJson();
        AdaptiveOptions back = new AdaptiveOptions(json);
        assertThat(back).isEqualTo(o);
        assertThat(back.toJson()).isEqualTo(json);
        assertThat(json.getString("algorithm")).isEqualTo("aimd");
        assertThat(json.containsKey("statsAddress")).isTrue();
        assertThat(back.getStatsAddress()).isNull();
        assertThat(new AdaptiveOptions(o)).isEqualTo(o);
    }

    @Test
    void missingKeysKeepDefaults() {
        AdaptiveOptions o = new AdaptiveOptions(new JsonObject().put("maxLimit", 3));
        assertThat(o.getMaxLimit()).isEqualTo(3);
        assertThat(o.getInitialLimit()).as("unset initial moves into [min, max]").isEqualTo(3);
        assertThat(o.getRetries()).isEqualTo(AdaptiveOptions.DEFAULT_RETRIES);
        assertThat(new AdaptiveOptions(o.toJson())).isEqualTo(o);
    }

    @Test
    void wholeNumbersWrittenAsDoublesAreAccepted() {
        AdaptiveOptions o = new AdaptiveOptions(new JsonObject().put("retries", 2.0).put("taskTimeout", 1500.0));
        assertThat(o.getRetries()).isEqualTo(2);
        assertThat(o.getTaskTimeout()).isEqualTo(1500);
    }

    @Test
    void unknownKeyIsRejectedByName() {
        assertThatThrownBy(() -> new AdaptiveOptions(new JsonObject().put("maxLimt", 3)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxLimt");
    }

    @Test
    void wrongTypesAreRejectedNamingKeyAndValue() {
        assertThatThrownBy(() -> new AdaptiveOptions(new JsonObject().put("retries", "three")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("retries").hasMessageContaining("three");
        assertThatThrownBy(() -> new AdaptiveOptions(new JsonObject().put("retries", 2.5)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("retries").hasMessageContaining("2.5");
        assertThatThrownBy(() -> new AdaptiveOptions(new JsonObject().put("statsLocalOnly", "yes")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("statsLocalOnly");
        assertThatThrownBy(() -> new AdaptiveOptions(new JsonObject().put("maxLimit", 1L << 40)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxLimit");
        assertThatThrownBy(() -> new AdaptiveOptions(new JsonObject().put("name", 5)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("name");
    }

    @Test
    void outOfRangeValuesAreRejectedNamingOptionAndValue() {
        assertThatThrownBy(() -> new AdaptiveOptions().setInitialLimit(0)).hasMessage("initialLimit must be >= 1: 0");
        assertThatThrownBy(() -> new AdaptiveOptions().setMinLimit(-2)).hasMessage("minLimit must be >= 1: -2");
        assertThatThrownBy(() -> new AdaptiveOptions().setMaxWaiters(-1)).hasMessage("maxWaiters must be >= 0: -1");
        assertThatThrownBy(() -> new AdaptiveOptions().setTaskTimeout(-5)).hasMessage("taskTimeout must be >= 0: -5");
        assertThatThrownBy(() -> new AdaptiveOptions().setRetries(-1)).hasMessage("retries must be >= 0: -1");
        assertThatThrownBy(() -> new AdaptiveOptions().setJitter(1.5)).hasMessage("jitter must be in [0, 1]: 1.5");
        assertThatThrownBy(() -> new AdaptiveOptions().setJitter(Double.NaN)).hasMessage("jitter must be in [0, 1]: NaN");
        assertThatThrownBy(() -> new AdaptiveOptions().setMaxRetryAfter(0)).hasMessage("maxRetryAfter must be >= 1: 0");
        assertThatThrownBy(() -> new AdaptiveOptions().setStatsInterval(-1)).hasMessage("statsInterval must be >= 0: -1");
        assertThatThrownBy(() -> new AdaptiveOptions().setAlgorithm("bbr"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("algorithm").hasMessageContaining("bbr");
        assertThatThrownBy(() -> new AdaptiveOptions().setBackoff("fibonacci"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("backoff").hasMessageContaining("fibonacci");
        assertThatThrownBy(() -> new AdaptiveOptions().setName(" ")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("name");
        assertThatThrownBy(() -> new AdaptiveOptions().setStatsAddress("")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("statsAddress");
    }
}
