package dev.adaptive.vertx;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.math.BigInteger;
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
}
