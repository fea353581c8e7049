package dev.adaptive.retry;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.StringLength;

import java.math.BigInteger;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code RetryAfter} against generated input: every RFC 9110 date format for instants from far
 * past to far future, delta-seconds up to numbers of hundreds of digits, and arbitrary strings
 * and bytes. The answer is always exact (a valid future value below the cap), the cap, or absent;
 * never an exception and never more than the cap.
 */
class RetryAfterProperties {

    private static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");
    private static final Clock CLOCK = Clock.fixed(NOW, ZoneOffset.UTC);
    private static final DateTimeFormatter IMF = DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US);
    private static final DateTimeFormatter RFC850 = DateTimeFormatter.ofPattern("EEEE, dd-MMM-yy HH:mm:ss 'GMT'", Locale.US);
    private static final DateTimeFormatter ASCTIME = DateTimeFormatter.ofPattern("EEE MMM ppd HH:mm:ss yyyy", Locale.US);

    @Property(tries = 300)
    void imfFixdateIsExactInTheFutureAbsentInThePastAndCapped(@ForAll("offsets") long offsetSeconds,
                                                              @ForAll @LongRange(min = 1, max = 100_000) long capSeconds) {
        Instant at = NOW.plusSeconds(offsetSeconds);
        String value = IMF.format(ZonedDateTime.ofInstant(at, ZoneOffset.UTC));
        assertExactOrCapped(value, offsetSeconds, Duration.ofSeconds(capSeconds));
    }

    @Property(tries = 200)
    void asctimeAgreesWithImfFixdate(@ForAll("offsets") long offsetSeconds) {
        ZonedDateTime at = ZonedDateTime.ofInstant(NOW.plusSeconds(offsetSeconds), ZoneOffset.UTC);
        Duration cap = Duration.ofDays(365L * 20_000);
        assertThat(RetryAfter.parse(ASCTIME.format(at), CLOCK, cap))
                .isEqualTo(RetryAfter.parse(IMF.format(at), CLOCK, cap));
    }

    @Property(tries = 200)
    void rfc850WithinFiftyYearsAgreesWithImfFixdate(@ForAll @LongRange(min = -1_000_000_000, max = 1_000_000_000) long offsetSeconds) {
        ZonedDateTime at = ZonedDateTime.ofInstant(NOW.plusSeconds(offsetSeconds), ZoneOffset.UTC);
        Duration cap = Duration.ofDays(365L * 100);
        assertThat(RetryAfter.parse(RFC850.format(at), CLOCK, cap))
                .isEqualTo(RetryAfter.parse(IMF.format(at), CLOCK, cap));
    }

    @Property(tries = 300)
    void deltaSecondsOfAnySizeIsExactOrCapped(@ForAll("digits") String digits,
                                              @ForAll @LongRange(min = 1, max = 1_000_000) long capSeconds) {
        Duration cap = Duration.ofSeconds(capSeconds);
        Optional<Duration> parsed = RetryAfter.parse(digits, CLOCK, cap);
        BigInteger n = new BigInteger(digits);
        Duration expected = n.compareTo(BigInteger.valueOf(capSeconds)) >= 0 ? cap : Duration.ofSeconds(n.longValueExact());
        assertThat(parsed).contains(expected);
    }

    @Property(tries = 500)
    void anyStringIsAValueWithinTheCapOrAbsent(@ForAll @StringLength(max = 64) String value,
                                               @ForAll @LongRange(min = 1, max = 1_000_000) long capMillis) {
        Duration cap = Duration.ofMillis(capMillis);
        RetryAfter.parse(value, CLOCK, cap).ifPresent(d -> assertThat(d).isBetween(Duration.ZERO, cap));
    }

    @Property(tries = 300)
    void anyBytesDecodedAsLatin1AreAValueWithinTheCapOrAbsent(@ForAll byte[] bytes) {
        String value = new String(bytes, java.nio.charset.StandardCharsets.ISO_8859_1);
        RetryAfter.parse(value, CLOCK).ifPresent(d -> assertThat(d).isBetween(Duration.ZERO, RetryAfter.DEFAULT_MAX));
    }

    @Provide
    Arbitrary<Long> offsets() {
        // From year 1 to year 9999 relative to NOW, biased to the edges (now, +-1 s, huge).
        long min = Instant.parse("0001-01-01T00:00:00Z").getEpochSecond() - NOW.getEpochSecond();
        long max = Instant.parse("9999-12-31T23:59:59Z").getEpochSecond() - NOW.getEpochSecond();
        return Arbitraries.oneOf(Arbitraries.longs().between(min, max),
                Arbitraries.longs().between(-5, 5),
                Arbitraries.longs().between(-100_000, 100_000));
    }

    @Provide
    Arbitrary<String> digits() {
        return Arbitraries.oneOf(
                Arbitraries.strings().numeric().ofMinLength(1).ofMaxLength(400),
                Arbitraries.longs().between(0, Long.MAX_VALUE).map(String::valueOf));
    }

    private static void assertExactOrCapped(String value, long offsetSeconds, Duration cap) {
        Optional<Duration> parsed = RetryAfter.parse(value, CLOCK, cap);
        if (offsetSeconds <= 0) {
            assertThat(parsed).as(value).isEmpty();
        } else {
            assertThat(parsed).as(value).contains(Duration.ofSeconds(offsetSeconds).compareTo(cap) > 0
                    ? cap : Duration.ofSeconds(offsetSeconds));
        }
    }
}
