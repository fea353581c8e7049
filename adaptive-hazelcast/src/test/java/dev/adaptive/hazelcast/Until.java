package dev.adaptive.hazelcast;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/**
 * Waits, in real time and with a deadline, for a condition that other threads make true: it
 * checks every 20 ms on a monitor, and fails with the condition's name when the deadline
 * passes.
 */
final class Until {

    private static final Object TICK = new Object();

    private Until() {
    }

    static void met(String what, Duration timeout, BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new AssertionError("not within " + timeout + ": " + what);
            }
            synchronized (TICK) {
                try {
                    TICK.wait(Math.max(1, Math.min(20, left / 1_000_000)));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new AssertionError("interrupted while waiting for: " + what, e);
                }
            }
        }
    }
}
