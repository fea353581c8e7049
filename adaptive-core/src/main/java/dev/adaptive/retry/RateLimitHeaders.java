package dev.adaptive.retry;

import dev.adaptive.internal.Ascii;
import dev.adaptive.internal.Nanos;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * Reads the quota a server announces in rate-limit response headers into a {@link Quota}: how
 * many requests it will still accept and when its window renews.
 *
 * <p>Read, in this order (the first form present and readable wins):
 * <ol>
 *   <li>the IETF structured fields (draft-ietf-httpapi-ratelimit-headers):
 *       {@code RateLimit: "default";r=50;t=30}, with several quota units the most restrictive
 *       one (the fewest remaining; of those, the latest reset); a member without {@code t}
 *       takes the window {@code w} of the {@code RateLimit-Policy} member of its name
 *       ({@code RateLimit-Policy: "default";q=100;w=60}); the earlier draft's dictionary
 *       {@code RateLimit: limit=100, remaining=50, reset=30} too;</li>
 *   <li>{@code RateLimit-Remaining} with {@code RateLimit-Reset} (the earlier draft's separate fields);</li>
 *   <li>{@code X-RateLimit-Remaining} with {@code X-RateLimit-Reset}, or without it
 *       {@code X-RateLimit-Reset-After};</li>
 *   <li>{@code X-RateLimit-Remaining-Requests} with {@code X-RateLimit-Reset-Requests}, whose
 *       reset is a duration such as {@code 6m0s}, {@code 1.5s} or {@code 20ms}.</li>
 * </ol>
 * A reset in seconds (decimals allowed) is seconds to go, except that a number of at least
 * {@value #EPOCH_SECONDS} is a Unix time in seconds (as GitHub and others send
 * {@code X-RateLimit-Reset}), and one of at least {@value #EPOCH_MILLIS} a Unix time in
 * milliseconds: as seconds to go, both would be decades, which no window is. A Unix time now
 * or past is a reset of zero. A field repeated (values joined with commas) counts by its lowest
 * remaining and its latest reset.
 *
 * <p>Lenient but bounded, like {@link RetryAfter}: leading and trailing spaces and tabs are
 * ignored, names are asked in lower case (field names are case-insensitive: the lookup given
 * should be too), and anything else (negative, non-ASCII digits, a remaining count without a
 * reset, garbage) makes the form unreadable, so the next one is tried and, if none is
 * readable, the answer is {@link Optional#empty()}. A reset longer than the cap gives the cap,
 * and a remaining count beyond {@link Integer#MAX_VALUE} gives that. Parsing is linear in the
 * input, without regular expressions, and never throws on any field value; at most
 * {@value #MAX_MEMBERS} members of a list are read.
 *
 * <p>Stateless and thread-safe.
 */
public final class RateLimitHeaders {

    /** The default cap on a reset: {@link RetryAfter#DEFAULT_MAX}, 10 minutes. */
    public static final Duration DEFAULT_MAX = RetryAfter.DEFAULT_MAX;
    /** The smallest reset read as a Unix time in seconds (2001-09-09). */
    public static final long EPOCH_SECONDS = 1_000_000_000L;
    /** The smallest reset read as a Unix time in milliseconds. */
    public static final long EPOCH_MILLIS = 1_000_000_000_000L;
    /** Members of a list field read at most; a longer list is read up to there. */
    public static final int MAX_MEMBERS = 64;

    private static final long NANOS_PER_SECOND = 1_000_000_000L;
    private static final long NONE = -1;

    private RateLimitHeaders() {
    }

    /**
     * Parses with the {@link #DEFAULT_MAX} cap.
     *
     * @param headers a field's value by its lower-case name, {@code null} when absent
     * @param clock   "now" for resets given as a Unix time (read only for those)
     * @return the announced quota, or empty if no form is present and readable
     */
    public static Optional<Quota> parse(Function<String, String> headers, Clock clock) {
        return parse(headers, clock, DEFAULT_MAX);
    }

    /**
     * Parses the rate-limit fields of one answer.
     *
     * @param headers a field's value by its lower-case name, {@code null} when absent; an
     *                exception it throws propagates
     * @param clock   "now" for resets given as a Unix time (read only for those)
     * @param max     the cap on the reset, positive
     * @return the announced quota, or empty if no form is present and readable
     * @throws NullPointerException     if an argument is null
     * @throws IllegalArgumentException if {@code max} is zero or negative
     */
    public static Optional<Quota> parse(Function<String, String> headers, Clock clock, Duration max) {
        Objects.requireNonNull(headers, "headers");
        Objects.requireNonNull(clock, "clock");
        Objects.requireNonNull(max, "max");
        if (max.isNegative() || max.isZero()) {
            throw new IllegalArgumentException("max must be positive: " + max);
        }
        long cap = max.compareTo(Duration.ofNanos(Long.MAX_VALUE)) >= 0 ? Long.MAX_VALUE : max.toNanos();
        Reader r = new Reader(clock, cap);
        Quota q = r.structured(headers.apply("ratelimit"), headers.apply("ratelimit-policy"));
        if (q == null) {
            q = r.pair(headers.apply("ratelimit-remaining"), headers.apply("ratelimit-reset"), false);
        }
        if (q == null) {
            String reset = headers.apply("x-ratelimit-reset");
            q = r.pair(headers.apply("x-ratelimit-remaining"), reset != null ? reset
                    : headers.apply("x-ratelimit-reset-after"), false);
        }
        if (q == null) {
            q = r.pair(headers.apply("x-ratelimit-remaining-requests"), headers.apply("x-ratelimit-reset-requests"),
                    true);
        }
        return Optional.ofNullable(q);
    }

    /** One parse: the clock, read at most once, and the cap. */
    private static final class Reader {
        private final Clock clock;
        private final long capNanos;
        private Instant now;

        Reader(Clock clock, long capNanos) {
            this.clock = clock;
            this.capNanos = capNanos;
        }

        /** The IETF field, or the earlier draft's dictionary; {@code null} if unreadable. */
        Quota structured(String rateLimit, String policy) {
            if (rateLimit == null) {
                return null;
            }
            List<String> members = members(rateLimit);
            long dictRemaining = NONE;
            long dictReset = NONE;
            Quota best = null;
            for (String m : members) {
                String name = itemName(m);
                if (name == null) {
                    // Not an item: perhaps a dictionary member of the earlier draft, "remaining=50".
                    int eq = m.indexOf('=');
                    if (eq > 0 && m.indexOf(';') < 0) {
                        String key = m.substring(0, eq).trim();
                        String value = m.substring(eq + 1).trim();
                        if (key.equals("remaining")) {
                            dictRemaining = count(value);
                        } else if (key.equals("reset")) {
                            dictReset = seconds(value);
                        }
                    }
                    continue;
                }
                long remaining = count(param(m, "r"));
                long reset = seconds(param(m, "t"));
                if (reset == NONE) {
                    reset = seconds(policyWindow(policy, name));
                }
                if (remaining == NONE || reset == NONE) {
                    continue;
                }
                best = tighter(best, quota(remaining, reset));
            }
            if (best == null && dictRemaining != NONE && dictReset != NONE) {
                best = quota(dictRemaining, dictReset);
            }
            return best;
        }

        /** A remaining field with its reset field; {@code null} if either is absent or unreadable. */
        Quota pair(String remainingValue, String resetValue, boolean goDuration) {
            if (remainingValue == null || resetValue == null) {
                return null;
            }
            long remaining = NONE;
            for (String v : members(remainingValue)) {
                long c = count(v);
                if (c == NONE) {
                    return null;
                }
                remaining = remaining == NONE ? c : Math.min(remaining, c);
            }
            long reset = NONE;
            for (String v : members(resetValue)) {
                long n = goDuration ? goDuration(v) : seconds(v);
                if (n == NONE) {
                    return null;
                }
                reset = Math.max(reset, n);
            }
            return remaining == NONE || reset == NONE ? null : quota(remaining, reset);
        }

        private Quota quota(long remaining, long resetNanos) {
            return new Quota(Math.min(remaining, Integer.MAX_VALUE), Duration.ofNanos(Math.min(resetNanos, capNanos)));
        }

        private static Quota tighter(Quota a, Quota b) {
            if (a == null) {
                return b;
            }
            if (a.remaining() != b.remaining()) {
                return a.remaining() < b.remaining() ? a : b;
            }
            return a.reset().compareTo(b.reset()) >= 0 ? a : b;
        }

        /** @return the reset in nanoseconds, from seconds to go or a Unix time, or {@link #NONE} */
        private long seconds(String value) {
            if (value == null) {
                return NONE;
            }
            String s = trim(value);
            int dot = s.indexOf('.');
            String whole = dot < 0 ? s : s.substring(0, dot);
            String fraction = dot < 0 ? "" : s.substring(dot + 1);
            if (!Ascii.isDigits(whole) || (dot >= 0 && !Ascii.isDigits(fraction))) {
                return NONE;
            }
            long secs = saturated(whole);
            if (secs >= EPOCH_MILLIS) {
                return untilEpochNanos(secs / 1000, (secs % 1000) * 1_000_000L);
            }
            if (secs >= EPOCH_SECONDS) {
                return untilEpochNanos(secs, fractionNanos(fraction));
            }
            return Nanos.plus(timesSaturated(secs, NANOS_PER_SECOND), fractionNanos(fraction));
        }

        private long untilEpochNanos(long epochSecond, long nanos) {
            if (now == null) {
                now = clock.instant();
            }
            long diffSeconds = Nanos.plus(epochSecond, -now.getEpochSecond());
            long diff = Nanos.plus(timesSaturated(diffSeconds, NANOS_PER_SECOND), nanos - now.getNano());
            return Math.max(0, diff);
        }

        /** A Go-style duration ({@code 6m0s}, {@code 1h}, {@code 1.5s}, {@code 20ms}) or plain seconds; nanoseconds or {@link #NONE}. */
        private static long goDuration(String value) {
            String s = trim(value);
            if (s.isEmpty()) {
                return NONE;
            }
            if (isDigit(s.charAt(s.length() - 1))) {
                // No unit: seconds, never a Unix time.
                int dot = s.indexOf('.');
                String whole = dot < 0 ? s : s.substring(0, dot);
                String fraction = dot < 0 ? "" : s.substring(dot + 1);
                return Ascii.isDigits(whole) && (dot < 0 || Ascii.isDigits(fraction))
                        ? Nanos.plus(timesSaturated(saturated(whole), NANOS_PER_SECOND), fractionNanos(fraction))
                        : NONE;
            }
            long total = 0;
            int i = 0;
            int n = s.length();
            while (i < n) {
                int start = i;
                while (i < n && isDigit(s.charAt(i))) {
                    i++;
                }
                if (i == start) {
                    return NONE;
                }
                String whole = s.substring(start, i);
                String fraction = "";
                if (i < n && s.charAt(i) == '.') {
                    int f = ++i;
                    while (i < n && isDigit(s.charAt(i))) {
                        i++;
                    }
                    if (i == f) {
                        return NONE;
                    }
                    fraction = s.substring(f, i);
                }
                int u = i;
                while (i < n && !isDigit(s.charAt(i))) {
                    i++;
                }
                long unit = unitNanos(s.substring(u, i));
                if (unit == NONE) {
                    return NONE;
                }
                long part = Nanos.plus(timesSaturated(saturated(whole), unit), fractionOf(fraction, unit));
                total = Nanos.plus(total, part);
            }
            return total;
        }

        private static long unitNanos(String unit) {
            return switch (unit) {
                case "h" -> 3_600 * NANOS_PER_SECOND;
                case "m" -> 60 * NANOS_PER_SECOND;
                case "s" -> NANOS_PER_SECOND;
                case "ms" -> 1_000_000L;
                case "us", "\u00b5s", "\u03bcs" -> 1_000L;
                case "ns" -> 1L;
                default -> NONE;
            };
        }

        /** The fraction {@code 0.digits} of {@code unit} nanoseconds, to the nanosecond. */
        private static long fractionOf(String fraction, long unit) {
            long nanosPerUnit = fractionNanos(fraction); // the fraction of one second, in ns
            // unit / 1e9 * nanosPerUnit, without overflow: unit is at most an hour.
            return (long) ((double) unit * nanosPerUnit / NANOS_PER_SECOND);
        }

        /** @return {@code 0.digits} seconds in nanoseconds; digits past the ninth are dropped */
        private static long fractionNanos(String fraction) {
            long nanos = 0;
            for (int i = 0; i < 9; i++) {
                nanos = nanos * 10 + (i < fraction.length() ? fraction.charAt(i) - '0' : 0);
            }
            return nanos;
        }

        /** @return a remaining count, or {@link #NONE} */
        private static long count(String value) {
            if (value == null) {
                return NONE;
            }
            String s = trim(value);
            return !s.isEmpty() && Ascii.isDigits(s) ? saturated(s) : NONE;
        }
    }

    /** The window {@code w} of the policy member named {@code name}, or {@code null}. */
    private static String policyWindow(String policy, String name) {
        if (policy == null) {
            return null;
        }
        for (String m : members(policy)) {
            if (name.equals(itemName(m))) {
                return param(m, "w");
            }
        }
        return null;
    }

    /**
     * @return the member's bare item (an sf-string's content or a token) if the member is an
     *         item, {@code null} if it is not ({@code key=value}, garbage)
     */
    private static String itemName(String member) {
        String m = trim(member);
        if (m.isEmpty()) {
            return null;
        }
        if (m.charAt(0) == '"') {
            StringBuilder name = new StringBuilder();
            for (int i = 1; i < m.length(); i++) {
                char c = m.charAt(i);
                if (c == '\\' && i + 1 < m.length()) {
                    name.append(m.charAt(++i));
                } else if (c == '"') {
                    String rest = trim(m.substring(i + 1));
                    return rest.isEmpty() || rest.charAt(0) == ';' ? name.toString() : null;
                } else {
                    name.append(c);
                }
            }
            return null; // unterminated
        }
        int semi = m.indexOf(';');
        String token = semi < 0 ? m : trim(m.substring(0, semi));
        return !token.isEmpty() && isToken(token) ? token : null;
    }

    /** The value of parameter {@code key} of an item member ({@code "x";r=5;t=3}), or {@code null}. */
    private static String param(String member, String key) {
        int i = paramsStart(member);
        if (i < 0) {
            return null;
        }
        String found = null;
        for (String p : member.substring(i).split(";", MAX_MEMBERS)) {
            int eq = p.indexOf('=');
            if (eq > 0 && trim(p.substring(0, eq)).equals(key)) {
                found = p.substring(eq + 1); // the last one wins, as in structured fields
            }
        }
        return found;
    }

    /** @return the index just past the bare item (at its first ';'), or -1 */
    private static int paramsStart(String member) {
        boolean quoted = false;
        for (int i = 0; i < member.length(); i++) {
            char c = member.charAt(i);
            if (quoted && c == '\\') {
                i++;
            } else if (c == '"') {
                quoted = !quoted;
            } else if (!quoted && c == ';') {
                return i + 1;
            }
        }
        return -1;
    }

    /** Splits a list on the commas outside sf-strings, trimmed, at most {@link #MAX_MEMBERS}. */
    private static List<String> members(String value) {
        List<String> out = new ArrayList<>();
        boolean quoted = false;
        int start = 0;
        for (int i = 0; i < value.length() && out.size() < MAX_MEMBERS; i++) {
            char c = value.charAt(i);
            if (quoted && c == '\\') {
                i++;
            } else if (c == '"') {
                quoted = !quoted;
            } else if (!quoted && c == ',') {
                out.add(trim(value.substring(start, i)));
                start = i + 1;
            }
        }
        if (out.size() < MAX_MEMBERS) {
            out.add(trim(value.substring(Math.min(start, value.length()))));
        }
        return out;
    }

    private static boolean isToken(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || isDigit(c) || "!#$%&'*+-.^_`|~:/".indexOf(c) >= 0;
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    /** ASCII digits to a long, saturating at {@link Long#MAX_VALUE}. */
    private static long saturated(String digits) {
        long v = 0;
        for (int i = 0; i < digits.length(); i++) {
            int d = digits.charAt(i) - '0';
            if (v > (Long.MAX_VALUE - d) / 10) {
                return Long.MAX_VALUE;
            }
            v = v * 10 + d;
        }
        return v;
    }

    private static long timesSaturated(long a, long b) {
        long hi = Math.multiplyHigh(a, b);
        long lo = a * b;
        if ((hi == 0 && lo >= 0) || (hi == -1 && lo < 0)) {
            return lo;
        }
        return (a < 0) == (b < 0) ? Long.MAX_VALUE : Long.MIN_VALUE;
    }

    private static String trim(String s) {
        int start = 0;
        int end = s.length();
        while (start < end && (s.charAt(start) == ' ' || s.charAt(start) == '\t')) {
            start++;
        }
        while (end > start && (s.charAt(end - 1) == ' ' || s.charAt(end - 1) == '\t')) {
            end--;
        }
        return s.substring(start, end);
    }
}
