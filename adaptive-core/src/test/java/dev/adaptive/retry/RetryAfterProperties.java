package dev.adaptive.retry;

import dev.adaptive.gen.Gen;
import dev.adaptive.gen.Property;
import org.junit.jupiter.api.Test;

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

    record DateCase(long offsetSeconds, long capSeconds) {
    }

    @Test
    void imfFixdateIsExactInTheFutureAbsentInThePastAndCapped() {
        Property.forAll(300, Gen.zip(offsets(), Gen.longs(1, 100_000), DateCase::new), c -> {
            Instant at = NOW.plusSeconds(c.offsetSeconds());
            String value = IMF.format(ZonedDateTime.ofInstant(at, ZoneOffset.UTC));
            assertExactOrCapped(value, c.offsetSeconds(), Duration.ofSeconds(c.capSeconds()));
        });
    }

    @Test
    void asctimeAgreesWithImfFixdate() {
        Property.forAll(200, offsets(), offsetSeconds -> {
            ZonedDateTime at = ZonedDateTime.ofInstant(NOW.plusSeconds(offsetSeconds), ZoneOffset.UTC);
            Duration cap = Duration.ofDays(365L * 20_000);
            assertThat(RetryAfter.parse(ASCTIME.format(at), CLOCK, cap))
                    .isEqualTo(RetryAfter.parse(IMF.format(at), CLOCK, cap));
        });
    }

    @Test
    void rfc850WithinFiftyYearsAgreesWithImfFixdate() {
        Property.forAll(200, Gen.longs(-1_000_000_000, 1_000_000_000), offsetSeconds -> {
            ZonedDateTime at = ZonedDateTime.ofInstant(NOW.plusSeconds(offsetSeconds), ZoneOffset.UTC);
            Duration cap = Duration.ofDays(365L * 100);
            assertThat(RetryAfter.parse(RFC850.format(at), CLOCK, cap))
                    .isEqualTo(RetryAfter.parse(IMF.format(at), CLOCK, cap));
        });
    }

    record DeltaCase(String digits, long capSeconds) {
    }

    @Test
    void deltaSecondsOfAnySizeIsExactOrCapped() {
        Property.forAll(300, Gen.zip(digits(), Gen.longs(1, 1_000_000), DeltaCase::new), c -> {
            Duration cap = Duration.ofSeconds(c.capSeconds());
            Optional<Duration> parsed = RetryAfter.parse(c.digits(), CLOCK, cap);
            BigInteger n = new BigInteger(c.digits());
            Duration expected = n.compareTo(BigInteger.valueOf(c.capSeconds())) >= 0 ? cap
                    : Duration.ofSeconds(n.longValueExact());
            assertThat(parsed).contains(expected);
        });
    }

    record TextCase(String value, long capMillis) {
        @Override
        public String toString() {
            return "TextCase[value=" + Property.show(value) + ", capMillis=" + capMillis + "]";
        }
    }

    @Test
    void anyStringIsAValueWithinTheCapOrAbsent() {
        Property.forAll(500, Gen.zip(Gen.strings(Gen.anyChar(), 0, 64), Gen.longs(1, 1_000_000), TextCase::new), c -> {
            Duration cap = Duration.ofMillis(c.capMillis());
            RetryAfter.parse(c.value(), CLOCK, cap).ifPresent(d -> assertThat(d).isBetween(Duration.ZERO, cap));
        });
    }

    @Test
    void anyBytesDecodedAsLatin1AreAValueWithinTheCapOrAbsent() {
        Property.forAll(300, Gen.bytes(0, 255), bytes -> {
            String value = new String(bytes, java.nio.charset.StandardCharsets.ISO_8859_1);
            RetryAfter.parse(value, CLOCK).ifPresent(d -> assertThat(d).isBetween(Duration.ZERO, RetryAfter.DEFAULT_MAX));
        });
    }

    private static Gen<Long> offsets() {
        // From year 1 to year 9999 relative to NOW, biased to the edges (now, +-1 s, huge).
        long min = Instant.parse("0001-01-01T00:00:00Z").getEpochSecond() - NOW.getEpochSecond();
        long max = Instant.parse("9999-12-31T23:59:59Z").getEpochSecond() - NOW.getEpochSecond();
        return Gen.oneOf(Gen.longs(min, max), Gen.longs(-5, 5), Gen.longs(-100_000, 100_000));
    }

    private static Gen<String> digits() {
        return Gen.oneOf(
                Gen.strings(Gen.chars("0123456789"), 1, 400),
                Gen.longs(0, Long.MAX_VALUE).map(String::valueOf));
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
