package dev.adaptive.vertx;

import dev.adaptive.config.AdaptiveConfig;
import dev.adaptive.config.ConfigOption;
import dev.adaptive.internal.ConfigText;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The checks the converters vertx-codegen generates leave out: they skip an unknown key and a
 * value of the wrong type in silence, and cut {@code 5.5} to 5. Before a data object's JSON
 * constructor hands its JSON to the converter, this rejects an unknown key (naming it and the
 * known ones) and reads every value strictly (naming the option and the value): the core's
 * options with the core's rules and messages ({@link ConfigOption#read},
 * {@link AdaptiveConfig.Builder#set}), the face's own by their shape. Durations may be whole
 * milliseconds or text ({@code "5s"}); what goes on to the converter is milliseconds. A list
 * of statuses may be one text ({@code "429,503"}), read by the core's reader of such lists;
 * what goes on is an array. Stateless.
 */
final class StrictJson {

    /** The shapes of the face's own options. */
    enum Shape {
        /** A string. */
        TEXT,
        /** A string or null. */
        NULLABLE_TEXT,
        /** true or false. */
        BOOLEAN,
        /** Whole milliseconds, or duration text. */
        MILLIS,
        /** A JSON object, checked by the nested data object's own constructor. */
        OBJECT,
        /**
         * HTTP statuses: an array of whole numbers, each a number or its digits as text; one
         * text, comma-separated, as the core reads a list of statuses
         * ({@link ConfigText#statusCodes}); or a lone whole number, a list of one.
         */
        STATUSES
    }

    private StrictJson() {
    }

    /**
     * @param json the JSON a data object is built from
     * @param core the core options the data object takes, under their core names
     * @param own  the data object's own options and their shapes
     * @return the same options, values read and durations in milliseconds, for the converter
     * @throws IllegalArgumentException on an unknown key, a wrong type or, for core options, a value out of range
     */
    static JsonObject check(JsonObject json, Set<ConfigOption> core, Map<String, Shape> own) {
        JsonObject out = new JsonObject();
        for (Map.Entry<String, Object> e : json) {
            String key = e.getKey();
            Object value = e.getValue();
            ConfigOption option = core.stream().filter(o -> o.key().equals(key)).findFirst().orElse(null);
            if (option != null) {
                if (value == null && option == ConfigOption.INITIAL_LIMIT) {
                    continue;   // unset, as toJson() leaves it
                }
                Object typed = option.read(value);
                AdaptiveConfig.builder().set(option, value);
                out.put(key, typed instanceof Duration d ? (Object) wholeMillis(key, value, d)
                        : typed instanceof Enum<?> c ? ConfigText.enumName(c) : typed);
            } else if (own.containsKey(key)) {
                out.put(key, own(key, value, own.get(key)));
            } else {
                Set<String> known = new TreeSet<>(own.keySet());
                core.forEach(o -> known.add(o.key()));
                throw new IllegalArgumentException("unknown option '" + key + "' (known: " + String.join(", ", known)
                        + ")");
            }
        }
        return out;
    }

    /**
     * A data object holds durations in whole milliseconds: a finer one would be cut, and a
     * {@code taskTimeout} of half a millisecond would become 0, no timeout at all.
     */
    private static long wholeMillis(String key, Object value, Duration d) {
        if (d.toNanosPart() % 1_000_000 != 0) {
            throw new IllegalArgumentException(key + " must be a whole number of milliseconds: " + value);
        }
        return d.toMillis();
    }

    private static Object own(String key, Object value, Shape shape) {
        return switch (shape) {
            case TEXT -> ConfigText.text(key, value);
            case NULLABLE_TEXT -> value == null ? null : ConfigText.text(key, value);
            case BOOLEAN -> ConfigText.bool(key, value);
            case MILLIS -> wholeMillis(key, value, ConfigText.duration(key, value));
            case OBJECT -> {
                if (!(value instanceof JsonObject)) {
                    throw new IllegalArgumentException(key + " must be a JSON object: " + value);
                }
                yield value;
            }
            case STATUSES -> {
                JsonArray ints = new JsonArray();
                if (value instanceof JsonArray a) {
                    for (Object o : a) {
                        // Each element as every whole number of the options is read ("maxLimit": "50"):
                        // a number, or ASCII digits as text.
                        ints.add(ConfigText.integer(key, o));
                    }
                } else if (value instanceof String text) {
                    // A list from a properties file or an environment variable is one text
                    // ("429,503"): read as the Camel component reads rateLimitStatusCodes.
                    ConfigText.statusCodes(key, text).forEach(ints::add);
                } else if (value instanceof Number) {
                    // vertx-config turns the text "429" of a one-status list into a number.
                    ints.add(ConfigText.integer(key, value));
                } else {
                    throw new IllegalArgumentException(key
                            + " must be a whole number, an array of them or comma-separated text: " + value);
                }
                yield ints;
            }
        };
    }
}
