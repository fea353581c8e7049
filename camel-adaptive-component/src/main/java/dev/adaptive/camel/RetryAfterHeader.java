package dev.adaptive.camel;

import java.util.Collection;
import java.util.Map;

/**
 * Finds the {@code Retry-After} value (or any other field's) among response headers, whatever
 * their casing: HTTP field names are case-insensitive and servers and clients disagree on how
 * to spell them ({@code Retry-After}, {@code retry-after}, {@code Retry-after}). Stateless.
 */
final class RetryAfterHeader {

    static final String NAME = "Retry-After";

    private RetryAfterHeader() {
    }

    /**
     * @param headers response headers; values may be strings or collections of them; may be {@code null}
     * @return the first value, or {@code null} if absent
     */
    static String find(Map<String, ?> headers) {
        return find(headers, NAME);
    }

    /**
     * @param headers response headers; values may be strings or collections of them; may be {@code null}
     * @param name    the field's name, in any case
     * @return the first value, or {@code null} if absent
     */
    static String find(Map<String, ?> headers, String name) {
        if (headers == null || headers.isEmpty()) {
            return null;
        }
        Object v = headers.get(name);
        if (v == null) {
            v = headers.get(name.toLowerCase(java.util.Locale.ROOT));
        }
        if (v == null) {
            // A case-sensitive map with yet another spelling.
            for (Map.Entry<String, ?> e : headers.entrySet()) {
                if (name.equalsIgnoreCase(e.getKey())) {
                    v = e.getValue();
                    break;
                }
            }
        }
        return first(v);
    }

    private static String first(Object v) {
        if (v instanceof Collection<?> c) {
            return c.isEmpty() ? null : first(c.iterator().next());
        }
        if (v instanceof Object[] a) {
            return a.length == 0 ? null : first(a[0]);
        }
        return v == null ? null : v.toString();
    }
}
