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
 * <p>Reading is forward compatible, for nodes of several versions sharing the maps during a
 * rolling upgrade: any JSON (RFC 8259) is read, so a field of a later version, whatever its
 * type (string, number, {@code true}/{@code false}, {@code null}, object, array), is ignored
 * by whoever does not know it, and an element that is not an object is only one unreadable
 * element. What the coordinator reads is still checked where it reads it: a field it knows
 * holding another type than its own (a fraction, an integer beyond {@code long}, a boolean,
 * {@code null}, an object, an array where a string or an integer belongs), or given twice,
 * fails that read with {@link IllegalArgumentException} instead of passing for absent. Text
 * that is not JSON, or nests deeper than {@value #MAX_DEPTH} levels, is rejected whole with
 * {@link IllegalArgumentException}; callers skip what they cannot read.
 */
final class FleetJson {

    /** How deep values may nest: far beyond any field a version writes, short of any stack's depth. */
    static final int MAX_DEPTH = 64;

    /**
     * One element of an array (or a whole object): its text as stored, and its fields, each a
     * {@link String}, a {@link Long} or an {@link Other}; none if it is not an object.
     */
    record Element(String text, Map<String, Object> fields) {

        /** @throws IllegalArgumentException if the field is absent, given twice or not a string */
        String string(String name) {
            Object v = fields.get(name);
            if (!(v instanceof String s)) {
                throw new IllegalArgumentException("field " + name + " is not a string: " + v);
            }
            return s;
        }

        /** @throws IllegalArgumentException if the field is absent, given twice or not an integer within long */
        long number(String name) {
            Object v = fields.get(name);
            if (!(v instanceof Long l)) {
                throw new IllegalArgumentException("field " + name + " is not an integer: " + v);
            }
            return l;
        }

        /**
         * @return the field's integer, or {@code absent} if the field is absent (only then: a
         *         field that is there holds an integer or fails)
         * @throws IllegalArgumentException if the field is there and given twice or not an integer
         */
        long number(String name, long absent) {
            return fields.containsKey(name) ? number(name) : absent;
        }
    }

    /**
     * A value that is neither a string nor an integer within {@code long} (a fraction, a larger
     * integer, a literal, an object, an array), or the mark of a name given twice. Kept, not
     * dropped, so that a known field holding one fails its read rather than passing for absent.
     *
     * @param json the value's text, or what it is, as an error names it
     */
    record Other(String json) {
        @Override
        public String toString() {
            return json;
        }
    }

    /** Two values under one name: which one the writer meant is unknown, so neither is read. */
    private static final Other TWICE = new Other("(a name given twice)");

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
     * @param text a JSON array
     * @return its elements, each with its text as it stands in {@code text}; an element that is
     *         not an object has no fields
     * @throws IllegalArgumentException if it is not a JSON array
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
                Map<String, Object> fields = Map.of(); // an element of another kind has no field
                if (p.peek() == '{') {
                    fields = p.readObject(1);
                } else {
                    p.readValue(1);
                }
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
     * @param text one JSON object
     * @return it
     * @throws IllegalArgumentException if it is not one
     */
    static Element parseObject(String text) {
        FleetJson p = new FleetJson(text);
        p.skipSpace();
        Map<String, Object> fields = p.readObject(0);
        p.end();
        return new Element(text, fields);
    }

    /** Reads an object at {@code depth} (the top value's is 0); its fields' values are one deeper. */
    private Map<String, Object> readObject(int depth) {
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
            Object value = readValue(depth + 1);
            fields.merge(name, value, (first, second) -> TWICE);
            skipSpace();
            if (peek() == ',') {
                pos++;
            } else {
                expect('}');
                return fields;
            }
        }
    }

    /** @return a string, a {@link Long}, or an {@link Other} with the value's text */
    private Object readValue(int depth) {
        if (depth > MAX_DEPTH) {
            throw fail("values nested deeper than " + MAX_DEPTH + " levels");
        }
        char c = peek();
        if (c == '"') {
            return readString();
        }
        if (c == '-' || (c >= '0' && c <= '9')) {
            return readNumber();
        }
        int start = pos;
        switch (c) {
            case '{' -> readObject(depth);
            case '[' -> readArray(depth);
            case 't' -> literal("true");
            case 'f' -> literal("false");
            case 'n' -> literal("null");
            default -> throw fail("unexpected '" + c + "'");
        }
        return new Other(in.substring(start, pos));
    }

    private void readArray(int depth) {
        expect('[');
        skipSpace();
        if (peek() == ']') {
            pos++;
            return;
        }
        while (true) {
            skipSpace();
            readValue(depth + 1);
            skipSpace();
            if (peek() == ',') {
                pos++;
            } else {
                expect(']');
                return;
            }
        }
    }

    private void literal(String word) {
        if (!in.startsWith(word, pos)) {
            throw fail("not a JSON value");
        }
        pos += word.length();
    }

    /**
     * Reads a number as RFC 8259 writes it: {@code -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?}.
     *
     * @return a {@link Long} for an integer within long, an {@link Other} for any other number
     */
    private Object readNumber() {
        int start = pos;
        if (peek() == '-') {
            pos++;
        }
        if (peek() == '0') {
            pos++;
        } else {
            digits();
        }
        boolean integer = true;
        if (pos < in.length() && in.charAt(pos) == '.') {
            pos++;
            digits();
            integer = false;
        }
        if (pos < in.length() && (in.charAt(pos) == 'e' || in.charAt(pos) == 'E')) {
            pos++;
            if (peek() == '+' || peek() == '-') {
                pos++;
            }
            digits();
            integer = false;
        }
        String text = in.substring(start, pos);
        if (integer) {
            try {
                return Long.parseLong(text);
            } catch (NumberFormatException beyondLong) {
                // a valid JSON integer, just not one a known field can hold
            }
        }
        return new Other(text);
    }

    /** Reads one digit or more. */
    private void digits() {
        if (!isDigit(peek())) {
            throw fail("expected a digit");
        }
        while (pos < in.length() && isDigit(in.charAt(pos))) {
            pos++;
        }
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
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
                    int code = 0;
                    for (int i = 0; i < 4; i++) {
                        // Four ASCII hex digits exactly: Integer.parseInt would also take a
                        // sign, and other scripts' digits.
                        char h = next();
                        int digit = isDigit(h) ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10
                                : h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
                        if (digit < 0) {
                            throw fail("bad \\u escape");
                        }
                        code = code * 16 + digit;
                    }
                    b.append((char) code);
                }
                default -> throw fail("bad escape \\" + e);
            }
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
