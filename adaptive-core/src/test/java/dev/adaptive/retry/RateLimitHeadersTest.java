package dev.adaptive.retry;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.params.provider.Arguments.arguments;

class RateLimitHeadersTest {

    /** 2023-11-14T22:13:20Z: Unix time 1,700,000,000. */
    private static final Clock NOW = Clock.fixed(Instant.ofEpochSecond(1_700_000_000L), ZoneOffset.UTC);
    private static final Duration CAP = RateLimitHeaders.DEFAULT_MAX;

    private static Quota q(long remaining, Duration reset) {
        return new Quota(remaining, reset);
    }

    private static Duration s(long seconds) {
        return Duration.ofSeconds(seconds);
    }

    /** Pairs of name, value, then the expected quota (or null). */
    static Stream<Arguments> table() {
        return Stream.of(
                // IETF structured fields
                arguments(new String[]{"ratelimit", "\"default\";r=50;t=30"}, q(50, s(30))),
                arguments(new String[]{"ratelimit", "default;r=50;t=30"}, q(50, s(30))),
                arguments(new String[]{"ratelimit", " \"default\" ; r=0 ; t=7 \t"}, q(0, s(7))),
                arguments(new String[]{"ratelimit", "\"burst\";r=5;t=1, \"daily\";r=100;t=3600"}, q(5, s(1))),
                arguments(new String[]{"ratelimit", "\"burst\";r=2;t=1, \"daily\";r=2;t=300"}, q(2, s(300))),
                arguments(new String[]{"ratelimit", "\"default\";r=50", "ratelimit-policy", "\"default\";q=100;w=60"},
                        q(50, s(60))),
                arguments(new String[]{"ratelimit", "\"a\";r=50", "ratelimit-policy", "\"b\";q=100;w=60"}, null),
                arguments(new String[]{"ratelimit", "\"default\";r=50;t=30;r=40"}, q(40, s(30))),
                arguments(new String[]{"ratelimit", "\"de,f\";r=9;t=3"}, q(9, s(3))),
                arguments(new String[]{"ratelimit", "\"default\";r=50;t=999999"}, q(50, CAP)),
                // the earlier draft's dictionary and separate fields
                arguments(new String[]{"ratelimit", "limit=100, remaining=50, reset=30"}, q(50, s(30))),
                arguments(new String[]{"ratelimit-limit", "100", "ratelimit-remaining", "50", "ratelimit-reset", "30"},
                        q(50, s(30))),
                // X-RateLimit: seconds to go, Unix seconds, Unix milliseconds, decimals
                arguments(new String[]{"x-ratelimit-remaining", "42", "x-ratelimit-reset", "15"}, q(42, s(15))),
                arguments(new String[]{"x-ratelimit-remaining", "42", "x-ratelimit-reset", "1700000020"}, q(42, s(20))),
                arguments(new String[]{"x-ratelimit-remaining", "42", "x-ratelimit-reset", "1700000020500"},
                        q(42, Duration.ofMillis(20_500))),
                arguments(new String[]{"x-ratelimit-remaining", "1", "x-ratelimit-reset", "1700000002.25"},
                        q(1, Duration.ofMillis(2_250))),
                arguments(new String[]{"x-ratelimit-remaining", "1", "x-ratelimit-reset", "1.5"}, q(1, Duration.ofMillis(1_500))),
                arguments(new String[]{"x-ratelimit-remaining", "0", "x-ratelimit-reset", "1699999990"}, q(0, Duration.ZERO)),
                arguments(new String[]{"x-ratelimit-remaining", "0", "x-ratelimit-reset", "1800000000"}, q(0, CAP)),
                arguments(new String[]{"x-ratelimit-remaining", "3", "x-ratelimit-reset-after", "2.5"},
                        q(3, Duration.ofMillis(2_500))),
                arguments(new String[]{"x-ratelimit-remaining", "7, 5", "x-ratelimit-reset", "10, 12"}, q(5, s(12))),
                // per kind, with Go-style durations
                arguments(new String[]{"x-ratelimit-remaining-requests", "59", "x-ratelimit-reset-requests", "6m0s"},
                        q(59, s(360))),
                arguments(new String[]{"x-ratelimit-remaining-requests", "59", "x-ratelimit-reset-requests", "1m30.5s"},
                        q(59, Duration.ofMillis(90_500))),
                arguments(new String[]{"x-ratelimit-remaining-requests", "9", "x-ratelimit-reset-requests", "20ms"},
                        q(9, Duration.ofMillis(20))),
                arguments(new String[]{"x-ratelimit-remaining-requests", "9", "x-ratelimit-reset-requests", "2"}, q(9, s(2))),
                arguments(new String[]{"x-ratelimit-remaining-requests", "9", "x-ratelimit-reset-requests", "1h"}, q(9, CAP)),
                arguments(new String[]{"x-ratelimit-remaining-tokens", "9", "x-ratelimit-reset-tokens", "1s"}, null),
                // the first readable form wins; garbage in one falls through to the next
                arguments(new String[]{"ratelimit", "\"d\";r=1;t=2", "x-ratelimit-remaining", "9", "x-ratelimit-reset", "9"},
                        q(1, s(2))),
                arguments(new String[]{"ratelimit", "soon", "x-ratelimit-remaining", "9", "x-ratelimit-reset", "9"},
                        q(9, s(9))),
                // hostile or broken
                arguments(new String[]{"x-ratelimit-remaining", "-1", "x-ratelimit-reset", "9"}, null),
                arguments(new String[]{"x-ratelimit-remaining", "1", "x-ratelimit-reset", "-9"}, null),
                arguments(new String[]{"x-ratelimit-remaining", "1", "x-ratelimit-reset", "9x"}, null),
                arguments(new String[]{"x-ratelimit-remaining", "1", "x-ratelimit-reset", "1."}, null),
                arguments(new String[]{"x-ratelimit-remaining", "1", "x-ratelimit-reset", ".5"}, null),
                arguments(new String[]{"x-ratelimit-remaining", "\u0661", "x-ratelimit-reset", "9"}, null),
                arguments(new String[]{"x-ratelimit-remaining", "1", "x-ratelimit-reset", ""}, null),
                arguments(new String[]{"x-ratelimit-remaining", "12"}, null),
                arguments(new String[]{"x-ratelimit-reset", "12"}, null),
                arguments(new String[]{"x-ratelimit-remaining", "99999999999999999999999", "x-ratelimit-reset", "1"},
                        q(Integer.MAX_VALUE, s(1))),
                arguments(new String[]{"x-ratelimit-remaining", "1", "x-ratelimit-reset", "9".repeat(40)}, q(1, CAP)),
                arguments(new String[]{"x-ratelimit-remaining-requests", "1", "x-ratelimit-reset-requests", "6x"}, null),
                arguments(new String[]{"x-ratelimit-remaining-requests", "1", "x-ratelimit-reset-requests", "m"}, null),
                arguments(new String[]{"x-ratelimit-remaining-requests", "1", "x-ratelimit-reset-requests", "1.s"}, null),
                arguments(new String[]{"ratelimit", "\"default;r=5;t=3"}, null),
                arguments(new String[]{"ratelimit", "\"default\"x;r=5;t=3"}, null),
                arguments(new String[]{"ratelimit", "\"default\";r=5;t=abc"}, null),
                arguments(new String[]{"ratelimit", "\"default\";r=five;t=3"}, null),
                arguments(new String[]{}, null));
    }

    @ParameterizedTest(name = "[{index}] {0} -> {1}")
    @MethodSource("table")
    void parses(String[] fields, Quota expected) {
        Map<String, String> headers = new HashMap<>();
        for (int i = 0; i < fields.length; i += 2) {
            headers.put(fields[i], fields[i + 1]);
        }
        assertThat(RateLimitHeaders.parse(headers::get, NOW)).isEqualTo(Optional.ofNullable(expected));
    }

    @Test
    void theClockIsReadOnlyForUnixTimes() {
        Clock broken = new Clock() {
            @Override
            public ZoneOffset getZone() {
                return ZoneOffset.UTC;
            }

            @Override
            public Clock withZone(java.time.ZoneId zone) {
                return this;
            }

            @Override
            public Instant instant() {
                throw new AssertionError("read the clock");
            }
        };
        Map<String, String> h = Map.of("x-ratelimit-remaining", "4", "x-ratelimit-reset", "30");
        assertThat(RateLimitHeaders.parse(h::get, broken)).contains(q(4, s(30)));
    }

    @Test
    void aCustomCapApplies() {
        Map<String, String> h = Map.of("ratelimit", "\"x\";r=4;t=3600");
        assertThat(RateLimitHeaders.parse(h::get, NOW, Duration.ofSeconds(5))).contains(q(4, s(5)));
    }

    @Test
    void aHundredThousandMembersAreReadUpToTheBound() {
        String many = "\"x\";r=1;t=1, ".repeat(100_000);
        assertThat(RateLimitHeaders.parse(Map.of("ratelimit", many)::get, NOW)).contains(q(1, s(1)));
    }

    @Test
    void maxMustBePositive() {
        assertThatThrownBy(() -> RateLimitHeaders.parse(n -> null, NOW, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("max must be positive: PT0S");
        assertThatThrownBy(() -> RateLimitHeaders.parse(null, NOW)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void quotaRejectsNegatives() {
        assertThatThrownBy(() -> new Quota(-1, Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("remaining must be >= 0: -1");
        assertThatThrownBy(() -> new Quota(1, Duration.ofSeconds(-1))).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("reset must not be negative: PT-1S");
    }
}
