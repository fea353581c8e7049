package dev.adaptive.internal;

import java.time.Duration;
import java.time.format.DateTimeParseException;

/**
 * Reads the text of a duration option, strictly, for every face (URIs, properties files, JSON
 * strings). Lenient converters (Camel's, for one) read what they do not understand as 0 or as
 * the part they did ({@code abc}, {@code 1M}, {@code -5s}, {@code ١٢} are 0; {@code 1h30x} is
 * an hour) and let an overflow wrap to a negative duration; this one refuses. Accepted, with
 * surrounding white space:
 * <ul>
 *   <li>ASCII digits: milliseconds ({@code 500});</li>
 *   <li>numbers with lower-case units, each unit at most once, from the largest down:
 *       {@code d}, {@code h}, {@code m}, {@code s}, {@code ms} ({@code 1h30m15s},
 *       {@code 2s500ms}, {@code 1d});</li>
 *   <li>ISO-8601 as {@link Duration#parse} reads it, without signs ({@code PT1S},
 *       {@code PT0.25S}, {@code P1DT2H}).</li>
 * </ul>
 * Anything else, a negative value, and a duration past {@link #MAX} (the most a long of
 * nanoseconds holds, about 292 years) fail with an {@link IllegalArgumentException} that names
 * the option and quotes the text as it was typed. {@link #format(Duration)} writes the
 * shortest text this class reads back as the same duration. Not API: its package is internal
 * and may change without notice. Stateless.
 */
public final class DurationText {

    /** The longest duration accepted: {@code Long.MAX_VALUE} nanoseconds. */
    public static final Duration MAX = Duration.ofNanos(Long.MAX_VALUE);

    /**
     * The rule a duration past {@link #MAX} breaks, as every message words it: text that long
     * cannot be read, and a {@link Duration} or a number of milliseconds that long is refused
     * alike ({@link ConfigText#duration}, {@code AdaptiveConfig.Builder}), so that no face takes
     * as a number what it refuses as text.
     */
    public static final String TOO_LONG = "must be at most " + MAX + " (about 292 years)";

    public static final String FORMS = "milliseconds (500), numbers with units from d to ms in that order (1h30m15s, 500ms)"
            + " or ISO-8601 (PT1S)";

    private static final String[] UNITS = {"d", "h", "m", "s", "ms"};
    private static final long[] NANOS = {86_400_000_000_000L, 3_600_000_000_000L, 60_000_000_000L,
            1_000_000_000L, 1_000_000L};

    private DurationText() {
    }

    /**
     * @param option the option's name, for the message
     * @param text   the option's text as typed
     * @return the duration, at least 0 and at most {@link #MAX}
     * @throws IllegalArgumentException naming the option and quoting {@code text}
     */
    public static Duration parse(String option, String text) {
        String t = text == null ? "" : text.trim();
        if (t.isEmpty()) {
            throw bad(option, text, "must be a duration: " + FORMS);
        }
        boolean iso = t.charAt(0) == 'P' || t.charAt(0) == 'p';
        if (t.charAt(0) == '-' || iso && t.indexOf('-') >= 0) {
            throw bad(option, text, "must be a duration >= 0");
        }
        try {
            if (Ascii.isDigits(t)) {
                return units(option, text, t + "ms");
            }
            if (iso) {
                return iso(option, text, t);
            }
            return units(option, text, t);
        } catch (ArithmeticException tooLong) {
            throw bad(option, text, TOO_LONG);
        }
    }

    /**
     * @param d a duration, at least 0
     * @return its shortest text in units ({@code 10m}, {@code 1h30m}, {@code 100ms}, {@code 0}),
     *         or ISO-8601 when it has a part below a millisecond
     */
    public static String format(Duration d) {
        if (d.isNegative()) {
            throw new IllegalArgumentException("a duration option is never negative: " + d);
        }
        if (d.isZero()) {
            return "0";
        }
        if (d.getNano() % 1_000_000 != 0) {
            return d.toString();
        }
        StringBuilder out = new StringBuilder();
        long millis = d.toMillis();
        for (int i = 0; i < UNITS.length; i++) {
            long unitMillis = NANOS[i] / 1_000_000;
            if (millis >= unitMillis) {
                out.append(millis / unitMillis).append(UNITS[i]);
                millis %= unitMillis;
            }
        }
        return out.toString();
    }

    private static Duration iso(String option, String text, String t) {
        if (t.indexOf('+') >= 0) {
            throw bad(option, text, "must be a duration: " + FORMS);
        }
        Duration d;
        try {
            d = Duration.parse(t);
        } catch (DateTimeParseException e) {
            // Its groups are ASCII digits, so a number it cannot read is one too long for a long.
            if (e.getCause() instanceof ArithmeticException || e.getCause() instanceof NumberFormatException) {
                throw new ArithmeticException("past " + MAX);
            }
            throw bad(option, text, "must be a duration: " + FORMS);
        }
        if (d.compareTo(MAX) > 0) {
            throw new ArithmeticException("past " + MAX);
        }
        return d;
    }

    /** {@code <digits><unit>...}, units in {@link #UNITS} order, each at most once. */
    private static Duration units(String option, String text, String t) {
        long nanos = 0;
        int at = 0;
        int next = 0;
        while (at < t.length()) {
            int digitsEnd = at;
            while (digitsEnd < t.length() && t.charAt(digitsEnd) >= '0' && t.charAt(digitsEnd) <= '9') {
                digitsEnd++;
            }
            int unit = unitAt(t, digitsEnd);
            if (digitsEnd == at || unit < next) {
                throw bad(option, text, "must be a duration: " + FORMS);
            }
            long amount = 0;
            for (int i = at; i < digitsEnd; i++) {
                amount = Math.addExact(Math.multiplyExact(amount, 10), t.charAt(i) - '0');
            }
            nanos = Math.addExact(nanos, Math.multiplyExact(amount, NANOS[unit]));
            at = digitsEnd + UNITS[unit].length();
            next = unit + 1;
        }
        return Duration.ofNanos(nanos);
    }

    /** @return the index in {@link #UNITS} of the unit at {@code at}, or -1 */
    private static int unitAt(String t, int at) {
        if (t.startsWith("ms", at)) {
            return 4;
        }
        for (int i = 0; i < 4; i++) {
            if (t.startsWith(UNITS[i], at)) {
                return i;
            }
        }
        return -1;
    }

    private static IllegalArgumentException bad(String option, String text, String rule) {
        return new IllegalArgumentException(option + " " + rule + ": " + text);
    }
}
