package dev.adaptive.hazelcast;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The JSON text the coordinator stores: flat objects of strings and integers, and arrays of
 * such objects. Plain strings in the maps, so that any member, client or tool can hold and
 * read them; written and read here with the JDK alone, because the entry processors that use
 * it run on members that need not have anything but this module and Hazelcast.
 *
 * <p>Reading is strict: anything else (nesting, fractions, trailing text) is rejected with
 * {@link IllegalArgumentException}, and callers skip what they cannot read.
 */
final class FleetJson {

    /** One object of an array: its text as stored, and its fields. */
    record Element(String text, Map<String, Object> fields) {

        String string(String name) {
            Object v = fields.get(name);
            if (!(v instanceof String s)) {
                throw new IllegalArgumentException("field " + name + " is not a string: " + v);
            }
            return s;
        }

        long number(String name) {
            Object v = fields.get(name);
            if (!(v instanceof Long l)) {
                throw new IllegalArgumentException("field " + name + " is not an integer: " + v);
            }
            return l;
        }

        long number(String name, long absent) {
            return fields.containsKey(name) ? number(name) : absent;
        }
    }

    private final String in;
    private int pos;

    private FleetJson(String in) {
        this.in = in;
    }

    /**
     * @param nameValues field names and values in turn: each value a {@link String} or a
     *                   {@link Long}/{@link Integer}
     * @return the object's text, fields in the order given
     */
    static String object(Object... nameValues) {
        StringBuilder b = new StringBuilder("{");
        for (int i = 0; i < nameValues.length; i += 2) {
            if (i > 0) {
                b.append(',');
            }
            quote(b, (String) nameValues[i]);
            b.append(':');
            Object v = nameValues[i + 1];
            if (v instanceof String s) {
                quote(b, s);
            } else if (v instanceof Long || v instanceof Integer) {
                b.append(v);
            } else {
                throw new IllegalArgumentException("not a string or an integer: " + v);
            }
        }
        return b.append('}').toString();
    }

    /**
     * @param elements object texts
     * @return the array of them
     */
    static String array(List<String> elements) {
        return "[" + String.join(",", elements) + "]";
    }

    /**
     * @param text an array of flat objects
     * @return its elements, each with its text as it stands in {@code text}
     * @throws IllegalArgumentException if it is not such an array
     */
    static List<Element> parseArray(String text) {
        FleetJson p = new FleetJson(text);
        List<Element> out = new ArrayList<>();
        p.skipSpace();
        p.expect('[');
        p.skipSpace();
        if (p.peek() == ']') {
            p.pos++;
        } else {
            while (true) {
                p.skipSpace();
                int start = p.pos;
                Map<String, Object> fields = p.readObject();
                out.add(new Element(text.substring(start, p.pos), fields));
                p.skipSpace();
                if (p.peek() == ',') {
                    p.pos++;
                } else {
                    p.expect(']');
                    break;
                }
            }
        }
        p.end();
        return out;
    }

    /**
     * @param text one flat object
     * @return it
     * @throws IllegalArgumentException if it is not one
     */
    static Element parseObject(String text) {
        FleetJson p = new FleetJson(text);
        p.skipSpace();
        Map<String, Object> fields = p.readObject();
        p.end();
        return new Element(text, fields);
    }

    private Map<String, Object> readObject() {
        expect('{');
        Map<String, Object> fields = new LinkedHashMap<>();
        skipSpace();
        if (peek() == '}') {
            pos++;
            return fields;
        }
        while (true) {
            skipSpace();
            String name = readString();
            skipSpace();
            expect(':');
            skipSpace();
            char c = peek();
            Object value = c == '"' ? readString() : readLong();
            fields.put(name, value);
            skipSpace();
            if (peek() == ',') {
                pos++;
            } else {
                expect('}');
                return fields;
            }
        }
    }

    private String readString() {
        expect('"');
        StringBuilder b = new StringBuilder();
        while (true) {
            char c = next();
            if (c == '"') {
                return b.toString();
            }
            if (c < 0x20) {
                throw fail("control character in a string");
            }
            if (c != '\\') {
                b.append(c);
                continue;
            }
            char e = next();
            switch (e) {
                case '"', '\\', '/' -> b.append(e);
                case 'b' -> b.append('\b');
                case 'f' -> b.append('\f');
                case 'n' -> b.append('\n');
                case 'r' -> b.append('\r');
                case 't' -> b.append('\t');
                case 'u' -> {
                    if (pos + 4 > in.length()) {
                        throw fail("short \\u escape");
                    }
                    try {
                        b.append((char) Integer.parseInt(in.substring(pos, pos + 4), 16));
                    } catch (NumberFormatException bad) {
                        throw fail("bad \\u escape");
                    }
                    pos += 4;
                }
                default -> throw fail("bad escape \\" + e);
            }
        }
    }

    private Long readLong() {
        int start = pos;
        if (peek() == '-') {
            pos++;
        }
        while (pos < in.length() && Character.isDigit(in.charAt(pos))) {
            pos++;
        }
        try {
            return Long.parseLong(in.substring(start, pos));
        } catch (NumberFormatException bad) {
            throw fail("not an integer");
        }
    }

    /** @return {@code s} as a JSON string, its surrogates escaped: printable in any log, as stored */
    static String quoted(String s) {
        StringBuilder b = new StringBuilder(s.length() + 2);
        quote(b, s);
        return b.toString();
    }

    private static void quote(StringBuilder b, String s) {
        b.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                default -> {
                    if (c < 0x20 || Character.isSurrogate(c)) {
                        // Escaped surrogates too: Hazelcast stores strings as UTF-8, where a lone
                        // one (a node id cut in the middle of an emoji) would become '?', and a
                        // node would no longer find its own report.
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        b.append('"');
    }

    private void skipSpace() {
        while (pos < in.length() && " \t\r\n".indexOf(in.charAt(pos)) >= 0) {
            pos++;
        }
    }

    private char peek() {
        if (pos >= in.length()) {
            throw fail("unexpected end");
        }
        return in.charAt(pos);
    }

    private char next() {
        char c = peek();
        pos++;
        return c;
    }

    private void expect(char c) {
        if (next() != c) {
            throw fail("expected '" + c + "'");
        }
    }

    private void end() {
        skipSpace();
        if (pos != in.length()) {
            throw fail("trailing text");
        }
    }

    private IllegalArgumentException fail(String why) {
        return new IllegalArgumentException(why + " at " + pos + " of " + abbreviated(in));
    }

    private static String abbreviated(String s) {
        return s.length() <= 80 ? s : s.substring(0, 80) + "...";
    }
}
