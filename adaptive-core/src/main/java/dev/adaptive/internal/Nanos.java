package dev.adaptive.internal;

import java.time.Duration;

/**
 * Nanosecond arithmetic that saturates instead of overflowing, for every place the engine turns
 * a {@link Duration} into nanoseconds, adds a wait to a ticker reading or measures the time
 * between two readings. A ticker reading plus a wait beyond {@link Long#MAX_VALUE} is
 * {@link Long#MAX_VALUE}, as a virtual clock's due times are, never a wrapped negative number;
 * the time to a deadline far in the past is {@link Long#MIN_VALUE}, never a wrapped positive
 * one. Not API: its package is internal and may change without notice. Stateless.
 */
public final class Nanos {

    private Nanos() {
    }

    /**
     * @param d a duration
     * @return its nanoseconds; beyond the ~292 years a long holds, {@link Long#MAX_VALUE} or
     *         {@link Long#MIN_VALUE}
     */
    public static long of(Duration d) {
        try {
            return d.toNanos();
        } catch (ArithmeticException overflow) {
            return d.isNegative() ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
    }

    /**
     * @param a a reading or a duration
     * @param b a duration
     * @return {@code a + b}, saturated at {@link Long#MAX_VALUE} / {@link Long#MIN_VALUE}
     */
    public static long plus(long a, long b) {
        long sum = a + b;
        // Overflow only when both operands have the sign opposite to the result.
        if (((a ^ sum) & (b ^ sum)) < 0) {
            return b > 0 ? Long.MAX_VALUE : Long.MIN_VALUE;
        }
        return sum;
    }

    /**
     * @param from a reading
     * @param to   another reading
     * @return {@code to - from}, saturated: how long until {@code to}, negative if it is past
     */
    public static long between(long from, long to) {
        long diff = to - from;
        // Overflow only when the operands have different signs and the result has from's sign.
        if (((to ^ from) & (to ^ diff)) < 0) {
            return to > from ? Long.MAX_VALUE : Long.MIN_VALUE;
        }
        return diff;
    }
}
