package dev.adaptive.retry;

import java.time.LocalDate;
import java.time.YearMonth;
import java.util.OptionalLong;

/**
 * Parses the three HTTP-date formats of RFC 9110 §5.6.7 into epoch seconds, by hand: fixed
 * positions and a bounded length, so no input can make it slow, and no exception escapes.
 *
 * <pre>
 * IMF-fixdate  Sun, 06 Nov 1994 08:49:37 GMT
 * RFC 850      Sunday, 06-Nov-94 08:49:37 GMT
 * asctime      Sun Nov  6 08:49:37 1994
 * </pre>
 *
 * Names are case-sensitive, as the RFC says. The day name must be a real day name but need
 * not match the date: a server that gets the weekday wrong still means the date it wrote.
 * A second of 60 (a leap second) is accepted and counts as the next second.
 */
final class HttpDate {

    /** The longest valid form: "Wednesday, 09-Nov-94 08:49:37 GMT". */
    static final int MAX_LENGTH = 33;

    private static final String[] DAYS = {"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"};
    private static final String[] LONG_DAYS = {
        "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"};
    private static final String[] MONTHS = {
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

    private HttpDate() {
    }

    /**
     * @param s           the trimmed value
     * @param currentYear the year now, in UTC, which resolves RFC 850's two-digit years
     * @return the epoch second the date denotes, or empty if {@code s} is not an HTTP-date
     */
    static OptionalLong parse(String s, int currentYear) {
        if (s.length() > MAX_LENGTH) {
            return OptionalLong.empty();
        }
        int comma = s.indexOf(',');
        if (comma == 3) {
            return imfFixdate(s);
        }
        if (comma > 3) {
            return rfc850(s, comma, currentYear);
        }
        return comma < 0 ? asctime(s) : OptionalLong.empty();
    }

    /** "Sun, 06 Nov 1994 08:49:37 GMT" */
    private static OptionalLong imfFixdate(String s) {
        if (s.length() != 29 || indexOf(DAYS, s, 0) < 0
                || !s.startsWith(", ", 3) || s.charAt(7) != ' ' || s.charAt(11) != ' '
                || s.charAt(16) != ' ' || !s.startsWith(" GMT", 25)) {
            return OptionalLong.empty();
        }
        return toEpochSecond(digits(s, 12, 4), indexOf(MONTHS, s, 8) + 1, digits(s, 5, 2), s, 17);
    }

    /** "Sunday, 06-Nov-94 08:49:37 GMT" */
    private static OptionalLong rfc850(String s, int comma, int currentYear) {
        int p = comma + 1;
        if (s.length() - p != 23 || !isLongDay(s, comma)
                || s.charAt(p) != ' ' || s.charAt(p + 3) != '-' || s.charAt(p + 7) != '-'
                || s.charAt(p + 10) != ' ' || !s.startsWith(" GMT", p + 19)) {
            return OptionalLong.empty();
        }
        int twoDigitYear = digits(s, p + 8, 2);
        if (twoDigitYear < 0) {
            return OptionalLong.empty();
        }
        return toEpochSecond(fullYear(twoDigitYear, currentYear), indexOf(MONTHS, s, p + 4) + 1,
                digits(s, p + 1, 2), s, p + 11);
    }

    /** "Sun Nov  6 08:49:37 1994" (the day is two digits or a space and a digit) */
    private static OptionalLong asctime(String s) {
        if (s.length() != 24 || indexOf(DAYS, s, 0) < 0
                || s.charAt(3) != ' ' || s.charAt(7) != ' ' || s.charAt(10) != ' ' || s.charAt(19) != ' ') {
            return OptionalLong.empty();
        }
        int day = s.charAt(8) == ' ' ? digits(s, 9, 1) : digits(s, 8, 2);
        return toEpochSecond(digits(s, 20, 4), indexOf(MONTHS, s, 4) + 1, day, s, 11);
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

    /** Validates the fields; the time of day "HH:MM:SS" starts at {@code timeAt}. */
    private static OptionalLong toEpochSecond(int year, int month, int day, String s, int timeAt) {
        if (s.charAt(timeAt + 2) != ':' || s.charAt(timeAt + 5) != ':') {
            return OptionalLong.empty();
        }
        int hour = digits(s, timeAt, 2);
        int minute = digits(s, timeAt + 3, 2);
        int second = digits(s, timeAt + 6, 2);
        if (year < 0 || month < 1 || day < 1 || hour < 0 || hour > 23 || minute < 0 || minute > 59
                || second < 0 || second > 60 || day > YearMonth.of(year, month).lengthOfMonth()) {
            return OptionalLong.empty();
        }
        long epochDay = LocalDate.of(year, month, day).toEpochDay();
        return OptionalLong.of(epochDay * 86_400 + hour * 3_600L + minute * 60L + second);
    }

    private static boolean isLongDay(String s, int comma) {
        for (String name : LONG_DAYS) {
            if (name.length() == comma && s.startsWith(name)) {
                return true;
            }
        }
        return false;
    }

    /** @return the index of the three-letter name at {@code at}, or -1 */
    private static int indexOf(String[] names, String s, int at) {
        for (int i = 0; i < names.length; i++) {
            if (s.startsWith(names[i], at)) {
                return i;
            }
        }
        return -1;
    }

    /** @return the value of {@code count} ASCII digits at {@code at}, or -1 if any is not one */
    private static int digits(String s, int at, int count) {
        int value = 0;
        for (int i = at; i < at + count; i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            value = value * 10 + (c - '0');
        }
        return value;
    }
}
