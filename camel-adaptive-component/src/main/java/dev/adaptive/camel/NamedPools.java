package dev.adaptive.camel;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The component's {@code pools} option: pool name to that pool's options (option name to
 * value). Camel's property binding walks {@code pools.orders-api.max-limit=50} one key at a time
 * and can only step into a value that exists, so reading an absent pool's name creates its (empty)
 * map; Camel Main camel-cases the keys first, which is why pool names match relaxed
 * ({@code orders-api} is also {@code ordersApi}). A flat entry {@code "orders-api.maxLimit" -> 50},
 * as a program may put it, is read the same way. Not thread-safe: Camel fills it while it
 * configures the component.
 */
final class NamedPools extends LinkedHashMap<String, Object> {

    private static final long serialVersionUID = 1L;

    @Override
    public Object get(Object key) {
        Object v = super.get(key);
        if (v == null && key instanceof String name && !name.contains(".")) {
            v = new LinkedHashMap<String, Object>();
            put(name, v);
        }
        return v;
    }

    /** @return the options of one pool by option name, from nested maps and flat {@code name.option} keys alike */
    static Map<String, Map<String, Object>> byPool(Map<String, Object> pools) {
        Map<String, Map<String, Object>> out = new LinkedHashMap<>();
        pools.forEach((key, value) -> {
            if (value instanceof Map<?, ?> options) {
                options.forEach((option, v) -> out.computeIfAbsent(key, k -> new LinkedHashMap<>())
                        .put(String.valueOf(option), v));
                return;
            }
            int dot = key.lastIndexOf('.');
            if (dot <= 0 || dot == key.length() - 1) {
                throw new IllegalArgumentException("pools." + key + " must be pools.<pool name>.<option>, as"
                        + " camel.component.adaptive.pools.orders-api.max-limit=50");
            }
            out.computeIfAbsent(key.substring(0, dot), k -> new LinkedHashMap<>()).put(key.substring(dot + 1), value);
        });
        return out;
    }
}
