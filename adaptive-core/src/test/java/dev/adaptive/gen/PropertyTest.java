package dev.adaptive.gen;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The runner and generators the property tests rest on. */
class PropertyTest {

    private static List<Integer> inputs(String name, int tries, Gen<Integer> gen) {
        List<Integer> seen = new ArrayList<>();
        Property.forAll(name, tries, gen, seen::add);
        return seen;
    }

    @Test
    void aFailureNamesThePropertyTheSeedTheTryAndTheInput() {
        long seed = Property.seed("demo");
        assertThatThrownBy(() -> Property.forAll("demo", 1000, Gen.ints(0, 1000),
                v -> assertThat(v).isLessThan(900)))
                .isInstanceOf(AssertionError.class)
                .hasMessageStartingWith("property demo failed on try ")
                .hasMessageContaining("of 1000 (seed " + seed)
                .hasMessageMatching("(?s).*with input (9\\d\\d|1000): .*")
                .cause().isInstanceOf(AssertionError.class);
        assertThatThrownBy(() -> Property.forAll("text", 10, Gen.of("a\u0000b"), v -> {
            throw new IllegalStateException("boom");
        })).hasMessageContaining("with input \"a\\u0000b\"").hasMessageContaining("boom")
                .cause().isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aPropertyDrawsTheSameInputsOnEveryRunAndItsOwnPerName() {
        Gen<Integer> gen = Gen.ints(-1_000_000, 1_000_000);
        List<Integer> first = inputs("same", 200, gen);
        assertThat(first).hasSize(200);
        assertThat(inputs("same", 200, gen)).isEqualTo(first);
        assertThat(inputs("other", 200, gen)).isNotEqualTo(first);
        String before = System.getProperty(Property.SEED_PROPERTY);
        try {
            System.setProperty(Property.SEED_PROPERTY, "7");
            assertThat(inputs("same", 200, gen)).as("another seed on purpose").isNotEqualTo(first);
        } finally {
            if (before == null) {
                System.clearProperty(Property.SEED_PROPERTY);
            } else {
                System.setProperty(Property.SEED_PROPERTY, before);
            }
        }
    }

    @Test
    void edgeCasesAreMixedInEachOnceAndTheRestIsDrawn() {
        Gen<Integer> gen = Gen.ints(-50, 1000);
        assertThat(gen.edges()).containsExactly(-50, -2, -1, 0, 1, 2, 1000);
        List<Integer> seen = inputs("edges", 300, gen);
        assertThat(seen).containsAll(gen.edges()).allSatisfy(v -> assertThat(v).isBetween(-50, 1000));
        assertThat(seen.subList(0, 20)).as("mixed in, not all first").isNotEqualTo(gen.edges());
        assertThat(new HashSet<>(seen)).hasSizeGreaterThan(150);
    }

    @Test
    void integralRangesStayInBoundsAndFavourSmallMagnitudes() {
        Random random = new Random(1);
        Gen<Long> any = Gen.longs();
        int small = 0;
        for (int i = 0; i < 10_000; i++) {
            if (Math.abs(any.next(random)) < 1_000_000) {
                small++;
            }
        }
        // Uniform draws would almost never be this small; the log-uniform half often is.
        assertThat(small).isBetween(1_000, 5_000);
        for (long[] range : new long[][] {{Long.MIN_VALUE, Long.MIN_VALUE + 3}, {Long.MAX_VALUE - 3, Long.MAX_VALUE},
                {5, 5}, {-7, -3}, {Long.MIN_VALUE, 0}, {0, Long.MAX_VALUE}}) {
            Gen<Long> g = Gen.longs(range[0], range[1]);
            assertThat(g.edges()).allSatisfy(v -> assertThat(v).isBetween(range[0], range[1]));
            for (int i = 0; i < 1_000; i++) {
                assertThat(g.next(random)).isBetween(range[0], range[1]);
            }
        }
        assertThat(Gen.longs(1, 100_000).edges()).containsExactly(1L, 2L, 3L, 100_000L);
    }

    @Test
    void decimalsTextAndCollectionsKeepTheirBounds() {
        Random random = new Random(2);
        Gen<Double> d = Gen.decimals(0.5, 0.99, 2);
        assertThat(d.edges()).containsExactly(0.5, 0.51, 0.98, 0.99);
        Set<Double> values = new HashSet<>();
        for (int i = 0; i < 2_000; i++) {
            double v = d.next(random);
            assertThat(v).isBetween(0.5, 0.99);
            assertThat(Math.rint(v * 100) / 100).isEqualTo(v);
            values.add(v);
        }
        assertThat(values).hasSize(50);
        Gen<String> s = Gen.strings(Gen.chars("ab"), 0, 3);
        assertThat(s.edges()).containsExactly("", "a", "b");
        Gen<List<Integer>> unique = Gen.uniqueLists(Gen.ints(0, 2), 1, 10, v -> v);
        Gen<byte[]> bytes = Gen.bytes(0, 255);
        for (int i = 0; i < 500; i++) {
            assertThat(s.next(random)).matches("[ab]{0,3}");
            List<Integer> u = unique.next(random);
            assertThat(u).isNotEmpty().doesNotHaveDuplicates().hasSizeLessThanOrEqualTo(3);
            assertThat(bytes.next(random).length).isBetween(0, 255);
            char c = Gen.anyChar().next(random);
            assertThat(c >= '\uE000' && c <= '\uF8FF' || c >= '\uFDD0' && c <= '\uFDEF' || c >= '\uFFFE').isFalse();
        }
        Gen<String> zipped = Gen.zip(Gen.of("x", "y"), Gen.ints(1, 2), (a, b) -> a + b);
        assertThat(zipped.edges()).containsExactly("x1", "x2", "y1", "y2");
    }
}
