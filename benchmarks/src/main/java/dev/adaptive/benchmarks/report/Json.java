package dev.adaptive.benchmarks.report;

import java.util.List;
import java.util.Map;

/**
 * A minimal JSON writer for the result files: maps (insertion-ordered), lists, strings,
 * numbers, booleans and null. The benchmarks need nothing more, and a dependency for it would
 * be one more thing on the classpath of every benchmark. Stateless.
 */
public final class Json {

    private Json() {
    }

    /** @param value a map, list, string, number, boolean or null @return its JSON text, indented */
    public static String write(Object value) {
        StringBuilder sb = new StringBuilder();
        write(sb, value, 0);
        return sb.append('\n').toString();
    }

    private static void write(StringBuilder sb, Object v, int indent) {
        if (v == null) {
            sb.append("null");
        } else if (v instanceof String s) {
            string(sb, s);
        } else if (v instanceof Double d) {
            sb.append(d.isNaN() || d.isInfinite() ? "null" : number(d));
        } else if (v instanceof Float f) {
            write(sb, f.doubleValue(), indent);
        } else if (v instanceof Number || v instanceof Boolean) {
            sb.append(v);
        } else if (v instanceof Map<?, ?> m) {
            if (m.isEmpty()) {
                sb.append("{}");
                return;
            }
            sb.append("{\n");
            int i = 0;
            for (Map.Entry<?, ?> e : m.entrySet()) {
                pad(sb, indent + 1);
                string(sb, String.valueOf(e.getKey()));
                sb.append(": ");
                write(sb, e.getValue(), indent + 1);
                sb.append(++i < m.size() ? ",\n" : "\n");
            }
            pad(sb, indent);
            sb.append('}');
        } else if (v instanceof List<?> l) {
            boolean flat = l.stream().allMatch(x -> x == null || x instanceof Number || x instanceof Boolean);
            sb.append('[');
            for (int i = 0; i < l.size(); i++) {
                if (!flat) {
                    sb.append('\n');
                    pad(sb, indent + 1);
                }
                write(sb, l.get(i), indent + 1);
                if (i + 1 < l.size()) {
                    sb.append(flat ? ", " : ",");
                }
            }
            if (!flat && !l.isEmpty()) {
                sb.append('\n');
                pad(sb, indent);
            }
            sb.append(']');
        } else {
            throw new IllegalArgumentException("cannot write " + v.getClass().getName() + " as JSON");
        }
    }

    private static String number(double d) {
        if (d == Math.rint(d) && Math.abs(d) < 1e15) {
            return Long.toString((long) d);
        }
        return String.format(java.util.Locale.ROOT, "%.3f", d);
    }

    private static void pad(StringBuilder sb, int indent) {
        sb.append("  ".repeat(indent));
    }

    private static void string(StringBuilder sb, String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (c < 0x20) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        sb.append('"');
    }
}
