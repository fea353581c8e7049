package dev.adaptive.retry;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Parses an HTTP {@code Retry-After} field value (RFC 9110 §5.6.7) into a wait.
 *
 * <p>Accepted: delta-seconds (ASCII digits only, such as {@code "120"}) and the three
 * HTTP-date formats, IMF-fixdate ({@code "Sun, 06 Nov 1994 08:49:37 GMT"}), obsolete RFC 850
 * ({@code "Sunday, 06-Nov-94 08:49:37 GMT"}, two-digit years more than 50 years ahead are
 * taken as the past century) and asctime ({@code "Sun Nov  6 08:49:37 1994"}), with the
 * variants real servers send and common HTTP clients accept where their meaning is
 * unambiguous: a one-digit day (what {@code DateTimeFormatter.RFC_1123_DATE_TIME} writes on
 * days 1 to 9), names in any letter case, {@code UTC} for {@code GMT}, {@code 24:00:00}, asctime
 * with one space before a one-digit day. Leading and trailing spaces and tabs are ignored.
 *
 * <p>Hostile or broken values are never obeyed blindly: anything else (negative or
 * fractional numbers, non-ASCII digits, garbage) and dates at or before now give
 * {@link Optional#empty()}; waits longer than the cap give the cap. No input string makes
 * these methods throw or run for long: parsing is linear and without regular expressions.
 *
 * <p>Stateless and thread-safe.
 */
public final class RetryAfter {

    /**
     * The default cap on a wait: 10 minutes. A hostile or buggy server must not freeze a
     * client for hours with one header. If the server really means a longer quota, it will
     * answer 429 again after the cap, and each such answer consumes the task's rate-limit
     * retry budget ({@link RetryPolicy#maxRateLimitRetries()}), so the task ends in an error
     * rather than waiting indefinitely.
     */
    public static final Duration DEFAULT_MAX = Duration.ofMinutes(10);

    /** 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z: the years an HTTP-date can name. */
    private static final long MIN_YEAR_SECOND = -62_135_596_800L;
    private static final long MAX_YEAR_SECOND = 253_402_300_799L;

    private RetryAfter() {
    }

    /**
     * Parses with the {@link #DEFAULT_MAX} cap.
     *
     * @param value the field value; may be {@code null}
     * @param clock the source of "now" for dates (read once, only for dates)
     * @return the wait, at most {@link #DEFAULT_MAX}; {@link Duration#ZERO} for {@code "0"};
     *         empty if absent, invalid or not in the future
     * @throws NullPointerException if {@code clock} is null
     */
    public static Optional<Duration> parse(String value, Clock clock) {
        return parse(value, clock, DEFAULT_MAX);
    }

    /**
     * Parses a {@code Retry-After} value.
     *
     * @param value the field value; may be {@code null}
     * @param clock the source of "now" for dates (read once, only for dates); an exception
     *              from {@code clock.instant()} propagates
     * @param max   the cap: a longer wait returns {@code max}
     * @return the wait, at most {@code max}; {@link Duration#ZERO} for {@code "0"}; empty if
     *         absent, invalid or not in the future
     * @throws NullPointerException     if {@code clock} or {@code max} is null
     * @throws IllegalArgumentException if {@code max} is zero or negative
     */
    public static Optional<Duration> parse(String value, Clock clock, Duration max) {
        Objects.requireNonNull(max, "max");
        Objects.requireNonNull(clock, "clock");
        if (max.isNegative() || max.isZero()) {
            throw new IllegalArgumentException("max must be positive: " + max);
        }
        if (value == null) {
            return Optional.empty();
        }
        String trimmed = trim(value);
        if (trimmed.isEmpty()) {
            return Optional.empty();
        }
        char first = trimmed.charAt(0);
        if (first >= '0' && first <= '9') {
            Optional<Duration> seconds = deltaSeconds(trimmed, max);
            if (seconds.isPresent()) {
                return seconds;
            }
            // Not a number: perhaps a date without its weekday ("06 Nov 1994 08:49:37 GMT").
        }
        return date(trimmed, clock, max);
    }

    private static Optional<Duration> deltaSeconds(String s, Duration max) {
        long seconds = 0;
        boolean beyondAnyCap = false;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return Optional.empty();
            }
            // Keep scanning after saturating: "999...9x" is still garbage, not a long wait.
            int digit = c - '0';
            if (beyondAnyCap || seconds > (Long.MAX_VALUE - digit) / 10) {
                beyondAnyCap = true;
            } else {
                seconds = seconds * 10 + digit;
            }
        }
        return Optional.of(beyondAnyCap ? max : min(Duration.ofSeconds(seconds), max));
    }

    private static Optional<Duration> date(String s, Clock clock, Duration max) {
        Instant now = clock.instant();
        OptionalLong epochSecond = HttpDate.parse(s, yearOf(now));
        if (epochSecond.isEmpty()) {
            return Optional.empty();
        }
        Duration wait = Duration.between(now, Instant.ofEpochSecond(epochSecond.getAsLong()));
        if (wait.isNegative() || wait.isZero()) {
            return Optional.empty();
        }
        return Optional.of(min(wait, max));
    }

    /** The UTC year of {@code now}, clamped to the years an HTTP-date can express. */
    private static int yearOf(Instant now) {
        long second = Math.min(Math.max(now.getEpochSecond(), MIN_YEAR_SECOND), MAX_YEAR_SECOND);
        return LocalDateTime.ofEpochSecond(second, 0, ZoneOffset.UTC).getYear();
    }

    /** Strips OWS (RFC 9110: spaces and horizontal tabs), nothing else. */
    private static String trim(String s) {
        int start = 0;
        int end = s.length();
        while (start < end && isOws(s.charAt(start))) {
            start++;
        }
        while (end > start && isOws(s.charAt(end - 1))) {
            end--;
        }
        return s.substring(start, end);
    }

    private static boolean isOws(char c) {
        return c == ' ' || c == '\t';
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }
}
