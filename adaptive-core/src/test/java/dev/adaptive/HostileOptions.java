package dev.adaptive;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Feeds hostile values (negative, zero, extremes, NaN, infinities, overflowing durations) to every
 * public one-argument {@code int}, {@code long}, {@code double} or {@link Duration} option of a
 * builder, one at a time, then builds. The only acceptable outcomes are a built value or an
 * {@link IllegalArgumentException} whose message names the option and shows the value; anything
 * else (an {@link ArithmeticException} from an overflow, an NPE, a message that names another
 * option) is reported.
 */
public final class HostileOptions {

    /** Hostile values per parameter type. */
    public static final Map<Class<?>, List<Object>> VALUES = Map.of(
            int.class, List.of(-1, 0, Integer.MIN_VALUE, Integer.MAX_VALUE),
            long.class, List.of(-1L, 0L, Long.MIN_VALUE, Long.MAX_VALUE),
            double.class, List.of(Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, -1.0, 0.0, -0.0,
                    Double.MAX_VALUE, Double.MIN_VALUE, 1e-300),
            Duration.class, List.of(Duration.ZERO, Duration.ofNanos(-1), Duration.ofNanos(1),
                    Duration.ofSeconds(Long.MAX_VALUE, 999_999_999), Duration.ofSeconds(Long.MIN_VALUE),
                    Duration.ofDays(365L * 10_000)));

    private HostileOptions() {
    }

    /**
     * @param builder a fresh builder with any required options already set
     * @param build   builds it
     * @param skip    option names not to fuzz (e.g. ones whose bad values are the subject of another test)
     * @return one line per violation; empty when every outcome was a value or a named, clear IAE
     */
    public static <B> List<String> violations(Supplier<B> builder, Function<B, ?> build, String... skip) {
        List<String> out = new ArrayList<>();
        Class<?> type = builder.get().getClass();
        int fuzzed = 0;
        for (Method m : type.getMethods()) {
            if (m.getParameterCount() != 1 || Modifier.isStatic(m.getModifiers())
                    || m.getDeclaringClass() == Object.class || List.of(skip).contains(m.getName())) {
                continue;
            }
            List<Object> values = VALUES.get(m.getParameterTypes()[0]);
            if (values == null) {
                continue;
            }
            fuzzed++;
            for (Object value : values) {
                String what = type.getSimpleName() + "." + m.getName() + "(" + value + ")";
                try {
                    B b = builder.get();
                    try {
                        m.invoke(b, value);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                    build.apply(b);
                } catch (IllegalArgumentException e) {
                    String msg = String.valueOf(e.getMessage());
                    if (!msg.contains(m.getName())) {
                        out.add(what + ": IAE does not name the option: " + msg);
                    }
                } catch (Throwable e) {
                    out.add(what + ": " + e);
                }
            }
        }
        if (fuzzed == 0) {
            out.add(type.getName() + ": no numeric option found; the fuzz tested nothing");
        }
        return out;
    }
}
