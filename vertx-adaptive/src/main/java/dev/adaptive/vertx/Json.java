package dev.adaptive.vertx;

import io.vertx.core.json.JsonObject;

/**
 * Typed reads of configuration JSON that fail with an {@link IllegalArgumentException} naming the
 * key and the value, instead of a bare {@link ClassCastException} from {@link JsonObject}.
 */
final class Json {

    private Json() {
    }

    static String string(JsonObject json, String key) {
        Object v = json.getValue(key);
        if (!(v instanceof String s)) {
            throw wrongType(key, v, "a string");
        }
        return s;
    }

    static String nullableString(JsonObject json, String key) {
        Object v = json.getValue(key);
        return v == null ? null : string(json, key);
    }

    static int integer(JsonObject json, String key) {
        long v = longValue(json, key);
        if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(key + " must fit in an int: " + v);
        }
        return (int) v;
    }

    static long longValue(JsonObject json, String key) {
        Object v = json.getValue(key);
        if (v instanceof Integer || v instanceof Long || v instanceof Short || v instanceof Byte) {
            return ((Number) v).longValue();
        }
        // A JSON number written as 5.0 is still a whole number; 5.5 is not.
        if (v instanceof Number n && n.doubleValue() == Math.rint(n.doubleValue())
                && Math.abs(n.doubleValue()) < 9.0e15) {
            return n.longValue();
        }
        throw wrongType(key, v, "a whole number");
    }

    static double doubleValue(JsonObject json, String key) {
        Object v = json.getValue(key);
        if (!(v instanceof Number n)) {
            throw wrongType(key, v, "a number");
        }
        return n.doubleValue();
    }

    static boolean bool(JsonObject json, String key) {
        Object v = json.getValue(key);
        if (!(v instanceof Boolean b)) {
            throw wrongType(key, v, "true or false");
        }
        return b;
    }

    private static IllegalArgumentException wrongType(String key, Object value, String expected) {
        return new IllegalArgumentException(key + " must be " + expected + ": " + value);
    }
}
