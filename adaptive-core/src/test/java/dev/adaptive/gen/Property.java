package dev.adaptive.gen;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/**
 * Runs a property in plain JUnit 5: {@code tries} inputs drawn from a {@link Gen} with a seed
 * fixed per property, each checked by a body that asserts. A failure rethrows as an
 * {@link AssertionError} that names the property, the seed, the try and the input, so it
 * reproduces by running the test again; there is no shrinking.
 *
 * <p>Edge cases are mixed in as the property tests had them: while some are left, each try
 * is the next combination of the generator's edge cases with one chance in {@code ratio + 1},
 * where {@code ratio} is {@code tries / edge cases} kept within [5, 20]; every other try is a
 * random draw.
 *
 * <p>The seed is derived from the property's name (its test class and method), so each
 * property draws its own inputs and draws the same ones on every run; the system property
 * {@value #SEED_PROPERTY} mixes another number in, to explore other inputs on purpose. Each
 * run prints one line: name, seed, tries, edge cases tried, and what {@link #collect} counted.
 *
 * <p>Not thread-safe: a property runs on the calling thread.
 */
public final class Property {

    /** The system property whose number, when set, is mixed into every property's seed. */
    public static final String SEED_PROPERTY = "adaptive.seed";

    private static final ThreadLocal<Map<String, Map<String, Integer>>> COLLECTED = new ThreadLocal<>();

    private Property() {
    }

    /** A property's body: asserts about one input. */
    @FunctionalInterface
    public interface Check<T> {
        /**
         * @param input one input
         * @throws Exception if the check cannot run; it fails the property like an assertion
         */
        void accept(T input) throws Exception;
    }

    /**
     * Checks {@code check} on {@code tries} inputs of {@code gen}, under the calling test
     * method's name.
     *
     * @throws AssertionError naming the seed, the try and the input that failed
     */
    public static <T> void forAll(int tries, Gen<T> gen, Check<? super T> check) {
        StackWalker.StackFrame caller = StackWalker.getInstance()
                .walk(frames -> frames.skip(1).findFirst()).orElseThrow();
        String className = caller.getClassName();
        forAll(className.substring(className.lastIndexOf('.') + 1) + "." + caller.getMethodName(), tries, gen, check);
    }

    /**
     * Checks {@code check} on {@code tries} inputs of {@code gen}.
     *
     * @param name the property's name, from which its seed is derived
     * @throws AssertionError naming the seed, the try and the input that failed
     */
    public static <T> void forAll(String name, int tries, Gen<T> gen, Check<? super T> check) {
        long seed = seed(name);
        Random random = new Random(seed);
        List<T> edges = gen.edges();
        int ratio = edges.isEmpty() ? 0 : Math.max(5, Math.min(20, tries / edges.size()));
        int edgesTried = 0;
        Map<String, Map<String, Integer>> collected = new TreeMap<>();
        COLLECTED.set(collected);
        try {
            for (int t = 1; t <= tries; t++) {
                boolean edge = edgesTried < edges.size() && random.nextInt(ratio + 1) == 0;
                T input = edge ? edges.get(edgesTried++) : gen.next(random);
                try {
                    check.accept(input);
                } catch (Throwable failure) {
                    if (failure instanceof OutOfMemoryError oom) {
                        throw oom;
                    }
                    throw new AssertionError("property " + name + " failed on try " + t + " of " + tries
                            + " (seed " + seed + (edge ? ", an edge case" : "") + ") with input " + show(input)
                            + ": " + failure, failure);
                }
            }
        } finally {
            COLLECTED.remove();
        }
        System.out.println("property " + name + ": seed " + seed + ", tries " + tries + ", edge cases "
                + edgesTried + " of " + edges.size() + (collected.isEmpty() ? "" : ", " + collected));
    }

    /**
     * Counts {@code value} under {@code label} for the running property's summary line;
     * nothing outside a property (a regression seed run by a plain test, say).
     */
    public static void collect(String label, Object value) {
        Map<String, Map<String, Integer>> collected = COLLECTED.get();
        if (collected != null) {
            collected.computeIfAbsent(label, l -> new TreeMap<>()).merge(String.valueOf(value), 1, Integer::sum);
        }
    }

    /** @return the seed of the property called {@code name} */
    static long seed(String name) {
        // FNV-1a over the name's chars: stable across JVMs and runs, unlike identity hashes.
        long h = 0xcbf29ce484222325L;
        for (int i = 0; i < name.length(); i++) {
            h = (h ^ name.charAt(i)) * 0x100000001b3L;
        }
        String extra = System.getProperty(SEED_PROPERTY);
        return extra == null || extra.isBlank() ? h : h ^ Long.parseLong(extra.trim()) * 0x9E3779B97F4A7C15L;
    }

    /** An input as a message shows it: arrays by content, text with invisible chars escaped. */
    public static String show(Object input) {
        if (input instanceof byte[] bytes) {
            return Arrays.toString(bytes);
        }
        if (input instanceof String s) {
            StringBuilder sb = new StringBuilder("\"");
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                if (c < 0x20 || c > 0x7e) {
                    sb.append(String.format(java.util.Locale.ROOT, "\\u%04x", (int) c));
                } else {
                    sb.append(c);
                }
            }
            return sb.append('"').toString();
        }
        return String.valueOf(input);
    }
}
