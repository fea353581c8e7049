package dev.adaptive.retry;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.NullAndEmptySource;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Optional;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.params.provider.Arguments.arguments;

class RetryAfterTest {

    /** 37 seconds before the RFC's example date, so the examples lie in the future. */
    private static final Clock NOW = clockAt("1994-11-06T08:49:00Z");
    private static final Duration CAP = RetryAfter.DEFAULT_MAX;

    static Stream<Arguments> table() {
        return Stream.of(
                // delta-seconds
                arguments("0", Duration.ZERO),
                arguments("120", Duration.ofSeconds(120)),
                arguments("007", Duration.ofSeconds(7)),
                arguments("  120\t", Duration.ofSeconds(120)),
                arguments("600", CAP),
                arguments("601", CAP),
                arguments("9223372036854775807", CAP),
                arguments("99999999999999999999999999", CAP),
                arguments("1" + "0".repeat(30), CAP),
                // the three date formats, 37 s ahead
                arguments("Sun, 06 Nov 1994 08:49:37 GMT", Duration.ofSeconds(37)),
                arguments("Sunday, 06-Nov-94 08:49:37 GMT", Duration.ofSeconds(37)),
                arguments("Sun Nov  6 08:49:37 1994", Duration.ofSeconds(37)),
                arguments("Sun Nov 06 08:49:37 1994", Duration.ofSeconds(37)),
                arguments(" \tSun, 06 Nov 1994 08:49:37 GMT \t", Duration.ofSeconds(37)),
                // a wrong weekday does not change the date the server wrote
                arguments("Mon, 06 Nov 1994 08:49:37 GMT", Duration.ofSeconds(37)),
                // a leap second is the next second
                arguments("Sun, 06 Nov 1994 08:49:60 GMT", Duration.ofSeconds(60)),
                arguments("Sun, 06 Nov 1994 08:59:00 GMT", CAP),
                arguments("Fri, 31 Dec 9999 23:59:59 GMT", CAP),
                // dates now or in the past
                arguments("Sun, 06 Nov 1994 08:49:00 GMT", null),
                arguments("Sun, 06 Nov 1994 08:48:59 GMT", null),
                arguments("Thu, 01 Jan 1970 00:00:00 GMT", null),
                arguments("Thursday, 01-Jan-70 00:00:00 GMT", null),
                // hostile or broken numbers
                arguments("-1", null),
                arguments("+1", null),
                arguments("1.5", null),
                arguments("1e3", null),
                arguments("12 3", null),
                arguments("99999999999999999999999999x", null),
                arguments("\u0661\u0662", null),
                arguments("\uff11\uff12", null),
                arguments("12\u00a0", null),
                arguments("0x10", null),
                // what servers send and lenient clients read: one meaning each
                arguments("Sun, 6 Nov 1994 08:49:37 GMT", Duration.ofSeconds(37)),
                arguments("sun, 06 nov 1994 08:49:37 gmt", Duration.ofSeconds(37)),
                arguments("SUN, 06 NOV 1994 08:49:37 GMT", Duration.ofSeconds(37)),
                arguments("Sun, 06 Nov 1994 08:49:37 UTC", Duration.ofSeconds(37)),
                arguments("Sun, 06 Nov 1994 08:49:37 UT", Duration.ofSeconds(37)),
                arguments("Sun, 06 Nov 1994 08:49:37 Z", Duration.ofSeconds(37)),
                arguments("Sun, 06 Nov 1994 08:49:37 +0000", Duration.ofSeconds(37)),
                arguments("Sun, 06 Nov 1994 09:49:37 +0100", Duration.ofSeconds(37)),
                arguments("Sun, 06 Nov 1994 07:49:37 -0100", Duration.ofSeconds(37)),
                arguments("Sun, 06 Nov 1994 08:49:37", Duration.ofSeconds(37)),
                arguments("06 Nov 1994 08:49:37 GMT", Duration.ofSeconds(37)),
                arguments("Sun, 06 Nov 1994 8:49:37 GMT", Duration.ofSeconds(37)),
                arguments("Sun, 06 November 1994 08:49:37 GMT", Duration.ofSeconds(37)),
                arguments("Sun, 06-Nov-94 08:49:37 GMT", Duration.ofSeconds(37)),
                arguments("Sunday, 06-Nov-1994 08:49:37 GMT", Duration.ofSeconds(37)),
                arguments("Sunday, 06 Nov 1994 08:49:37 GMT", Duration.ofSeconds(37)),
                arguments("Sun,06-Nov-94 08:49:37 GMT", Duration.ofSeconds(37)),
                arguments("Sun Nov 6 08:49:37 1994", Duration.ofSeconds(37)),
                arguments("sun nov  6 08:49:37 1994", Duration.ofSeconds(37)),
                arguments("Sun Nov 6 1994 08:49:37 GMT", Duration.ofSeconds(37)),
                // 24:00:00 is the end of the day, Nov 7 00:00, beyond the cap
                arguments("Sun, 06 Nov 1994 24:00:00 GMT", CAP),
                arguments("Sat, 05 Nov 1994 24:00:00 GMT", null),
                // broken dates
                arguments("Sun, 31 Nov 1994 08:49:37 GMT", null),
                arguments("Sun, 06 Nov 1994 24:00:01 GMT", null),
                arguments("Sun, 06 Nov 1994 25:00:00 GMT", null),
                arguments("Sun, 06 Nov 1994 08:60:00 GMT", null),
                arguments("Sun, 06 Nov 1994 08:49:61 GMT", null),
                arguments("Sun, 06 Nov 1994 08:49:7 GMT", null),
                arguments("Sun, 06 Nov 1994 108:49:37 GMT", null),
                arguments("Sun, 00 Nov 1994 08:49:37 GMT", null),
                arguments("Sun, 006 Nov 1994 08:49:37 GMT", null),
                arguments("Sun, 06 Foo 1994 08:49:37 GMT", null),
                arguments("Sun, 06 Nov 994 08:49:37 GMT", null),
                arguments("Sun, 06 Nov 1994 08-49-37 GMT", null),
                arguments("Sun, 06 Nov 1994 08:49:37 GMT+1", null),
                arguments("Sun, 06 Nov 1994 08:49:37 PST", null),
                arguments("Sun, 06 Nov 1994 08:49:37 +2400", null),
                arguments("Sun, 06 Nov 1994 08:49:37 GMT GMT", null),
                arguments("Sun, Sun, 06 Nov 1994 08:49:37 GMT", null),
                arguments("Sonday, 06-Nov-94 08:49:37 GMT", null),
                arguments("Sun Nov  6 08:49:37 94", null),
                arguments("Sun Nov  6 08:49:37 1994 GMT", null),
                arguments("Xyz Nov  6 08:49:37 1994", null),
                arguments("Sun, 06 Nov \u0661994 08:49:37 GMT", null),
                arguments("Sun, 06 \u212aov 1994 08:49:37 GMT", null),
                arguments("Sun, 06 Nov 1994 08:49:37 \u212a", null),
                arguments("Sun, 06 Nov -1994 08:49:37 GMT", null),
                // garbage
                arguments("soon", null),
                arguments(",", null),
                arguments("\u0000\u00ff\ufffd", null),
                arguments("\t", null));
    }

    @ParameterizedTest(name = "[{index}] \"{0}\" -> {1}")
    @MethodSource("table")
    void parses(String value, Duration expected) {
        assertThat(RetryAfter.parse(value, NOW)).isEqualTo(Optional.ofNullable(expected));
    }

    @ParameterizedTest
    @NullAndEmptySource
    void absentValuesAreEmpty(String value) {
        assertThat(RetryAfter.parse(value, NOW)).isEmpty();
    }

    /** Java's own formatter writes a one-digit day on days 1 to 9; every day of a year reads back. */
    @Test
    void javasRfc1123FormatterIsReadOnEveryDayOfTheYear() {
        Instant start = Instant.parse("2026-01-01T08:55:00Z");
        for (int day = 0; day < 365; day++) {
            Instant now = start.plus(Duration.ofDays(day));
            String value = DateTimeFormatter.RFC_1123_DATE_TIME.format(ZonedDateTime.ofInstant(now.plusSeconds(3), ZoneOffset.UTC));
            assertThat(RetryAfter.parse(value, Clock.fixed(now, ZoneOffset.UTC))).as(value).hasValue(Duration.ofSeconds(3));
        }
    }

    @Test
    void aHundredThousandDigitsCapWithoutThrowing() {
        assertThat(RetryAfter.parse("9".repeat(100_000), NOW, Duration.ofSeconds(5))).hasValue(Duration.ofSeconds(5));
    }

    @Test
    void theLargestSecondsBelowOverflowAreExact() {
        Duration max = Duration.ofSeconds(Long.MAX_VALUE);
        assertThat(RetryAfter.parse("9223372036854775806", NOW, max)).hasValue(Duration.ofSeconds(Long.MAX_VALUE - 1));
        assertThat(RetryAfter.parse("9223372036854775808", NOW, max)).hasValue(max);
    }

    @Test
    void aCustomCapApplies() {
        assertThat(RetryAfter.parse("3600", NOW, Duration.ofHours(2))).hasValue(Duration.ofHours(1));
        assertThat(RetryAfter.parse("3600", NOW, Duration.ofSeconds(30))).hasValue(Duration.ofSeconds(30));
        assertThat(RetryAfter.parse("Sun, 06 Nov 1994 09:49:00 GMT", NOW, Duration.ofHours(2)))
                .hasValue(Duration.ofHours(1));
    }

    @Test
    void datesKeepTheClocksSubSecondPrecision() {
        Clock halfSecondBefore = clockAt("1994-11-06T08:49:36.500Z");
        assertThat(RetryAfter.parse("Sun, 06 Nov 1994 08:49:37 GMT", halfSecondBefore)).hasValue(Duration.ofMillis(500));
    }

    @Test
    void asctimeTwoDigitDaysAndLeapYears() {
        Duration year = Duration.ofDays(400);
        Clock now = clockAt("1996-01-01T00:00:00Z");
        assertThat(RetryAfter.parse("Sat Nov 16 00:00:00 1996", now, year)).hasValue(Duration.ofDays(320));
        assertThat(RetryAfter.parse("Thu Feb 29 00:00:00 1996", now, year)).hasValue(Duration.ofDays(59));
        assertThat(RetryAfter.parse("Thu, 29 Feb 1996 00:00:00 GMT", now, year)).hasValue(Duration.ofDays(59));
        assertThat(RetryAfter.parse("Fri, 29 Feb 1997 00:00:00 GMT", now, year)).isEmpty();
    }

    @Test
    void rfc850YearsMoreThanFiftyYearsAheadAreInThePastCentury() {
        Clock now = clockAt("2024-01-01T00:00:00Z");
        Duration max = Duration.ofDays(400);
        // Read naively as 2094 this would be obeyed (capped); it is 1994, in the past.
        assertThat(RetryAfter.parse("Sunday, 06-Nov-94 08:49:37 GMT", now, max)).isEmpty();
        assertThat(RetryAfter.parse("Wednesday, 01-Jan-25 00:00:00 GMT", now, max)).hasValue(Duration.ofDays(366));
        assertThat(RetryAfter.parse("Monday, 01-Jan-74 00:00:00 GMT", now, Duration.ofDays(365 * 60)))
                .hasValue(Duration.between(now.instant(), Instant.parse("2074-01-01T00:00:00Z")));
    }

    @Test
    void twoDigitYearWindow() {
        assertThat(HttpDate.fullYear(94, 2024)).isEqualTo(1994);
        assertThat(HttpDate.fullYear(74, 2024)).isEqualTo(2074);
        assertThat(HttpDate.fullYear(75, 2024)).isEqualTo(1975);
        assertThat(HttpDate.fullYear(24, 2024)).isEqualTo(2024);
        assertThat(HttpDate.fullYear(0, 2099)).isEqualTo(2100);
        assertThat(HttpDate.fullYear(50, 2099)).isEqualTo(2050);
        assertThat(HttpDate.fullYear(49, 2099)).isEqualTo(2149);
    }

    @Test
    void extremeClocksDoNotBreakDates() {
        String date = "Sun, 06 Nov 1994 08:49:37 GMT";
        assertThat(RetryAfter.parse(date, Clock.fixed(Instant.MAX, ZoneOffset.UTC))).isEmpty();
        assertThat(RetryAfter.parse(date, Clock.fixed(Instant.MIN, ZoneOffset.UTC))).hasValue(CAP);
    }

    @Test
    void maxMustBePositive() {
        assertThatThrownBy(() -> RetryAfter.parse("1", NOW, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("max must be positive: PT0S");
        assertThatThrownBy(() -> RetryAfter.parse("1", NOW, Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("max must be positive: PT-1S");
        assertThatThrownBy(() -> RetryAfter.parse("1", NOW, null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("max");
    }

    @Test
    void defaultCapIsTenMinutes() {
        assertThat(RetryAfter.DEFAULT_MAX).isEqualTo(Duration.ofMinutes(10));
    }

    static Clock clockAt(String instant) {
        return Clock.fixed(Instant.parse(instant), ZoneOffset.UTC);
    }
}
