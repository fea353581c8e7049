package dev.adaptive.retry;

import java.time.LocalDate;
import java.time.YearMonth;
import java.util.OptionalLong;

/**
 * Parses an HTTP-date into epoch seconds, by hand: a bounded length, a bounded number of
 * tokens and no regular expressions, so no input can make it slow, and no exception escapes.
 *
 * <p>The three formats of RFC 9110 §5.6.7 are read, and so are the variants that real servers
 * send and that Apache HttpClient 5 or OkHttp accept, wherever their meaning is unambiguous:
 *
 * <pre>
 * IMF-fixdate          Sun, 06 Nov 1994 08:49:37 GMT
 *   one-digit day      Tue, 1 Dec 2026 08:55:00 GMT   (what Java's RFC_1123_DATE_TIME writes)
 *   any letter case    sun, 06 nov 1994 08:49:37 gmt
 *   UTC, UT, Z, +0000  Sun, 06 Nov 1994 08:49:37 UTC
 *   hour 24            Sun, 06 Nov 1994 24:00:00 GMT  (the end of the day: Nov 7, 00:00)
 *   no weekday         06 Nov 1994 08:49:37 GMT
 * RFC 850              Sunday, 06-Nov-94 08:49:37 GMT (also with a short day name or a 4-digit year)
 * asctime              Sun Nov  6 08:49:37 1994      (also with one space before a one-digit day)
 * month first          Sun Nov 6 1994 08:49:37 GMT
 * </pre>
 *
 * <p>Tokens are separated by spaces, tabs and commas; the date's parts may also be joined by
 * {@code -}. A day name, when present, must be a real one (short or long, any case) but need
 * not match the date: a server that gets the weekday wrong still means the date it wrote. A
 * zone is optional (HTTP-dates are always GMT); when present it is {@code GMT}, {@code UTC},
 * {@code UT}, {@code Z} or a numeric {@code ±HHMM} offset, which is applied. Anything whose
 * meaning is not clear is rejected: a {@code GMT+1} (whose sign conventions differ), a time
 * written with dashes, a three-digit year, a two-digit year in asctime, an impossible field.
 * A second of 60 (a leap second) counts as the next second; an hour of 24 only as 24:00:00.
 * Two-digit years follow RFC 9110's rule (more than 50 years ahead means the past century).
 */
final class HttpDate {

    /**
     * Longer values are not dates. The longest accepted form, with long day and month names,
     * a 4-digit year and an offset, is under 50 characters.
     */
    static final int MAX_LENGTH = 64;

    /** A date has at most weekday, day, month, year, time and zone. */
    private static final int MAX_TOKENS = 6;

    private static final String[] DAYS = {"mon", "tue", "wed", "thu", "fri", "sat", "sun"};
    private static final String[] LONG_DAYS = {
        "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"};
    private static final String[] MONTHS = {
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"};
    private static final String[] LONG_MONTHS = {
        "january", "february", "march", "april", "may", "june", "july", "august", "september",
        "october", "november", "december"};

    /** What a token can be; decided from its characters alone. */
    private enum Kind { NUMBER, NAME, TIME, OFFSET, OTHER }

    private HttpDate() {
    }

    /**
     * @param s           the trimmed value
     * @param currentYear the year now, in UTC, which resolves two-digit years
     * @return the epoch second the date denotes, or empty if {@code s} is not an HTTP-date
     */
    static OptionalLong parse(String s, int currentYear) {
        if (s.length() > MAX_LENGTH) {
            return OptionalLong.empty();
        }
        String[] tokens = tokens(s);
        if (tokens == null || tokens.length == 0) {
            return OptionalLong.empty();
        }
        int at = 0;
        if (kind(tokens[0]) == Kind.NAME && month(tokens[0]) < 0) {
            if (!isDayName(tokens[0])) {
                return OptionalLong.empty();
            }
            at = 1;
        }
        int left = tokens.length - at;
        if (left < 4) {
            return OptionalLong.empty();
        }
        String a = tokens[at];
        String b = tokens[at + 1];
        String c = tokens[at + 2];
        String d = tokens[at + 3];
        String zone = left == 5 ? tokens[at + 4] : null;
        if (left > 5) {
            return OptionalLong.empty();
        }
        // day month year time [zone]: IMF-fixdate, RFC 850 and their variants
        if (kind(a) == Kind.NUMBER && month(b) >= 0 && kind(c) == Kind.NUMBER && kind(d) == Kind.TIME) {
            return of(year(c, currentYear, true), month(b), day(a), d, zone);
        }
        // month day time year: asctime (no zone, a 4-digit year)
        if (month(a) >= 0 && kind(b) == Kind.NUMBER && kind(c) == Kind.TIME && kind(d) == Kind.NUMBER
                && zone == null) {
            return of(year(d, currentYear, false), month(a), day(b), c, null);
        }
        // month day year time [zone]
        if (month(a) >= 0 && kind(b) == Kind.NUMBER && kind(c) == Kind.NUMBER && kind(d) == Kind.TIME) {
            return of(year(c, currentYear, true), month(a), day(b), d, zone);
        }
        return OptionalLong.empty();
    }

    /**
     * Splits on runs of spaces, tabs and commas, then splits the date parts on {@code -}
     * (a time or an offset keeps its own punctuation).
     *
     * @return the tokens, or null if there are more than a date can have
     */
    private static String[] tokens(String s) {
        String[] out = new String[MAX_TOKENS];
        int n = 0;
        int i = 0;
        int length = s.length();
        while (i < length) {
            while (i < length && isSeparator(s.charAt(i))) {
                i++;
            }
            int start = i;
            while (i < length && !isSeparator(s.charAt(i))) {
                i++;
            }
            if (start == i) {
                break;
            }
            String word = s.substring(start, i);
            boolean keepWhole = word.indexOf(':') >= 0 || word.charAt(0) == '+' || word.charAt(0) == '-';
            int from = 0;
            while (true) {
                int dash = keepWhole ? -1 : word.indexOf('-', from);
                String part = dash < 0 ? word.substring(from) : word.substring(from, dash);
                if (part.isEmpty() || n == MAX_TOKENS) {
                    return null;
                }
                out[n++] = part;
                if (dash < 0) {
                    break;
                }
                from = dash + 1;
            }
        }
        String[] tokens = new String[n];
        System.arraycopy(out, 0, tokens, 0, n);
        return tokens;
    }

    private static boolean isSeparator(char c) {
        return c == ' ' || c == '\t' || c == ',';
    }

    private static Kind kind(String token) {
        char first = token.charAt(0);
        if (isDigit(first)) {
            if (allDigits(token, 0, token.length())) {
                return Kind.NUMBER;
            }
            return token.indexOf(':') >= 0 ? Kind.TIME : Kind.OTHER;
        }
        if (first == '+' || first == '-') {
            return token.length() == 5 && allDigits(token, 1, 5) ? Kind.OFFSET : Kind.OTHER;
        }
        for (int i = 0; i < token.length(); i++) {
            if (!isAsciiLetter(token.charAt(i))) {
                return Kind.OTHER;
            }
        }
        return Kind.NAME;
    }

    /** Resolves the fields; every invalid one gives empty. */
    private static OptionalLong of(int year, int month, int day, String time, String zone) {
        int offsetSeconds = offsetSeconds(zone);
        if (year < 0 || month < 0 || day < 1 || offsetSeconds == Integer.MIN_VALUE) {
            return OptionalLong.empty();
        }
        long secondOfDay = secondOfDay(time);
        if (secondOfDay < 0 || day > YearMonth.of(year, month + 1).lengthOfMonth()) {
            return OptionalLong.empty();
        }
        long epochDay = LocalDate.of(year, month + 1, day).toEpochDay();
        return OptionalLong.of(epochDay * 86_400 + secondOfDay - offsetSeconds);
    }

    /**
     * "H:MM:SS" or "HH:MM:SS"; 24:00:00 is the end of the day (86 400), a second of 60 the
     * next second.
     *
     * @return the second of the day, or -1
     */
    private static long secondOfDay(String time) {
        int colon = time.indexOf(':');
        if (colon < 1 || colon > 2 || time.length() != colon + 6 || time.charAt(colon + 3) != ':') {
            return -1;
        }
        int hour = digits(time, 0, colon);
        int minute = digits(time, colon + 1, 2);
        int second = digits(time, colon + 4, 2);
        if (hour < 0 || minute < 0 || minute > 59 || second < 0 || second > 60) {
            return -1;
        }
        if (hour == 24) {
            return minute == 0 && second == 0 ? 86_400 : -1;
        }
        return hour > 23 ? -1 : hour * 3_600L + minute * 60L + second;
    }

    /** @return the zone's offset east of UTC in seconds (0 when absent), or Integer.MIN_VALUE */
    private static int offsetSeconds(String zone) {
        if (zone == null || zone.equalsIgnoreCase("GMT") || zone.equalsIgnoreCase("UTC")
                || zone.equalsIgnoreCase("UT") || zone.equalsIgnoreCase("Z")) {
            return 0;
        }
        if (kind(zone) != Kind.OFFSET) {
            return Integer.MIN_VALUE;
        }
        int hours = digits(zone, 1, 2);
        int minutes = digits(zone, 3, 2);
        if (hours > 23 || minutes > 59) {
            return Integer.MIN_VALUE;
        }
        int seconds = hours * 3_600 + minutes * 60;
        return zone.charAt(0) == '-' ? -seconds : seconds;
    }

    /** A day of the month: one or two digits (the range is checked against the month). */
    private static int day(String token) {
        return token.length() <= 2 ? digits(token, 0, token.length()) : -1;
    }

    /**
     * A 4-digit year, or (where {@code twoDigits}) a 2-digit one resolved by
     * {@link #fullYear}.
     */
    private static int year(String token, int currentYear, boolean twoDigits) {
        if (token.length() == 4) {
            return digits(token, 0, 4);
        }
        if (twoDigits && token.length() == 2) {
            return fullYear(digits(token, 0, 2), currentYear);
        }
        return -1;
    }

    /**
     * RFC 9110: a two-digit year that "appears to be more than 50 years in the future" is
     * the most recent past year with those digits. So the year lands in
     * [currentYear - 49, currentYear + 50].
     */
    static int fullYear(int twoDigitYear, int currentYear) {
        int year = Math.floorDiv(currentYear, 100) * 100 + twoDigitYear;
        if (year > currentYear + 50) {
            year -= 100;
        } else if (year < currentYear - 49) {
            year += 100;
        }
        return year;
    }

    /** @return the month 0..11 of a short or long month name in any case, or -1 */
    private static int month(String token) {
        int i = indexOfIgnoreCase(MONTHS, token);
        return i >= 0 ? i : indexOfIgnoreCase(LONG_MONTHS, token);
    }

    private static boolean isDayName(String token) {
        return indexOfIgnoreCase(DAYS, token) >= 0 || indexOfIgnoreCase(LONG_DAYS, token) >= 0;
    }

    private static int indexOfIgnoreCase(String[] names, String token) {
        for (int i = 0; i < names.length; i++) {
            // Both sides are ASCII letters (kind NAME), so equalsIgnoreCase cannot match
            // a non-ASCII look-alike such as the Kelvin sign.
            if (names[i].length() == token.length() && names[i].equalsIgnoreCase(token)
                    && kind(token) == Kind.NAME) {
                return i;
            }
        }
        return -1;
    }

    /** @return the value of {@code count} ASCII digits at {@code at}, or -1 if any is not one */
    private static int digits(String s, int at, int count) {
        if (count < 1 || at + count > s.length()) {
            return -1;
        }
        int value = 0;
        for (int i = at; i < at + count; i++) {
            char c = s.charAt(i);
            if (!isDigit(c)) {
                return -1;
            }
            value = value * 10 + (c - '0');
        }
        return value;
    }

    private static boolean allDigits(String s, int from, int to) {
        for (int i = from; i < to; i++) {
            if (!isDigit(s.charAt(i))) {
                return false;
            }
        }
        return true;
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    private static boolean isAsciiLetter(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    }
}
