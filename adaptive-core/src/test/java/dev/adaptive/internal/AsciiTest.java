package dev.adaptive.internal;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class AsciiTest {

    @Test
    void asciiLettersMatchInAnyCaseAndIndicesAreThoseOfTheTextItself() {
        String text = "İİİ quota of İSTANBUL; Retry-After=3";
        int at = Ascii.indexOfIgnoreCase(text, "retry-after=", 0);
        assertThat(text.substring(at)).isEqualTo("Retry-After=3");
        assertThat(Ascii.indexOfIgnoreCase(text, "retry-after=", at + 1)).isEqualTo(-1);
        assertThat(Ascii.indexOfIgnoreCase("ab", "abc", 0)).isEqualTo(-1);
        assertThat(Ascii.indexOfIgnoreCase("abc", "", 3)).isEqualTo(3);
        assertThat(Ascii.equalsIgnoreCase("FailClosed", "failclosed")).isTrue();
        assertThat(Ascii.equalsIgnoreCase("failClosed", "failClose")).isFalse();
        assertThat(Ascii.regionMatchesIgnoreCase("xMS", 1, "ms")).isTrue();
        assertThat(Ascii.regionMatchesIgnoreCase("xMS", 2, "ms")).isFalse();
        assertThat(Ascii.regionMatchesIgnoreCase("xMS", -1, "ms")).isFalse();
    }

    @Test
    void noNonAsciiCharStandsForAnAsciiLetter() {
        // Each of these is equalsIgnoreCase to an ASCII letter, or case-maps to one.
        assertThat(Ascii.equalsIgnoreCase("\u017F", "s")).isFalse();
        assertThat(Ascii.equalsIgnoreCase("\u212A", "k")).isFalse();
        assertThat(Ascii.equalsIgnoreCase("\u0131", "i")).isFalse();
        assertThat(Ascii.equalsIgnoreCase("\u0130", "i")).isFalse();
        StringBuilder matched = new StringBuilder();
        for (char c = 128; c < Character.MAX_VALUE; c++) {
            for (char a = 'A'; a <= 'z'; a++) {
                if (Ascii.equalsIgnoreCase(String.valueOf(c), String.valueOf(a))) {
                    matched.append(c);
                }
            }
        }
        assertThat(matched).isEmpty();
    }

    @Test
    void digitsAreAsciiDigitsOnly() {
        assertThat(Ascii.isDigits("0123456789")).isTrue();
        assertThat(Ascii.isDigits("")).isFalse();
        assertThat(Ascii.isDigits("\u0661\u0662")).isFalse();
        assertThat(Ascii.isDigits("+1")).isFalse();
        assertThat(Ascii.isDigits("1 ")).isFalse();
    }
}
