package dev.adaptive.vertx;

import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Invariant 6 of docs/reliability.md for the Vert.x data objects: every numeric setter of {@link AdaptiveOptions} and
 * {@link AdaptiveProxyOptions} ({@code AdaptiveWebClientOptions} has none) fed negative, zero, extreme,
 * NaN and infinite values either keeps the value (and the JSON form round-trips it) or throws an
 * {@link IllegalArgumentException} naming the option; never another exception.
 */
class HostileOptionsTest {

    private static final Map<Class<?>, List<Object>> VALUES = Map.of(
            int.class, List.of(-1, 0, Integer.MIN_VALUE, Integer.MAX_VALUE),
            long.class, List.of(-1L, 0L, Long.MIN_VALUE, Long.MAX_VALUE),
            double.class, List.of(Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, -1.0, -0.0,
                    Double.MAX_VALUE, Double.MIN_VALUE));

    @Test
    void adaptiveOptions() {
        assertThat(violations(AdaptiveOptions::new, o -> new AdaptiveOptions(o.toJson()))).isEmpty();
    }

    @Test
    void proxyOptions() {
        assertThat(violations(AdaptiveProxyOptions::new, o -> new AdaptiveProxyOptions(o.toJson()))).isEmpty();
    }

    /** Data objects with a JSON constructor and {@code toJson()}. */
    interface JsonRoundTrip<T> {
        Object apply(T options);
    }

    private static <T> List<String> violations(Supplier<T> fresh, JsonRoundTrip<T> roundTrip) {
        List<String> out = new ArrayList<>();
        int fuzzed = 0;
        Class<?> type = fresh.get().getClass();
        for (Method m : type.getMethods()) {
            if (!m.getName().startsWith("set") || m.getParameterCount() != 1) {
                continue;
            }
            List<Object> values = VALUES.get(m.getParameterTypes()[0]);
            if (values == null) {
                continue;
            }
            fuzzed++;
            String option = Character.toLowerCase(m.getName().charAt(3)) + m.getName().substring(4);
            for (Object value : values) {
                String what = type.getSimpleName() + "." + m.getName() + "(" + value + ")";
                try {
                    T o = fresh.get();
                    try {
                        m.invoke(o, value);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                    Object back = roundTrip.apply(o);
                    JsonObject a = (JsonObject) type.getMethod("toJson").invoke(o);
                    JsonObject b = (JsonObject) type.getMethod("toJson").invoke(back);
                    if (!a.equals(b)) {
                        out.add(what + ": JSON does not round-trip: " + a + " vs " + b);
                    }
                } catch (IllegalArgumentException e) {
                    if (!String.valueOf(e.getMessage()).contains(option)) {
                        out.add(what + ": IAE does not name " + option + ": " + e.getMessage());
                    }
                } catch (Throwable e) {
                    out.add(what + ": " + e);
                }
            }
        }
        if (fuzzed == 0) {
            out.add(type.getName() + ": no numeric setter; the fuzz tested nothing");
        }
        return out;
    }
}
