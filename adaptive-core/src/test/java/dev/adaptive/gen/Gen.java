package dev.adaptive.gen;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * A seeded generator of test inputs for {@link Property}: draws a value from the run's
 * {@link Random}, and names its edge cases, which a run mixes in (see {@link Property}).
 *
 * <p>The distributions follow what the property tests had before: an integral range draws
 * half of its values uniformly and half log-uniformly around its shrinking target (0, moved
 * into the range), so small magnitudes come up often; its edge cases are both bounds and the
 * target with its two neighbours either side. Decimals are multiples of {@code 10^-scale}
 * with the bounds and one step inside each as edge cases. Strings, lists and arrays draw a
 * length uniformly within their bounds and their elements with one chance in
 * {@value #ELEMENT_EDGE_ODDS} of an element's edge case; their own edge cases are the empty
 * one (where allowed) and those of one element. Generators are immutable and thread-safe; the
 * {@link Random} is not.
 *
 * @param <T> the type of value
 */
@FunctionalInterface
public interface Gen<T> {

    /** One element in this many is one of the element generator's edge cases. */
    int ELEMENT_EDGE_ODDS = 20;

    /** Combined edge cases beyond this many are left out. */
    int MAX_EDGES = 10_000;

    /**
     * @param random the run's source of randomness
     * @return a value
     */
    T next(Random random);

    /** @return the edge cases, in the order a run tries them; none by default */
    default List<T> edges() {
        return List.of();
    }

    /** @return a value, one of the edge cases with one chance in {@link #ELEMENT_EDGE_ODDS} */
    default T nextOrEdge(Random random) {
        List<T> edges = edges();
        return !edges.isEmpty() && random.nextInt(ELEMENT_EDGE_ODDS) == 0
                ? edges.get(random.nextInt(edges.size())) : next(random);
    }

    /** @return a generator with these edge cases instead of this one's */
    default Gen<T> withEdges(List<T> edges) {
        List<T> copy = List.copyOf(edges);
        Gen<T> self = this;
        return new Gen<>() {
            @Override
            public T next(Random random) {
                return self.next(random);
            }

            @Override
            public List<T> edges() {
                return copy;
            }
        };
    }

    /** @return this generator's values and edge cases through {@code f} */
    default <R> Gen<R> map(Function<? super T, ? extends R> f) {
        Gen<T> self = this;
        Gen<R> mapped = random -> f.apply(self.next(random));
        return mapped.withEdges(self.edges().stream().<R>map(f).toList());
    }

    /**
     * @return a generator that draws a value of this one, then a value of the generator
     *         {@code f} makes of it; edge cases: those of {@code f} of each edge case
     */
    default <R> Gen<R> flatMap(Function<? super T, Gen<R>> f) {
        Gen<T> self = this;
        Gen<R> flat = random -> f.apply(self.next(random)).next(random);
        List<R> edges = new ArrayList<>();
        for (T t : self.edges()) {
            for (R r : f.apply(t).edges()) {
                if (edges.size() < MAX_EDGES) {
                    edges.add(r);
                }
            }
        }
        return flat.withEdges(edges);
    }

    // ---- numbers ---------------------------------------------------------------------------

    /** @return any long */
    static Gen<Long> longs() {
        return longs(Long.MIN_VALUE, Long.MAX_VALUE);
    }

    /** @return longs within [min, max] */
    static Gen<Long> longs(long min, long max) {
        if (min > max) {
            throw new IllegalArgumentException("min > max: " + min + " > " + max);
        }
        long target = Math.max(min, Math.min(max, 0));
        Gen<Long> g = random -> random.nextBoolean() ? uniform(random, min, max) : nearTarget(random, min, max, target);
        Set<Long> edges = new LinkedHashSet<>();
        edges.add(min);
        for (long d = -2; d <= 2; d++) {
            long v = target + d;
            if ((d < 0 ? v < target : v >= target) && v >= min && v <= max) {
                edges.add(v);
            }
        }
        edges.add(max);
        return g.withEdges(new ArrayList<>(edges));
    }

    /** @return ints within [min, max] */
    static Gen<Integer> ints(int min, int max) {
        return longs(min, max).map(Long::intValue);
    }

    /**
     * @param scale decimal places: values are multiples of {@code 10^-scale}
     * @return decimals within [min, max]
     */
    static Gen<Double> decimals(double min, double max, int scale) {
        // Units of 10^-scale, divided at the end so that 0.99 is the double nearest 0.99.
        double perUnit = Math.pow(10, scale);
        long lo = Math.round(Math.ceil(min * perUnit - 1e-9));
        long hi = Math.round(Math.floor(max * perUnit + 1e-9));
        Gen<Long> units = longs(lo, hi);
        Gen<Double> g = random -> units.next(random) / perUnit;
        Set<Double> edges = new LinkedHashSet<>();
        for (long u : new long[] {lo, Math.min(hi, lo + 1), Math.max(lo, hi - 1), hi}) {
            edges.add(u / perUnit);
        }
        return g.withEdges(new ArrayList<>(edges));
    }

    // ---- choices ---------------------------------------------------------------------------

    /** @return one of {@code values}, uniformly; edge cases: the first and the last */
    @SafeVarargs
    static <T> Gen<T> of(T... values) {
        return of(Arrays.asList(values));
    }

    /** @return one of {@code values}, uniformly; edge cases: the first and the last */
    static <T> Gen<T> of(List<T> values) {
        List<T> copy = List.copyOf(values);
        Gen<T> g = random -> copy.get(random.nextInt(copy.size()));
        return g.withEdges(copy.size() == 1 ? copy : List.of(copy.get(0), copy.get(copy.size() - 1)));
    }

    /** @return a value of one of {@code gens}, chosen uniformly; edge cases: all of theirs */
    @SafeVarargs
    static <T> Gen<T> oneOf(Gen<? extends T>... gens) {
        List<Weighted<T>> weighted = new ArrayList<>();
        for (Gen<? extends T> g : gens) {
            weighted.add(new Weighted<>(1, g));
        }
        return frequency(weighted);
    }

    /** A generator and how often it is chosen. */
    record Weighted<T>(int weight, Gen<? extends T> gen) {
    }

    /** @return a generator chosen {@code weight} times in the sum of the weights */
    static <T> Weighted<T> weighted(int weight, Gen<? extends T> gen) {
        return new Weighted<>(weight, gen);
    }

    /** @return a value of one of the generators, chosen by weight; edge cases: all of theirs */
    @SafeVarargs
    static <T> Gen<T> frequency(Weighted<T>... choices) {
        return frequency(List.of(choices));
    }

    /** @return a value of one of the generators, chosen by weight; edge cases: all of theirs */
    static <T> Gen<T> frequency(List<Weighted<T>> choices) {
        List<Weighted<T>> list = List.copyOf(choices);
        int total = list.stream().mapToInt(Weighted::weight).sum();
        Gen<T> g = random -> {
            int roll = random.nextInt(total);
            for (Weighted<T> w : list) {
                roll -= w.weight();
                if (roll < 0) {
                    return w.gen().next(random);
                }
            }
            throw new IllegalStateException("weights changed");
        };
        List<T> edges = new ArrayList<>();
        list.forEach(w -> edges.addAll(w.gen().edges()));
        return g.withEdges(edges);
    }

    // ---- text and collections --------------------------------------------------------------

    /** @return chars of {@code set}; edge cases: its first and last */
    static Gen<Character> chars(String set) {
        List<Character> chars = set.chars().mapToObj(c -> (char) c).toList();
        return of(chars);
    }

    /**
     * @return any UTF-16 char but noncharacters and private-use ones (lone surrogates
     *         included); edge cases: U+0000, the space and U+FFFD
     */
    static Gen<Character> anyChar() {
        Gen<Character> g = random -> {
            while (true) {
                char c = (char) random.nextInt(Character.MAX_VALUE + 1);
                boolean privateUse = c >= '\uE000' && c <= '\uF8FF';
                boolean nonCharacter = c >= '\uFDD0' && c <= '\uFDEF' || c >= '\uFFFE';
                if (!privateUse && !nonCharacter) {
                    return c;
                }
            }
        };
        return g.withEdges(List.of('\u0000', ' ', '\uFFFD'));
    }

    /**
     * Mutants of valid inputs, for parsers' fuzz tests: one of {@code seeds} with one to three
     * edits, each replacing, inserting or deleting one character, inserted ones drawn from
     * {@code alphabet}. Its edge cases are the seeds themselves.
     */
    static Gen<String> mutated(List<String> seeds, String alphabet) {
        List<String> copy = List.copyOf(seeds);
        Gen<String> g = random -> {
            StringBuilder s = new StringBuilder(copy.get(random.nextInt(copy.size())));
            int edits = 1 + random.nextInt(3);
            for (int e = 0; e < edits && s.length() > 0; e++) {
                int at = random.nextInt(s.length());
                char c = alphabet.charAt(random.nextInt(alphabet.length()));
                switch (random.nextInt(3)) {
                    case 0 -> s.setCharAt(at, c);
                    case 1 -> s.insert(at, c);
                    default -> s.deleteCharAt(at);
                }
            }
            return s.toString();
        };
        return g.withEdges(copy);
    }

    /** @return strings of {@code chars}, of a length within [minLength, maxLength] */
    static Gen<String> strings(Gen<Character> chars, int minLength, int maxLength) {
        Gen<String> g = random -> {
            int n = minLength + random.nextInt(maxLength - minLength + 1);
            StringBuilder sb = new StringBuilder(n);
            for (int i = 0; i < n; i++) {
                sb.append(chars.nextOrEdge(random));
            }
            return sb.toString();
        };
        List<String> edges = new ArrayList<>();
        if (minLength == 0) {
            edges.add("");
        }
        if (minLength <= 1 && maxLength >= 1) {
            chars.edges().forEach(c -> edges.add(String.valueOf(c)));
        }
        return g.withEdges(edges);
    }

    /** @return lists of {@code elements}, of a size within [minSize, maxSize] */
    static <T> Gen<List<T>> lists(Gen<T> elements, int minSize, int maxSize) {
        Gen<List<T>> g = random -> {
            int n = minSize + random.nextInt(maxSize - minSize + 1);
            List<T> out = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                out.add(elements.nextOrEdge(random));
            }
            return List.copyOf(out);
        };
        return g.withEdges(smallLists(elements, minSize, maxSize));
    }

    /**
     * @return lists of {@code elements} no two of which have the same {@code key}, of a size
     *         within [minSize, maxSize]; a draw that finds no new key in 100 tries ends the
     *         list, so it may come out shorter when few keys exist
     */
    static <T, K> Gen<List<T>> uniqueLists(Gen<T> elements, int minSize, int maxSize, Function<T, K> key) {
        Gen<List<T>> g = random -> {
            int n = minSize + random.nextInt(maxSize - minSize + 1);
            List<T> out = new ArrayList<>(n);
            Set<K> keys = new HashSet<>();
            for (int misses = 0; out.size() < n && misses < 100; ) {
                T t = elements.nextOrEdge(random);
                if (keys.add(key.apply(t))) {
                    out.add(t);
                } else {
                    misses++;
                }
            }
            return List.copyOf(out);
        };
        return g.withEdges(smallLists(elements, minSize, maxSize));
    }

    /** @return byte arrays of a length within [minLength, maxLength]; any byte value */
    static Gen<byte[]> bytes(int minLength, int maxLength) {
        Gen<Byte> one = longs(Byte.MIN_VALUE, Byte.MAX_VALUE).map(Long::byteValue);
        return lists(one, minLength, maxLength).map(list -> {
            byte[] out = new byte[list.size()];
            for (int i = 0; i < out.length; i++) {
                out[i] = list.get(i);
            }
            return out;
        });
    }

    private static <T> List<List<T>> smallLists(Gen<T> elements, int minSize, int maxSize) {
        List<List<T>> edges = new ArrayList<>();
        if (minSize == 0) {
            edges.add(List.of());
        }
        if (minSize <= 1 && maxSize >= 1) {
            elements.edges().forEach(e -> edges.add(List.of(e)));
        }
        return edges;
    }

    // ---- several inputs --------------------------------------------------------------------

    /**
     * @return values of {@code f} of a value of each; edge cases: {@code f} of every
     *         combination of their edge cases (at most {@link #MAX_EDGES})
     */
    static <A, B, R> Gen<R> zip(Gen<A> a, Gen<B> b, BiFunction<? super A, ? super B, ? extends R> f) {
        Gen<R> g = random -> f.apply(a.next(random), b.next(random));
        List<R> edges = new ArrayList<>();
        for (A x : a.edges()) {
            for (B y : b.edges()) {
                if (edges.size() < MAX_EDGES) {
                    edges.add(f.apply(x, y));
                }
            }
        }
        return g.withEdges(edges);
    }

    /** Three values at once. */
    @FunctionalInterface
    interface Function3<A, B, C, R> {
        /** @return the value made of {@code a}, {@code b} and {@code c} */
        R apply(A a, B b, C c);
    }

    /** @return as {@link #zip(Gen, Gen, BiFunction)}, of three */
    static <A, B, C, R> Gen<R> zip(Gen<A> a, Gen<B> b, Gen<C> c, Function3<? super A, ? super B, ? super C, ? extends R> f) {
        record Pair<X, Y>(X x, Y y) {
        }
        return zip(zip(a, b, Pair<A, B>::new), c, (p, z) -> f.apply(p.x(), p.y(), z));
    }

    // ---- draws -----------------------------------------------------------------------------

    private static long uniform(Random random, long min, long max) {
        if (min == Long.MIN_VALUE && max == Long.MAX_VALUE) {
            return random.nextLong();
        }
        return max < Long.MAX_VALUE ? random.nextLong(min, max + 1) : random.nextLong(min - 1, max) + 1;
    }

    /** Log-uniform magnitude around {@code target}: every power of two as likely. */
    private static long nearTarget(Random random, long min, long max, long target) {
        for (int attempt = 0; attempt < 8; attempt++) {
            int bits = random.nextInt(64);
            long offset = bits == 0 ? 0 : random.nextLong() >>> (64 - bits);
            if (random.nextBoolean()) {
                // max - target and target - min fit in 64 unsigned bits, as target is in [min, max].
                if (Long.compareUnsigned(offset, max - target) <= 0) {
                    return target + offset;
                }
            } else if (Long.compareUnsigned(offset, target - min) <= 0) {
                return target - offset;
            }
        }
        return uniform(random, min, max);
    }
}
