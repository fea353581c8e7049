package dev.adaptive.vertx;

import dev.adaptive.config.AdaptiveConfig;
import dev.adaptive.config.ConfigOption;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Options as configuration from environment variables and properties files reaches a data
 * object through vertx-config: every value text (its {@code raw-data} stores), or, converted, a
 * number where the text was a number ({@code "429"} becomes {@link BigInteger} 429) and a
 * string where it was anything else ({@code "429,503"} stays text).
 */
class OptionsAsTextTest {

    /**
     * A status list given as one text is read as the Camel component reads its
     * {@code rateLimitStatusCodes=429,503}, with the same messages; a lone number, as
     * vertx-config's conversion hands over {@code "429"}, is a list of one status.
     */
    @Test
    void aStatusListGivenAsOneTextIsReadAsTheCamelComponentReadsItsList() {
        AdaptiveWebClientOptions o = new AdaptiveWebClientOptions(new JsonObject()
                .put("rateLimitStatuses", "429,420")
                .put("retryAfterStatuses", " 503 ")
                .put("errorStatuses", "500, 502 ,504"));
        assertThat(o.getRateLimitStatuses()).containsExactlyInAnyOrder(420, 429);
        assertThat(o.getRetryAfterStatuses()).containsExactly(503);
        assertThat(o.getErrorStatuses()).containsExactlyInAnyOrder(500, 502, 504);
        assertThat(new AdaptiveWebClientOptions(o.toJson())).as("written back as arrays").isEqualTo(o);
        assertThat(o.toJson().getValue("rateLimitStatuses")).isInstanceOf(JsonArray.class);

        assertThat(new AdaptiveWebClientOptions(new JsonObject().put("retryAfterStatuses", ""))
                .getRetryAfterStatuses()).as("empty text, as an empty array").isEmpty();
        assertThat(new AdaptiveWebClientOptions(new JsonObject().put("rateLimitStatuses", BigInteger.valueOf(429)))
                .getRateLimitStatuses()).as("a lone number").containsExactly(429);
        assertThat(new AdaptiveWebClientOptions(new JsonObject().put("errorStatuses", 500))
                .getErrorStatuses()).containsExactly(500);

        Map<Object, String> refused = new LinkedHashMap<>();
        refused.put("429,soon", "rateLimitStatuses must be comma-separated status codes; 'soon' is not one: 429,soon");
        refused.put("429,700", "rateLimitStatuses must hold status codes within [100, 599]; 700 is not: 429,700");
        refused.put("429,", "rateLimitStatuses must be comma-separated status codes; '' is not one: 429,");
        refused.put("429,,503", "rateLimitStatuses must be comma-separated status codes; '' is not one: 429,,503");
        refused.put("429;503", "rateLimitStatuses must be comma-separated status codes; '429;503' is not one: 429;503");
        refused.put("-429", "rateLimitStatuses must be comma-separated status codes; '-429' is not one: -429");
        refused.put("\u0664\u0662\u0669", "rateLimitStatuses must be comma-separated status codes; '\u0664\u0662\u0669'"
                + " is not one: \u0664\u0662\u0669");
        refused.put(600, "rateLimitStatuses must hold statuses in [100, 599]: 600");
        refused.put(429.5, "rateLimitStatuses must be a whole number: 429.5");
        refused.put(true, "rateLimitStatuses must be a whole number, an array of them or comma-separated text: true");
        refused.put(new JsonObject(), "rateLimitStatuses must be a whole number, an array of them or"
                + " comma-separated text: {}");
        refused.forEach((value, message) -> assertThatThrownBy(() -> new AdaptiveWebClientOptions(new JsonObject()
                .put("rateLimitStatuses", value)))
                .as("%s", value).isInstanceOf(IllegalArgumentException.class).hasMessage(message));
        assertThatThrownBy(() -> new AdaptiveWebClientOptions(new JsonObject().put("statuses", "429")))
                .as("keys stay strict").hasMessageStartingWith("unknown option 'statuses' (known:");
        assertThat(Set.of("rateLimitStatuses", "retryAfterStatuses", "errorStatuses"))
                .as("every list of the data object").isEqualTo(new AdaptiveWebClientOptions().toJson().fieldNames()
                        .stream().filter(k -> k.endsWith("Statuses")).collect(Collectors.toSet()));
    }

    /**
     * Every core option, and every option of the face's own, given as text reads as the same
     * value given typed: the core's options in the forms the core reads them in
     * ({@link ConfigOption#read}, as the Camel component reads its URIs and properties), so that
     * a deployment config from properties or environment variables needs no conversion.
     */
    @Test
    void everyOptionGivenAsTextReadsAsTheSameValueTyped() {
        Map<String, Object[]> core = new LinkedHashMap<>();   // key -> {text, typed}
        core.put("algorithm", new Object[] {"AIMD", "aimd"});
        core.put("initialLimit", new Object[] {" 7 ", 7});
        core.put("minLimit", new Object[] {"2", 2});
        core.put("maxLimit", new Object[] {"50", 50});
        core.put("maxQueueSize", new Object[] {"100", 100});
        core.put("waitTimeout", new Object[] {"5s", 5_000});
        core.put("taskTimeout", new Object[] {"2000", 2_000});
        core.put("retries", new Object[] {"5", 5});
        core.put("backoff", new Object[] {"LINEAR", "linear"});
        core.put("minDelay", new Object[] {"50ms", 50});
        core.put("maxDelay", new Object[] {"1m", 60_000});
        core.put("jitter", new Object[] {"0.1", 0.1});
        core.put("maxRateLimitRetries", new Object[] {"4", 4});
        core.put("maxRetryAfter", new Object[] {"PT1M", 60_000});
        core.put("adaptOnLatency", new Object[] {"false", false});
        core.put("adaptOnErrors", new Object[] {"FALSE", false});
        core.put("adaptOnRateLimit", new Object[] {" false ", false});
        core.put("retryBudget", new Object[] {"false", false});
        core.put("retryBudgetRatio", new Object[] {"0.5", 0.5});
        core.put("retryBudgetMinPerSecond", new Object[] {"2", 2.0});
        core.put("retryBudgetWindow", new Object[] {"30s", 30_000});
        core.put("outageProbe", new Object[] {"0", 0});
        core.put("quotaHeaders", new Object[] {"false", false});
        core.put("quotaSpread", new Object[] {"true", true});
        Map<String, Object[]> own = new LinkedHashMap<>();
        own.put("name", new Object[] {"orders", "orders"});
        own.put("statsAddress", new Object[] {"vertx.adaptive", "vertx.adaptive"});
        own.put("statsLocalOnly", new Object[] {"false", false});
        own.put("statsInterval", new Object[] {"5s", 5_000});
        own.put("statsOnChange", new Object[] {"false", false});
        assertThat(core.keySet()).as("every core option of the face")
                .containsExactlyInAnyOrderElementsOf(AdaptiveOptions.CORE_OPTIONS.stream().map(ConfigOption::key).toList());
        assertThat(own.keySet()).as("every option of its own").containsExactlyInAnyOrderElementsOf(AdaptiveOptions.OWN.keySet());

        JsonObject text = new JsonObject();
        JsonObject typed = new JsonObject();
        Map<String, Object[]> all = new HashMap<>(core);
        all.putAll(own);
        all.forEach((key, v) -> {
            text.put(key, v[0]);
            typed.put(key, v[1]);
        });
        assertThat(new AdaptiveOptions(text)).isEqualTo(new AdaptiveOptions(typed));
        // The core reads the same text to the same value, as the Camel component does its URIs.
        core.forEach((key, v) -> assertThat(ConfigOption.find(key).orElseThrow().read(v[0])).as(key)
                .isEqualTo(ConfigOption.find(key).orElseThrow().read(v[1])));

        // vertx-config's conversion hands numbers over as BigInteger and BigDecimal.
        assertThat(new AdaptiveOptions(new JsonObject().put("maxLimit", new BigInteger("50"))
                .put("jitter", new BigDecimal("0.1")).put("taskTimeout", new BigInteger("2000"))))
                .isEqualTo(new AdaptiveOptions().setMaxLimit(50).setJitter(0.1).setTaskTimeout(2_000));

        assertThat(new AdaptiveProxyOptions(new JsonObject().put("address", "orders").put("targetAddress", "backend")
                .put("requestTimeout", "30s").put("localConsumer", "true")))
                .isEqualTo(new AdaptiveProxyOptions().setAddress("orders").setTargetAddress("backend")
                        .setRequestTimeout(30_000).setLocalConsumer(true));
        assertThat(new AdaptiveWebClientOptions(new JsonObject().put("ignoreClientErrors", "false"))
                .isIgnoreClientErrors()).isFalse();
    }

    /** Text the core refuses for an option is refused here with the core's message, naming the option and the text. */
    @Test
    void textTheCoreRefusesIsRefusedWithTheCoresMessage() {
        Map<String, String> bad = new LinkedHashMap<>();
        for (ConfigOption option : AdaptiveOptions.CORE_OPTIONS) {
            bad.put(option.key(), switch (option.kind()) {
                case INTEGER -> "fifty";
                case DECIMAL -> "1e-1";
                case BOOLEAN -> "yes";
                case DURATION -> "5 seconds";
                case ENUM -> "bbr";
                default -> throw new AssertionError(option);
            });
        }
        bad.put("maxLimit", "0");       // read, then out of range
        bad.put("outageProbe", "2h");   // read, then past its cap
        bad.forEach((key, value) -> {
            String core;
            try {
                AdaptiveConfig.builder().set(key, value);
                throw new AssertionError(key + "=" + value + " taken by the core");
            } catch (IllegalArgumentException e) {
                core = e.getMessage();
            }
            assertThat(core).as(key).contains(key).contains(value);
            assertThatThrownBy(() -> new AdaptiveOptions(new JsonObject().put(key, value))).as(key)
                    .isInstanceOf(IllegalArgumentException.class).hasMessage(core);
        });
        assertThatThrownBy(() -> new AdaptiveOptions(new JsonObject().put("statsLocalOnly", "yes")))
                .hasMessage("statsLocalOnly must be true or false: yes");
        assertThatThrownBy(() -> new AdaptiveOptions(new JsonObject().put("statsInterval", "5 seconds")))
                .hasMessageStartingWith("statsInterval must be a duration: ").hasMessageEndingWith(": 5 seconds");
        assertThatThrownBy(() -> new AdaptiveProxyOptions(new JsonObject().put("requestTimeout", "soon")))
                .hasMessageStartingWith("requestTimeout must be a duration: ").hasMessageEndingWith(": soon");
        assertThatThrownBy(() -> new AdaptiveOptions(new JsonObject().put("name", new BigInteger("42"))))
                .as("names are text only").hasMessage("name must be text: 42");
        assertThatThrownBy(() -> new AdaptiveOptions(new JsonObject().put("max-limit", "50")))
                .as("keys stay exact").hasMessageStartingWith("unknown option 'max-limit' (known:");
    }
}
