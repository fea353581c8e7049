package dev.adaptive.camel;

import org.apache.camel.ResolveEndpointFailedException;
import org.apache.camel.test.junit5.CamelTestSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Every duration option of the endpoint reads its text strictly: what it does not understand
 * fails when the endpoint is created, naming the option and quoting the text as typed, where
 * Camel's converter would have read it as 0, as a part of it, or wrapped it negative.
 */
class DurationOptionsTest extends CamelTestSupport {

    private static final List<String> OPTIONS = List.of("minDelay", "maxDelay", "maxRetryAfter", "taskTimeout",
            "waitTimeout", "fleetHeartbeat", "outageProbe", "retryBudgetWindow", "timeout");

    private static final String GARBAGE = "must be a duration: milliseconds (500), numbers with units from d to ms"
            + " in that order (1h30m15s, 500ms) or ISO-8601 (PT1S)";
    private static final String NEGATIVE = "must be a duration >= 0";
    private static final String TOO_LONG = "must be at most PT2562047H47M16.854775807S (about 292 years)";

    /** Text as typed, and the rule it breaks. */
    private static final List<String[]> BAD = List.of(
            new String[] {"abc", GARBAGE},
            new String[] {"1e3", GARBAGE},
            new String[] {"1M", GARBAGE},
            new String[] {"5S", GARBAGE},
            new String[] {"1H", GARBAGE},
            new String[] {"1h30x", GARBAGE},
            new String[] {"1.5s", GARBAGE},
            new String[] {"0x10", GARBAGE},
            new String[] {"1m1m", GARBAGE},
            new String[] {"1s1m", GARBAGE},
            new String[] {"10min", GARBAGE},
            new String[] {"2 s", GARBAGE},
            new String[] {"s", GARBAGE},
            new String[] {"ms", GARBAGE},
            new String[] {"", GARBAGE},
            new String[] {" ", GARBAGE},
            new String[] {"\u0661\u0662", GARBAGE},
            new String[] {"\u0661\u0662s", GARBAGE},
            new String[] {"+5", GARBAGE},
            new String[] {"+PT1S", GARBAGE},
            new String[] {"P1M", GARBAGE},
            new String[] {"PT", GARBAGE},
            new String[] {"-5s", NEGATIVE},
            new String[] {"-1", NEGATIVE},
            new String[] {"PT-1S", NEGATIVE},
            new String[] {"-PT1S", NEGATIVE},
            new String[] {"P1DT-1H", NEGATIVE},
            new String[] {"999999999999d", TOO_LONG},
            new String[] {"9223372036854775807", TOO_LONG},
            new String[] {"99999999999999999999ms", TOO_LONG},
            new String[] {"P106752D", TOO_LONG},
            new String[] {"P999999999999999D", TOO_LONG},
            new String[] {"PT9999999999999999999S", TOO_LONG});

    static Stream<Arguments> badTextForEveryOption() {
        return OPTIONS.stream().flatMap(o -> BAD.stream().map(b -> Arguments.of(o, b[0], b[1])));
    }

    @ParameterizedTest(name = "{0}=\"{1}\"")
    @MethodSource("badTextForEveryOption")
    void textThatIsNoDurationFailsTheEndpointNamingTheOptionAndQuotingTheText(String option, String text,
            String rule) {
        // A '+' reaches the option only inside RAW(...): Camel decodes it to a space otherwise.
        String value = text.contains("+") ? "RAW(" + text + ")"
                : URLEncoder.encode(text, StandardCharsets.UTF_8).replace("+", "%20");
        String uri = "adaptive:bad?" + option + "=" + value;
        assertThatThrownBy(() -> context.getEndpoint(uri))
                .as(uri)
                .isInstanceOf(ResolveEndpointFailedException.class)
                .rootCause().isInstanceOf(IllegalArgumentException.class)
                .hasMessage(option + " " + rule + ": " + text);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "0                          | PT0S",
        "500                        | PT0.5S",
        "0500                       | PT0.5S",
        "500ms                      | PT0.5S",
        "45s                        | PT45S",
        "2s500ms                    | PT2.5S",
        "1h30m15s                   | PT1H30M15S",
        "1d                         | PT24H",
        "1d2h3m4s5ms                | PT26H3M4.005S",
        "PT1S                       | PT1S",
        "pt0.25s                    | PT0.25S",
        "PT1,5S                     | PT1.5S",
        "P1DT2H                     | PT26H",
        "%205s%20                   | PT5S",
        "PT2562047H47M16.854775807S | PT2562047H47M16.854775807S",
    })
    void camelsDocumentedFormsMillisecondsAndIso8601AreRead(String typed, Duration expected) {
        AdaptiveEndpoint e = context.getEndpoint("adaptive:good?timeout=" + typed, AdaptiveEndpoint.class);
        assertThat(e.getTimeout()).isEqualTo(expected);
    }

    @Test
    void everyDurationOptionIsReadByTheSameRules() {
        List<Function<AdaptiveEndpoint, Duration>> getters = List.of(e -> e.getConfiguration().getMinDelay(),
                e -> e.getConfiguration().getMaxDelay(), e -> e.getConfiguration().getMaxRetryAfter(),
                e -> e.getConfiguration().getTaskTimeout(), e -> e.getConfiguration().getWaitTimeout(),
                e -> e.getConfiguration().getFleetHeartbeat(), e -> e.getConfiguration().getOutageProbe(),
                e -> e.getConfiguration().getRetryBudgetWindow(), AdaptiveEndpoint::getTimeout);
        for (int i = 0; i < OPTIONS.size(); i++) {
            String option = OPTIONS.get(i);
            AdaptiveEndpoint e = context.getEndpoint("adaptive:each" + i + "?" + option + "=1m30s"
                    + (option.equals("maxDelay") ? "" : "&maxDelay=1h"), AdaptiveEndpoint.class);
            assertThat(getters.get(i).apply(e)).as(option).isEqualTo(Duration.ofSeconds(90));
        }
        // Camel matches option names in any case; the text still goes through the component.
        assertThatThrownBy(() -> context.getEndpoint("adaptive:anyCase?MINDELAY=1M"))
                .rootCause().hasMessage("minDelay " + GARBAGE + ": 1M");
    }

    @Test
    void rulesAcrossOptionsQuoteTheTextAsTyped() {
        assertThatThrownBy(() -> context.getEndpoint("adaptive:across?minDelay=2s&maxDelay=1500ms"))
                .rootCause().hasMessage("maxDelay must be >= minDelay (2s): 1500ms");
        assertThatThrownBy(() -> context.getEndpoint("adaptive:across?maxRetryAfter=0ms"))
                .rootCause().hasMessage("maxRetryAfter must be a positive duration: 0ms");
        assertThatThrownBy(() -> context.getEndpoint("adaptive:across?fleetHeartbeat=366d"))
                .rootCause().hasMessage("fleetHeartbeat must be at most 365d: 366d");
    }

    @Test
    void plainNumbersAreMillisecondsSoTaskTimeoutAndTimeoutMeanWhatWasTyped() {
        // taskTimeout=1e3 used to mean no timeout at all, timeout=abc to fail at once.
        AdaptiveEndpoint e = context.getEndpoint("adaptive:typed?taskTimeout=1000&timeout=2s", AdaptiveEndpoint.class);
        assertThat(e.poolConfig().taskTimeout()).isEqualTo(Duration.ofSeconds(1));
        assertThat(e.getTimeout()).isEqualTo(Duration.ofSeconds(2));
    }
}
