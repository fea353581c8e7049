package dev.adaptive.retry;

import dev.adaptive.gen.Gen;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/** Random and mutated inputs: parsing never throws and never exceeds the cap. Seeded, so reproducible. */
class RetryAfterFuzzTest {

    private static final String[] SEEDS = {
        "Sun, 06 Nov 1994 08:49:37 GMT",
        "Sunday, 06-Nov-94 08:49:37 GMT",
        "Wednesday, 09-Nov-94 08:49:37 GMT",
        "Sun Nov  6 08:49:37 1994",
        "120",
        "99999999999999999999",
    };
    private static final String ALPHABET = "0123456789 \t,:-+.eGMTSunNovJanFebWed\u0661\uff10\u00a0\u0000\ud800";
    private static final Gen<String> MUTATED = Gen.mutated(List.of(SEEDS), ALPHABET);
    private static final Clock[] CLOCKS = {
        Clock.fixed(Instant.parse("1994-11-06T08:49:00Z"), ZoneOffset.UTC),
        Clock.fixed(Instant.parse("2024-02-29T23:59:59.999Z"), ZoneOffset.UTC),
        Clock.fixed(Instant.EPOCH, ZoneOffset.UTC),
        Clock.fixed(Instant.MIN, ZoneOffset.UTC),
        Clock.fixed(Instant.MAX, ZoneOffset.UTC),
    };

    @Test
    void neverThrowsAndStaysWithinTheCap() {
        Random random = new Random(20240501L);
        int present = 0;
        for (int i = 0; i < 200_000; i++) {
            String value = switch (i % 3) {
                case 0 -> MUTATED.next(random);
                case 1 -> fromAlphabet(random);
                default -> anyChars(random);
            };
            Clock clock = CLOCKS[random.nextInt(CLOCKS.length)];
            Duration max = Duration.ofMillis(1 + random.nextInt(1_000_000));

            Optional<Duration> parsed = RetryAfter.parse(value, clock, max);

            if (parsed.isPresent()) {
                present++;
                assertThat(parsed.get()).as("parse(\"%s\")", value).isBetween(Duration.ZERO, max);
            }
        }
        // Guards the generator: mutations must sometimes stay valid, or the loop tests nothing.
        assertThat(present).isPositive();
    }

    private static String fromAlphabet(Random random) {
        StringBuilder s = new StringBuilder();
        int length = random.nextInt(40);
        for (int i = 0; i < length; i++) {
            s.append(ALPHABET.charAt(random.nextInt(ALPHABET.length())));
        }
        return s.toString();
    }

    private static String anyChars(Random random) {
        StringBuilder s = new StringBuilder();
        int length = random.nextInt(40);
        for (int i = 0; i < length; i++) {
            s.append((char) random.nextInt(Character.MAX_VALUE + 1));
        }
        return s.toString();
    }
}
