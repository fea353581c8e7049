package dev.adaptive.internal;

/**
 * Case-insensitive matching of protocol and option text, on ASCII letters only. Unlike
 * {@link String#toLowerCase} followed by an index into the original, it never shifts an index
 * ({@code "İ".toLowerCase()} is two chars); unlike {@link String#equalsIgnoreCase} it never lets
 * a non-ASCII look-alike pass for a keyword (the long s {@code ſ} for {@code s}, the Kelvin sign
 * for {@code k}, the dotless {@code ı} for {@code i}); and it reads no locale. Not API: its
 * package is internal and may change without notice. Stateless.
 */
public final class Ascii {

    private Ascii() {
    }

    /**
     * @return whether {@code a} and {@code b} have the same length and the same chars, ASCII
     *         letters compared without case
     */
    public static boolean equalsIgnoreCase(String a, String b) {
        return a.length() == b.length() && regionMatchesIgnoreCase(a, 0, b);
    }

    /**
     * @param text  the text searched
     * @param key   what is searched for
     * @param from  the index the search starts at
     * @return the index in {@code text} of the first match of {@code key} at or after
     *         {@code from} (ASCII letters compared without case), or -1
     */
    public static int indexOfIgnoreCase(String text, String key, int from) {
        for (int at = Math.max(0, from), last = text.length() - key.length(); at <= last; at++) {
            if (regionMatchesIgnoreCase(text, at, key)) {
                return at;
            }
        }
        return -1;
    }

    /**
     * @return whether {@code key} occurs in {@code text} at index {@code at} (ASCII letters
     *         compared without case); false when it would run past either end
     */
    public static boolean regionMatchesIgnoreCase(String text, int at, String key) {
        if (at < 0 || at > text.length() - key.length()) {
            return false;
        }
        for (int i = 0; i < key.length(); i++) {
            if (lower(text.charAt(at + i)) != lower(key.charAt(i))) {
                return false;
            }
        }
        return true;
    }

    /** @return whether every char of {@code s} is an ASCII digit; false for an empty string */
    public static boolean isDigits(String s) {
        if (s.isEmpty()) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }

    private static char lower(char c) {
        return c >= 'A' && c <= 'Z' ? (char) (c + ('a' - 'A')) : c;
    }
}
