package dev.adaptive.benchmarks;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Parses the {@code --key=value} options of the benchmark mains. Stateless. */
final class Options {

    private Options() {
    }

    /**
     * @param args  the main's arguments
     * @param known the keys the main reads; any other is refused, so that a mistyped option
     *              (or {@code --help}) stops the run instead of running it with the defaults
     *              and writing results under a command line that did not make them
     */
    static Map<String, String> parse(String[] args, String... known) {
        Map<String, String> m = new LinkedHashMap<>();
        List<String> keys = List.of(known);
        for (String a : args) {
            if (!a.startsWith("--")) {
                throw new IllegalArgumentException("options look like --key=value: " + a);
            }
            int eq = a.indexOf('=');
            String key = eq < 0 ? a.substring(2) : a.substring(2, eq);
            if (!keys.contains(key)) {
                throw new IllegalArgumentException("unknown option --" + key + "; known: "
                        + String.join(", ", keys.stream().map(k -> "--" + k).toList()));
            }
            m.put(key, eq < 0 ? "true" : a.substring(eq + 1));
        }
        return m;
    }

    static List<String> list(String value) {
        return Arrays.stream(value.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
    }

    static int positive(Map<String, String> opts, String key, int fallback) {
        String v = opts.get(key);
        if (v == null) {
            return fallback;
        }
        int n;
        try {
            n = Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + " must be a positive integer: " + v);
        }
        if (n < 1) {
            throw new IllegalArgumentException(key + " must be a positive integer: " + v);
        }
        return n;
    }
}
