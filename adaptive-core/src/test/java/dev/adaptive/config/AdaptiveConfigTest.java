package dev.adaptive.config;

import dev.adaptive.Limiter;
import dev.adaptive.fleet.FleetMember;
import dev.adaptive.fleet.InMemoryCoordinator;
import dev.adaptive.fleet.OutagePolicy;
import dev.adaptive.internal.DurationText;
import dev.adaptive.limit.FixedLimit;
import dev.adaptive.limit.Vegas;
import dev.adaptive.retry.Backoff;
import dev.adaptive.retry.RetryAfter;
import dev.adaptive.trace.TraceListener;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The one options model: defaults, strict binding from text and JSON values, rules, messages. */
class AdaptiveConfigTest {

    @Test
    void defaultsAreTheLimitersAndTheRetryPolicys() {
        AdaptiveConfig d = AdaptiveConfig.defaults();
        assertThat(d.algorithm()).isEqualTo(Algorithm.VEGAS);
        assertThat(d.initialLimit()).isNull();
        assertThat(d.effectiveInitialLimit()).isEqualTo(Limiter.DEFAULT_INITIAL_LIMIT);
        assertThat(d.minLimit()).isEqualTo(1);
        assertThat(d.maxLimit()).isEqualTo(100);
        assertThat(d.maxQueueSize()).isEqualTo(10_000);
        assertThat(d.maxRetryAfter()).isSameAs(RetryAfter.DEFAULT_MAX);
        assertThat(d.retryPolicy().retries()).isEqualTo(3);
        assertThat(d.fleetOutagePolicy()).isEqualTo(OutagePolicy.FAIL_CLOSED);
        assertThat(d.limit()).isInstanceOfSatisfying(Vegas.class, v -> {
            assertThat(v.initialLimit()).isEqualTo(5);
            assertThat(v.maxLimit()).isEqualTo(100);
        });
        // A bare Limiter has the same defaults as every face.
        Limiter bare = Limiter.create();
        assertThat(bare.algorithm()).isInstanceOfSatisfying(Vegas.class, v -> assertThat(v.maxLimit()).isEqualTo(100));
    }

    @Test
    void textIsReadStrictlyAndTheSameForEverySource() {
        Map<String, Object> text = new LinkedHashMap<>();
        text.put("algorithm", "AIMD");
        text.put("initialLimit", "7");
        text.put("min-limit", "2");
        text.put("maxlimit", " 50 ");
        text.put("adaptOnLatency", "FALSE");
        text.put("backoff", "linear");
        text.put("minDelay", "250");
        text.put("maxDelay", "1m30s");
        text.put("jitter", "0.5");
        text.put("maxRetryAfter", "PT2M");
        text.put("taskTimeout", "2s500ms");
        text.put("fleetOutagePolicy", "LOCAL_ONLY");
        AdaptiveConfig fromText = AdaptiveConfig.of(text);

        Map<String, Object> json = new LinkedHashMap<>();
        json.put("algorithm", "aimd");
        json.put("initialLimit", 7);
        json.put("minLimit", 2.0);
        json.put("maxLimit", 50L);
        json.put("adaptOnLatency", false);
        json.put("backoff", "LINEAR");
        json.put("minDelay", 250);
        json.put("maxDelay", 90_000);
        json.put("jitter", 0.5);
        json.put("maxRetryAfter", 120_000);
        json.put("taskTimeout", 2_500);
        json.put("fleetOutagePolicy", "local-only");
        assertThat(AdaptiveConfig.of(json)).isEqualTo(fromText);
        assertThat(fromText.backoff()).isEqualTo(Backoff.Kind.LINEAR);
        assertThat(fromText.maxDelay()).isEqualTo(Duration.ofSeconds(90));
        assertThat(fromText.fleetOutagePolicy()).isEqualTo(OutagePolicy.LOCAL_ONLY);
    }

    @Test
    void badValuesNameTheOptionAndQuoteTheText() {
        assertBad(Map.of("maxLimt", "5"), "unknown option 'maxLimt' (known: algorithm, initialLimit, minLimit,");
        assertBad(Map.of("algorithm", "fıxed"), "algorithm must be one of vegas|aimd|gradient2|fixed: fıxed");
        assertBad(Map.of("backoff", "ſonstant"), "backoff must be one of constant|linear|exponential: ſonstant");
        assertBad(Map.of("retries", "-1"), "retries must be >= 0: -1");
        assertBad(Map.of("retries", "3.5"), "retries must be a whole number: 3.5");
        assertBad(Map.of("retries", 3.5), "retries must be a whole number: 3.5");
        assertBad(Map.of("retries", "٣"), "retries must be a whole number: ٣");
        assertBad(Map.of("jitter", "1e-1"), "jitter must be a decimal number: 1e-1");
        assertBad(Map.of("jitter", "NaN"), "jitter must be a decimal number: NaN");
        assertBad(Map.of("adaptOnErrors", "yes"), "adaptOnErrors must be true or false: yes");
        assertBad(Map.of("minDelay", "1h30x"), "minDelay must be a duration: ");
        assertBad(Map.of("minDelay", "-5s"), "minDelay must be a duration >= 0: -5s");
        assertBad(Map.of("minDelay", -5), "minDelay must be a duration >= 0: -5");
        assertBad(Map.of("minDelay", 1.5), "minDelay must be a whole number of milliseconds: 1.5");
        assertBad(Map.of("maxRetryAfter", "0"), "maxRetryAfter must be a positive duration: 0");
        assertBad(Map.of("minDelay", "2s", "maxDelay", "1500"), "maxDelay must be >= minDelay (2s): 1500");
        assertBad(Map.of("minLimit", "4", "maxLimit", "3"), "maxLimit must be >= minLimit (4): 3");
        assertBad(Map.of("initialLimit", "5", "maxLimit", "3"), "initialLimit must be within [minLimit, maxLimit] = [1, 3]: 5");
        assertBad(Map.of("algorithm", "fixed", "initialLimit", "3"), "initialLimit has no meaning with algorithm=fixed");
        assertBad(Map.of("fleetNodeId", "n1"), "fleetNodeId has no meaning without coordinator: n1");
        assertBad(Map.of("coordinator", "#fleet"), "coordinator must be a dev.adaptive.fleet.Coordinator: #fleet");
        assertBad(Map.of("fleetHeartbeat", "366d"), "fleetHeartbeat must be at most 365d: 366d");
        assertBad(Map.of("fleetKey", " "), "fleetKey must not be blank: ' '");
    }

    @Test
    void anExactNumberIsReadExactlyNotThroughADouble() {
        // 5.0000000000000000001 rounds to the double 5.0: a non-integer read as 5.
        assertBad(Map.of("retries", new BigDecimal("5.0000000000000000001")),
                "retries must be a whole number: 5.0000000000000000001");
        assertBad(Map.of("minDelay", new BigDecimal("250.0000000000000000001")),
                "minDelay must be a whole number of milliseconds: 250.0000000000000000001");
        assertBad(Map.of("maxQueueSize", new BigInteger("9223372036854775808")),
                "maxQueueSize must be a whole number that fits in a long: 9223372036854775808");
        assertBad(Map.of("maxLimit", new BigInteger("4294967296")),
                "maxLimit must be a whole number that fits in an int: 4294967296");
        AdaptiveConfig exact = AdaptiveConfig.of(Map.of("retries", new BigDecimal("5.000"),
                "maxLimit", new BigInteger("50"), "minDelay", new BigDecimal("2.5E+2")));
        assertThat(exact.retries()).isEqualTo(5);
        assertThat(exact.maxLimit()).isEqualTo(50);
        assertThat(exact.minDelay()).isEqualTo(Duration.ofMillis(250));
    }

    @Test
    void aLaterValueIsQuotedNotAnEarlierOne() {
        AdaptiveConfig.Builder b = AdaptiveConfig.builder().set("retries", "2");
        assertThatThrownBy(() -> b.set("retries", "-7")).hasMessage("retries must be >= 0: -7");
    }

    @Test
    void fixedRunsAtMaxLimitAndTheFleetNeedsANodeId() {
        AdaptiveConfig fixed = AdaptiveConfig.of(Map.of("algorithm", "fixed", "maxLimit", "20"));
        assertThat(fixed.limit()).isInstanceOfSatisfying(FixedLimit.class, f -> assertThat(f.limit()).isEqualTo(20));
        assertThat(fixed.effectiveInitialLimit()).isEqualTo(20);
        InMemoryCoordinator coordinator = new InMemoryCoordinator(dev.adaptive.time.Ticker.system());
        assertThatThrownBy(() -> AdaptiveConfig.builder().coordinator(coordinator).build())
                .hasMessageStartingWith("fleetNodeId must be set when coordinator is");
        assertThat(AdaptiveConfig.builder().set("coordinator", coordinator).set("fleetNodeId", "n1").build()
                .coordinator()).isSameAs(coordinator);
    }

    /** The fleet options make the limiter's fleet member, as the Camel pool's; none without a coordinator. */
    @Test
    void theFleetOptionsMakeTheFleetMember() {
        InMemoryCoordinator fleet = InMemoryCoordinator.create();
        Limiter limiter = Limiter.builder().build();
        assertThat(AdaptiveConfig.defaults().fleetMemberBuilder(limiter, "orders")).isEmpty();
        AdaptiveConfig config = AdaptiveConfig.builder().coordinator(fleet).fleetNodeId("n1")
                .set("fleetHeartbeat", "250ms").set("fleetOutagePolicy", "local-only").build();
        FleetMember member = config.fleetMemberBuilder(limiter, "orders").orElseThrow().join();
        try {
            assertThat(member.limiter()).isSameAs(limiter);
            assertThat(member.key()).as("the face's name, fleetKey unset").isEqualTo("orders");
            assertThat(member.nodeId()).isEqualTo("n1");
            assertThat(member.heartbeat()).isEqualTo(Duration.ofMillis(250));
            assertThat(member.outagePolicy()).isEqualTo(OutagePolicy.LOCAL_ONLY);
        } finally {
            member.close();
        }
        FleetMember keyed = config.toBuilder().fleetKey("orders-backend").build()
                .fleetMemberBuilder(limiter, "orders").orElseThrow().join();
        keyed.close();
        assertThat(keyed.key()).isEqualTo("orders-backend");
    }

    @Test
    void toBuilderIsLosslessAndEqualityComparesBeansByIdentity() {
        TraceListener a = event -> { };
        TraceListener b = event -> { };
        AdaptiveConfig one = AdaptiveConfig.builder().maxLimit(9).traceListener(a).build();
        assertThat(one.toBuilder().build()).isEqualTo(one).hasSameHashCodeAs(one);
        assertThat(one.toBuilder().build().initialLimit()).isNull();
        AdaptiveConfig other = one.toBuilder().traceListener(b).maxLimit(8).build();
        assertThat(one.differences(other)).hasSize(2).first().asString().startsWith("maxLimit=9 vs 8");
        assertThat(AdaptiveConfig.builder().initialLimit(3).build().toBuilder().minLimit(2).build()
                .initialLimit()).isEqualTo(3);
    }

    @Test
    void theEngineValuesFollowTheOptions() {
        AdaptiveConfig c = AdaptiveConfig.of(Map.of("maxQueueSize", "0", "waitTimeout", "1s", "taskTimeout", "0",
                "retries", "1"));
        Limiter limiter = c.limiterBuilder().build();
        assertThat(limiter.algorithm()).isInstanceOf(Vegas.class);
        assertThat(c.executorBuilder(limiter).build().taskTimeout()).isNull();
        assertThat(c.executorBuilder(limiter).build().retryPolicy().retries()).isEqualTo(1);
    }

    @Test
    void defaultTextsReadBackAsTheDefaults() {
        for (ConfigOption o : ConfigOption.values()) {
            if (o.kind() == ConfigOption.Kind.DURATION && !o.defaultText().contains("(")) {
                assertThat(DurationText.parse(o.key(), o.defaultText())).as(o.key()).isEqualTo(o.defaultValue());
            }
        }
        assertThat(ConfigOption.MAX_RETRY_AFTER.defaultText()).isEqualTo("10m");
        assertThat(ConfigOption.MIN_DELAY.defaultText()).isEqualTo("100ms");
        assertThat(ConfigOption.FLEET_OUTAGE_POLICY.defaultText()).isEqualTo("failClosed");
        assertThat(DurationText.format(Duration.ofMinutes(90).plusMillis(5))).isEqualTo("1h30m5ms");
        assertThat(DurationText.format(Duration.ofNanos(1500))).isEqualTo("PT0.0000015S");
    }

    @Test
    void aDurationAboveItsCapIsQuotedAsTyped() {
        assertBad(Map.of("retryBudgetWindow", "25h"), "retryBudgetWindow must be at most 1d: 25h");
        assertBad(Map.of("outageProbe", "61m"), "outageProbe must be at most 1h: 61m");
        assertBad(Map.of("outageProbe", "-1s"), "outageProbe must be a duration >= 0: -1s");
    }

    /** Text past about 292 years cannot be read; the same length as a number or a Duration is refused alike. */
    @Test
    void aDurationPastTheLongestTextIsRefusedInEveryForm() {
        String rule = "taskTimeout must be at most PT2562047H47M16.854775807S (about 292 years): ";
        assertBad(Map.of("taskTimeout", "106752d"), rule + "106752d");
        assertBad(Map.of("taskTimeout", Long.MAX_VALUE), rule + Long.MAX_VALUE);
        assertBad(Map.of("taskTimeout", Duration.ofDays(106752)), rule + "PT2562048H");
        assertThatThrownBy(() -> AdaptiveConfig.builder().waitTimeout(Duration.ofDays(106752)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("waitTimeout must be at most PT2562047H47M16.854775807S (about 292 years): 106752d");
        assertThat(AdaptiveConfig.builder().taskTimeout(DurationText.MAX).build().taskTimeout()).isEqualTo(
                DurationText.MAX);
        assertThat(AdaptiveConfig.of(Map.of("taskTimeout", DurationText.MAX.toMillis())).taskTimeout())
                .isEqualTo(Duration.ofMillis(DurationText.MAX.toMillis()));
    }

    @Test
    void theCoreDocsPrintTheTableOfTheModel() throws Exception {
        String page = Files.readString(Path.of("..", "docs", "core.md"));
        assertThat(page).as("docs/core.md holds ConfigOption.markdownTable() as printed")
                .contains(ConfigOption.markdownTable());
        assertThat(List.of(ConfigOption.values())).extracting(ConfigOption::key).doesNotHaveDuplicates();
    }

    private static void assertBad(Map<String, ?> options, String message) {
        assertThatThrownBy(() -> AdaptiveConfig.of(options)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith(message);
    }
}
