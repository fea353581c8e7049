package dev.adaptive.internal;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * Strict reading of option values as configuration sources hand them over: text from a URI or a
 * properties file, numbers and booleans from JSON, or values already typed by a program. Every
 * reader throws {@link IllegalArgumentException} naming the option and quoting the value; none
 * reads a part of a value, a look-alike character or a locale-dependent form. Not API: its
 * package is internal and may change without notice. Stateless.
 */
public final class ConfigText {

    private ConfigText() {
    }

    /**
     * @return an int: an integral number in range, a whole-valued JSON number ({@code 5.0}), a
     *         {@link BigDecimal} or {@link BigInteger} whose exact value is whole (never rounded
     *         through a double: {@code 5.0000000000000000001} is refused), or ASCII digits with an
     *         optional leading minus
     */
    public static int integer(String option, Object value) {
        long v = longValue(option, value);
        if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
            throw bad(option, value, "must be a whole number that fits in an int");
        }
        return (int) v;
    }

    /** @return a long, read as {@link #integer} reads an int */
    public static long longValue(String option, Object value) {
        if (value instanceof Integer || value instanceof Long || value instanceof Short || value instanceof Byte) {
            return ((Number) value).longValue();
        }
        // An exact number is read exactly: through a double, 5.0000000000000000001 would be 5.
        if (value instanceof BigDecimal || value instanceof BigInteger) {
            BigDecimal exact = value instanceof BigInteger i ? new BigDecimal(i) : (BigDecimal) value;
            if (exact.signum() != 0 && exact.stripTrailingZeros().scale() > 0) {
                throw bad(option, value, "must be a whole number");
            }
            try {
                return exact.longValueExact();
            } catch (ArithmeticException tooLong) {
                throw bad(option, value, "must be a whole number that fits in a long");
            }
        }
        // A JSON number written 5.0 is still a whole number; 5.5 is not, nor one past 2^53.
        if (value instanceof Number n
                && n.doubleValue() == Math.rint(n.doubleValue()) && Math.abs(n.doubleValue()) < 9.0e15) {
            return n.longValue();
        }
        if (value instanceof String s) {
            String t = s.trim();
            String digits = t.startsWith("-") ? t.substring(1) : t;
            if (Ascii.isDigits(digits)) {
                try {
                    return Long.parseLong(t);
                } catch (NumberFormatException tooLong) {
                    throw bad(option, value, "must be a whole number that fits in a long");
                }
            }
        }
        throw bad(option, value, "must be a whole number");
    }

    /** @return a finite or non-finite double: a JSON number, or ASCII text {@code [-]digits[.digits]} */
    public static double decimal(String option, Object value) {
        if (value instanceof Number n) {
            return n.doubleValue();
        }
        if (value instanceof String s) {
            String t = s.trim();
            String unsigned = t.startsWith("-") ? t.substring(1) : t;
            int dot = unsigned.indexOf('.');
            String whole = dot < 0 ? unsigned : unsigned.substring(0, dot);
            String fraction = dot < 0 ? "0" : unsigned.substring(dot + 1);
            // No exponent, hex, NaN, Infinity or digits of other scripts: what Double.parseDouble
            // would take beyond plain decimals is never what a person means by 0.2.
            if (Ascii.isDigits(whole) && Ascii.isDigits(fraction)) {
                return Double.parseDouble(t);
            }
        }
        throw bad(option, value, "must be a decimal number");
    }

    /** @return a boolean, or the text {@code true} / {@code false} (ASCII letters in any case) */
    public static boolean bool(String option, Object value) {
        if (value instanceof Boolean b) {
            return b;
        }
        if (value instanceof String s) {
            String t = s.trim();
            if (Ascii.equalsIgnoreCase(t, "true")) {
                return true;
            }
            if (Ascii.equalsIgnoreCase(t, "false")) {
                return false;
            }
        }
        throw bad(option, value, "must be true or false");
    }

    /**
     * @return a duration: a {@link Duration}, a whole number of milliseconds, or text as
     *         {@link DurationText#parse} reads it; never negative, never past
     *         {@link DurationText#MAX}, whichever form it came in
     */
    public static Duration duration(String option, Object value) {
        if (value instanceof Duration d) {
            if (d.isNegative()) {
                throw bad(option, value, "must be a duration >= 0");
            }
            if (d.compareTo(DurationText.MAX) > 0) {
                throw bad(option, value, DurationText.TOO_LONG);
            }
            return d;
        }
        if (value instanceof String s) {
            return DurationText.parse(option, s);
        }
        if (value instanceof Number) {
            long millis;
            try {
                millis = longValue(option, value);
            } catch (IllegalArgumentException notWhole) {
                throw bad(option, value, "must be a whole number of milliseconds");
            }
            if (millis < 0) {
                throw bad(option, value, "must be a duration >= 0");
            }
            // As text this many milliseconds could not be read (DurationText): nor as a number.
            if (millis > DurationText.MAX.toMillis()) {
                throw bad(option, value, DurationText.TOO_LONG);
            }
            return Duration.ofMillis(millis);
        }
        throw bad(option, value, "must be a duration: " + DurationText.FORMS);
    }

    /** @return text; only a {@link String} is text */
    public static String text(String option, Object value) {
        if (value instanceof String s) {
            return s;
        }
        throw bad(option, value, "must be text");
    }

    /**
     * Reads a list of HTTP statuses as one text, as the Camel component's
     * {@code rateLimitStatusCodes=429,503} and the Vert.x web client's lists from a properties
     * file or an environment variable give it: comma-separated ASCII digits, white space around
     * each allowed, each a status within [100, 599]. An empty element ({@code 429,},
     * {@code 429,,503}) is refused, not skipped: it is a typo more often than a wish. Blank text
     * is no status at all; a face whose list must hold one refuses it itself.
     *
     * @return the statuses in ascending order (so that they read back, and are named in
     *         messages, in one order), unmodifiable
     */
    public static SortedSet<Integer> statusCodes(String option, String text) {
        TreeSet<Integer> codes = new TreeSet<>();
        if (text.isBlank()) {
            return Collections.unmodifiableSortedSet(codes);
        }
        // -1: keeps a trailing empty element, refused as a leading or inner one is ("429,").
        for (String part : text.split(",", -1)) {
            String s = part.trim();
            if (!Ascii.isDigits(s) || s.length() > 3) {
                throw new IllegalArgumentException(option + " must be comma-separated status codes; '" + s
                        + "' is not one: " + text);
            }
            int code = Integer.parseInt(s);
            if (code < 100 || code > 599) {
                throw new IllegalArgumentException(option + " must hold status codes within [100, 599]; " + code
                        + " is not: " + text);
            }
            codes.add(code);
        }
        return Collections.unmodifiableSortedSet(codes);
    }

    /**
     * Reads an enum constant by its option name ({@link #enumName}), ASCII letters in any case,
     * dashes and underscores ignored: {@code failClosed}, {@code FAIL_CLOSED},
     * {@code fail-closed} all name {@code FAIL_CLOSED}. Any other character (a dotless
     * {@code ı}, a long {@code ſ}) matches nothing.
     */
    public static <E extends Enum<E>> E enumValue(String option, Object value, Class<E> type) {
        if (type.isInstance(value)) {
            return type.cast(value);
        }
        if (value instanceof String s) {
            String wanted = squash(s.trim());
            if (wanted != null) {
                for (E constant : type.getEnumConstants()) {
                    if (Ascii.equalsIgnoreCase(squash(constant.name()), wanted)) {
                        return constant;
                    }
                }
            }
        }
        throw bad(option, value, "must be one of " + String.join("|", enumNames(type)));
    }

    /** @return the option name of a constant: {@code FAIL_CLOSED} is {@code failClosed}, {@code GRADIENT2} {@code gradient2} */
    public static String enumName(Enum<?> constant) {
        StringBuilder out = new StringBuilder();
        boolean upper = false;
        for (char c : constant.name().toCharArray()) {
            if (c == '_') {
                upper = true;
            } else {
                char lower = c >= 'A' && c <= 'Z' ? (char) (c + ('a' - 'A')) : c;
                out.append(upper && lower >= 'a' && lower <= 'z' ? (char) (lower - ('a' - 'A')) : lower);
                upper = false;
            }
        }
        return out.toString();
    }

    /** @return the option names of every constant, in declaration order */
    public static List<String> enumNames(Class<? extends Enum<?>> type) {
        List<String> names = new ArrayList<>();
        for (Enum<?> constant : type.getEnumConstants()) {
            names.add(enumName(constant));
        }
        return names;
    }

    /** @return the text without dashes and underscores, or null if it holds anything but ASCII letters, digits, - and _ */
    private static String squash(String s) {
        StringBuilder out = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '-' || c == '_') {
                continue;
            }
            if (!(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9')) {
                return null;
            }
            out.append(c);
        }
        return out.length() == 0 ? null : out.toString();
    }

    private static IllegalArgumentException bad(String option, Object value, String rule) {
        return new IllegalArgumentException(option + " " + rule + ": " + value);
    }
}
