package dev.adaptive.vertx;

import dev.adaptive.config.AdaptiveConfig;
import dev.adaptive.config.ConfigOption;
import dev.adaptive.docs.Snippets;
import dev.adaptive.limit.Vegas;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class AdaptiveOptionsTest {

    @Test
    void defaultsAreTheCoresAsEveryFaceHasThem() {
        AdaptiveOptions o = new AdaptiveOptions();
        assertThat(o.toConfig()).isEqualTo(AdaptiveConfig.defaults());
        assertThat(o.getName()).isEqualTo("adaptive");
        assertThat(o.getAlgorithm()).isEqualTo("vegas");
        assertThat(o.getInitialLimit()).isNull();
        assertThat(o.getMinLimit()).isEqualTo(1);
        assertThat(o.getMaxLimit()).isEqualTo(100);
        assertThat(o.getMaxQueueSize()).isEqualTo(10_000);
        assertThat(o.getRetries()).isEqualTo(3);
        assertThat(o.getBackoff()).isEqualTo("exponential");
        assertThat(o.getMinDelay()).isEqualTo(100);
        assertThat(o.getMaxDelay()).isEqualTo(30_000);
        assertThat(o.getJitter()).isEqualTo(0.2);
        assertThat(o.getMaxRateLimitRetries()).isEqualTo(10);
        assertThat(o.getMaxRetryAfter()).isEqualTo(600_000);
        assertThat(o.getTaskTimeout()).isZero();
        assertThat(o.getWaitTimeout()).isZero();
        assertThat(o.getOutageProbe()).isEqualTo(1_000);
        assertThat(o.getStatsAddress()).as("publication is off unless an address is set").isNull();
        assertThat(o.isStatsLocalOnly()).isTrue();
        assertThat(o.getStatsInterval()).isEqualTo(2_000);
        assertThat(o.isStatsOnChange()).isTrue();
    }

    @Test
    void jsonRoundTripKeepsEveryOption() {
        AdaptiveOptions o = new AdaptiveOptions()
                .setName("orders").setAlgorithm("AIMD").setInitialLimit(7).setMinLimit(2).setMaxLimit(40)
                .setMaxQueueSize(100).setWaitTimeout(5_000).setTaskTimeout(2_000).setRetries(5)
                .setBackoff("linear").setMinDelay(50).setMaxDelay(1_000).setJitter(0.1)
                .setMaxRateLimitRetries(4).setMaxRetryAfter(60_000).setAdaptOnLatency(false)
                .setAdaptOnErrors(false).setAdaptOnRateLimit(false).setOutageProbe(250).setStatsAddress(null)
                .setStatsLocalOnly(false).setStatsInterval(0).setStatsOnChange(false);
        JsonObject json = o.toJson();
        AdaptiveOptions back = new AdaptiveOptions(json);
        assertThat(back).isEqualTo(o);
        assertThat(back.toJson()).isEqualTo(json);
        assertThat(json.getString("algorithm")).isEqualTo("aimd");
        assertThat(json.containsKey("statsAddress")).isTrue();
        assertThat(back.getStatsAddress()).isNull();
        assertThat(new AdaptiveOptions(o)).isEqualTo(o);
        assertThat(back.toConfig().outageProbe()).isEqualTo(Duration.ofMillis(250));
        assertThat(new AdaptiveOptions().setOutageProbe(0).toConfig().outageProbe()).as("off").isZero();
    }

    @Test
    void missingKeysKeepDefaults() {
        AdaptiveOptions o = new AdaptiveOptions(new JsonObject().put("maxLimit", 3));
        assertThat(o.getMaxLimit()).isEqualTo(3);
        assertThat(o.getInitialLimit()).as("unset").isNull();
        assertThat(o.toConfig().effectiveInitialLimit()).as("unset initial moves into [min, max]").isEqualTo(3);
        assertThat(o.getRetries()).isEqualTo(3);
        assertThat(new AdaptiveOptions(o.toJson())).isEqualTo(o);
    }

    /**
     * Regression: toJson wrote the derived initial limit (5) and the JSON constructor marked it as
     * set, so options read back from their own JSON no longer moved it into new bounds: two equal
     * options behaved differently after the same setMinLimit(8) (one failed, 5 outside [8, 100]).
     */
    @Test
    void theJsonRoundTripIsLosslessAnUnsetInitialLimitStaysUnset() {
        AdaptiveOptions original = new AdaptiveOptions();
        AdaptiveOptions back = new AdaptiveOptions(original.toJson());
        assertThat(original.toJson().containsKey("initialLimit")).isFalse();
        assertThat(back).isEqualTo(original);
        original.setMinLimit(8);
        back.setMinLimit(8);
        assertThat(back).isEqualTo(original);
        assertThat(back.toConfig().effectiveInitialLimit()).isEqualTo(original.toConfig().effectiveInitialLimit())
                .isEqualTo(8);
        assertThat(back.toConfig().limit()).isInstanceOfSatisfying(Vegas.class,
                v -> assertThat(v.initialLimit()).isEqualTo(8));
        // A set initial limit stays set.
        AdaptiveOptions set = new AdaptiveOptions().setInitialLimit(9);
        assertThat(new AdaptiveOptions(set.toJson()).getInitialLimit()).isEqualTo(9);
        assertThat(new AdaptiveOptions(new JsonObject().putNull("initialLimit")).getInitialLimit()).isNull();
    }

    @Test
    void durationsAreWholeMillisecondsOrTextReadAsEveryFaceReadsIt() {
        AdaptiveOptions o = new AdaptiveOptions(new JsonObject().put("maxDelay", "1m30s").put("taskTimeout", "PT0.5S")
                .put("statsInterval", "10s").put("outageProbe", "2s").put("algorithm", "GRADIENT2").put("backoff", "Constant"));
        assertThat(o.getMaxDelay()).isEqualTo(90_000);
        assertThat(o.getTaskTimeout()).isEqualTo(500);
        assertThat(o.getStatsInterval()).isEqualTo(10_000);
        assertThat(o.getOutageProbe()).isEqualTo(2_000);
        assertThat(o.getAlgorithm()).isEqualTo("gradient2");
        assertThat(o.getBackoff()).isEqualTo("constant");
        assertThatThrownBy(() -> new AdaptiveOptions(new JsonObject().put("maxDelay", "1h30x")))
                .hasMessageStartingWith("maxDelay must be a duration: ");
        // Held in milliseconds: a finer duration is refused, not cut (half a millisecond of
        // taskTimeout would have become 0, no timeout at all).
        assertThatThrownBy(() -> new AdaptiveOptions(new JsonObject().put("taskTimeout", "PT0.0005S")))
                .hasMessage("taskTimeout must be a whole number of milliseconds: PT0.0005S");
        assertThatThrownBy(() -> new AdaptiveOptions(new JsonObject().put("retryBudgetWindow", "PT1.0005S")))
                .hasMessage("retryBudgetWindow must be a whole number of milliseconds: PT1.0005S");
        assertThatThrownBy(() -> new AdaptiveOptions(new JsonObject().put("statsInterval", "PT0.0000001S")))
                .hasMessage("statsInterval must be a whole number of milliseconds: PT0.0000001S");
        assertThatThrownBy(() -> new AdaptiveOptions(new JsonObject().put("algorithm", "f\u0131xed")))
                .hasMessage("algorithm must be one of vegas|aimd|gradient2|fixed: f\u0131xed");
    }

    /**
     * A setter takes what the JSON constructor takes, so that every options object reads back
     * from its own JSON: a duration of the face's own past about 292 years is refused by both.
     */
    @Test
    void theOwnDurationsSettersRefuseWhatTheirJsonRefuses() {
        String rule = " must be at most PT2562047H47M16.854775807S (about 292 years): 9223372036854775807";
        assertThatThrownBy(() -> new AdaptiveOptions(new JsonObject().put("statsInterval", Long.MAX_VALUE)))
                .hasMessage("statsInterval" + rule);
        assertThatThrownBy(() -> new AdaptiveOptions().setStatsInterval(Long.MAX_VALUE))
                .hasMessage("statsInterval" + rule);
        assertThatThrownBy(() -> new AdaptiveProxyOptions(new JsonObject().put("requestTimeout", Long.MAX_VALUE)))
                .hasMessage("requestTimeout" + rule);
        assertThatThrownBy(() -> new AdaptiveProxyOptions().setRequestTimeout(Long.MAX_VALUE))
                .hasMessage("requestTimeout" + rule);
        long most = 9_223_372_036_854L;
        assertThat(new AdaptiveOptions(new AdaptiveOptions().setStatsInterval(most).toJson()).getStatsInterval())
                .isEqualTo(most);
        assertThat(new AdaptiveProxyOptions(new AdaptiveProxyOptions().setRequestTimeout(most).toJson())
                .getRequestTimeout()).isEqualTo(most);
    }

    @Test
    void fixedMeansMaxLimitAsInEveryFace() {
        AdaptiveOptions o = new AdaptiveOptions().setAlgorithm("fixed").setMaxLimit(7);
        assertThat(o.toConfig().limit().initialState().limit()).isEqualTo(7);
        assertThatThrownBy(() -> new AdaptiveOptions().setAlgorithm("fixed").setInitialLimit(3).toConfig())
                .hasMessageStartingWith("initialLimit has no meaning with algorithm=fixed");
    }

    @Test
    void theVertxPageListsTheCoreOptionsWithTheCoresDefaultsInMilliseconds() throws Exception {
        Map<String, String> rows = Snippets.optionRows("docs/vertx.md");
        JsonObject defaults = new AdaptiveOptions().toJson();
        for (ConfigOption option : AdaptiveOptions.CORE_OPTIONS) {
            assertThat(rows).as("a row for %s in docs/vertx.md", option.key()).containsKey(option.key());
            Object value = defaults.getValue(option.key());
            String cell = rows.get(option.key());
            if (value == null) {
                assertThat(cell).as(option.key()).isEqualTo(option.defaultText().replace("`", ""));
            } else {
                assertThat(cell).as(option.key()).startsWith(String.valueOf(value));
            }
        }
        for (String own : AdaptiveOptions.OWN.keySet()) {
            assertThat(rows).as("a row for %s in docs/vertx.md", own).containsKey(own);
            assertThat(rows.get(own)).as(own).startsWith(String.valueOf(defaults.getValue(own)));
        }
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
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("unknown option 'maxLimt' (known:");
        // The old name of maxQueueSize is no alias.
        assertThatThrownBy(() -> new AdaptiveOptions(new JsonObject().put("maxWaiters", 3)))
                .hasMessageStartingWith("unknown option 'maxWaiters'");
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
        assertThatThrownBy(() -> new AdaptiveOptions().setMaxQueueSize(-1)).hasMessage("maxQueueSize must be >= 0: -1");
        assertThatThrownBy(() -> new AdaptiveOptions().setTaskTimeout(-5)).hasMessage("taskTimeout must be a duration >= 0: -5");
        assertThatThrownBy(() -> new AdaptiveOptions().setRetries(-1)).hasMessage("retries must be >= 0: -1");
        assertThatThrownBy(() -> new AdaptiveOptions().setJitter(1.5)).hasMessage("jitter must be within [0, 1]: 1.5");
        assertThatThrownBy(() -> new AdaptiveOptions().setJitter(Double.NaN)).hasMessage("jitter must be within [0, 1]: NaN");
        assertThatThrownBy(() -> new AdaptiveOptions().setMaxRetryAfter(0)).hasMessage("maxRetryAfter must be a positive duration: 0");
        assertThatThrownBy(() -> new AdaptiveOptions().setOutageProbe(-1)).hasMessage("outageProbe must be a duration >= 0: -1");
        // Milliseconds are quoted as given, whichever rule they break.
        assertThatThrownBy(() -> new AdaptiveOptions().setOutageProbe(3_600_001))
                .hasMessage("outageProbe must be at most 1h: 3600001");
        assertThatThrownBy(() -> new AdaptiveOptions(new JsonObject().put("retryBudgetWindow", 86_400_001)))
                .hasMessage("retryBudgetWindow must be at most 1d: 86400001");
        assertThatThrownBy(() -> new AdaptiveOptions().setMinDelay(2000).setMaxDelay(1000).toConfig())
                .hasMessage("maxDelay must be >= minDelay (2000): 1000");
        assertThatThrownBy(() -> new AdaptiveOptions(new JsonObject().put("outageProbe", "2h")))
                .hasMessage("outageProbe must be at most 1h: 2h");
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
