package dev.adaptive.retry;

import dev.adaptive.gen.Gen;
import dev.adaptive.gen.Property;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Random and mutated field values through the project's seeded generators: parsing never
 * throws, never exceeds the cap, and what it reads it reads exactly.
 */
class RateLimitHeadersFuzzTest {

    private static final Instant NOW = Instant.ofEpochSecond(1_700_000_000L);
    private static final List<Clock> CLOCKS = List.of(Clock.fixed(NOW, ZoneOffset.UTC),
            Clock.fixed(Instant.EPOCH, ZoneOffset.UTC), Clock.fixed(Instant.MIN, ZoneOffset.UTC),
            Clock.fixed(Instant.MAX, ZoneOffset.UTC));
    private static final List<String> NAMES = List.of("ratelimit", "ratelimit-policy", "ratelimit-remaining",
            "ratelimit-reset", "x-ratelimit-remaining", "x-ratelimit-reset", "x-ratelimit-reset-after",
            "x-ratelimit-remaining-requests", "x-ratelimit-reset-requests");
    private static final List<String> SEEDS = List.of("\"default\";r=50;t=30", "\"default\";q=100;w=60",
            "limit=100, remaining=50, reset=30", "42", "1700000020", "1700000020500", "6m0s", "1.5s", "20ms",
            "\"a\";r=1;t=2, \"b\";r=3;t=4");
    private static final String ALPHABET = "0123456789 \t,;=\".-+ehmsnu\u00b5rtqwdefault\u0661\uff10\u00a0\u0000\ud800";

    record Fields(Map<String, String> headers, long capMillis, int clock) {
        @Override
        public String toString() {
            StringBuilder s = new StringBuilder("Fields[");
            headers.forEach((k, v) -> s.append(k).append('=').append(Property.show(v)).append(' '));
            return s.append("capMillis=").append(capMillis).append(", clock=").append(clock).append(']').toString();
        }
    }

    private static Gen<String> values() {
        return Gen.oneOf(Gen.mutated(SEEDS, ALPHABET), Gen.of(SEEDS), Gen.strings(Gen.chars(ALPHABET), 0, 40),
                Gen.strings(Gen.anyChar(), 0, 40));
    }

    private static Gen<Fields> fields() {
        Gen<Map<String, String>> headers = random -> {
            Map<String, String> h = new java.util.HashMap<>();
            int n = random.nextInt(4);
            for (int i = 0; i < n; i++) {
                h.put(NAMES.get(random.nextInt(NAMES.size())), values().next(random));
            }
            return h;
        };
        return Gen.zip(headers, Gen.longs(1, 1_000_000), Gen.ints(0, CLOCKS.size() - 1), Fields::new);
    }

    @Test
    void anyFieldsAreAQuotaWithinTheCapOrAbsent() {
        int[] present = new int[1];
        Property.forAll(20_000, fields(), f -> {
            Duration cap = Duration.ofMillis(f.capMillis());
            Optional<Quota> parsed = RateLimitHeaders.parse(f.headers()::get, CLOCKS.get(f.clock()), cap);
            parsed.ifPresent(q -> {
                present[0]++;
                assertThat(q.reset()).isBetween(Duration.ZERO, cap);
                assertThat(q.remaining()).isBetween(0L, (long) Integer.MAX_VALUE);
            });
        });
        // Guards the generator: some inputs must stay readable, or the loop tests nothing.
        assertThat(present[0]).isPositive();
    }

    record Announced(long remaining, long resetSeconds, int form) {
    }

    /** Every form, written from a quota, reads back as that quota (capped). */
    @Test
    void everyFormRoundTrips() {
        Property.forAll(2_000, Gen.zip(Gen.longs(0, Integer.MAX_VALUE), Gen.longs(0, 999_999_999L), Gen.ints(0, 5),
                Announced::new), a -> {
            String r = String.valueOf(a.remaining());
            String t = String.valueOf(a.resetSeconds());
            Map<String, String> h = switch (a.form()) {
                case 0 -> Map.of("ratelimit", "\"default\";r=" + r + ";t=" + t);
                case 1 -> Map.of("ratelimit", "\"default\";r=" + r, "ratelimit-policy", "\"default\";q=9;w=" + t);
                case 2 -> Map.of("ratelimit", "limit=9, remaining=" + r + ", reset=" + t);
                case 3 -> Map.of("ratelimit-remaining", r, "ratelimit-reset", t);
                case 4 -> Map.of("x-ratelimit-remaining", r, "x-ratelimit-reset",
                        String.valueOf(NOW.getEpochSecond() + a.resetSeconds()));
                default -> Map.of("x-ratelimit-remaining-requests", r, "x-ratelimit-reset-requests",
                        (a.resetSeconds() / 60) + "m" + (a.resetSeconds() % 60) + "s");
            };
            Duration expected = Duration.ofSeconds(a.resetSeconds());
            if (expected.compareTo(RateLimitHeaders.DEFAULT_MAX) > 0) {
                expected = RateLimitHeaders.DEFAULT_MAX;
            }
            assertThat(RateLimitHeaders.parse(h::get, Clock.fixed(NOW, ZoneOffset.UTC)))
                    .as("%s", h).contains(new Quota(a.remaining(), expected));
        });
    }

    @Test
    void anyBytesDecodedAsLatin1AreAQuotaWithinTheCapOrAbsent() {
        Property.forAll(2_000, Gen.zip(Gen.bytes(0, 255), Gen.ints(0, NAMES.size() - 1), (b, n) -> new Object[]{b, n}),
                in -> {
                    String value = new String((byte[]) in[0], java.nio.charset.StandardCharsets.ISO_8859_1);
                    String name = NAMES.get((Integer) in[1]);
                    Map<String, String> h = new java.util.HashMap<>(Map.of("x-ratelimit-remaining", "1",
                            "x-ratelimit-reset", value));
                    h.put(name, value);
                    RateLimitHeaders.parse(h::get, CLOCKS.get(0)).ifPresent(q ->
                            assertThat(q.reset()).isBetween(Duration.ZERO, RateLimitHeaders.DEFAULT_MAX));
                });
    }
}
