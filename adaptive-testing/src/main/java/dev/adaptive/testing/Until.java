package dev.adaptive.testing;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/**
 * Waits, in real time and with a deadline, for a condition that other threads make true: it
 * checks every 20 ms on a monitor, and fails with the condition's name when the deadline
 * passes. For loopback integration tests only (real servers, real Camel contexts, real
 * clusters), where the event under test happens on another thread; behaviour tests advance
 * virtual time instead. Give a generous deadline: a met condition returns at once, so a long
 * deadline costs nothing on a healthy run.
 */
public final class Until {

    private static final Object TICK = new Object();

    private Until() {
    }

    /**
     * Returns as soon as {@code condition} holds.
     *
     * @param what      the condition, in words, for the failure message
     * @param timeout   how long to wait at most
     * @param condition checked on the calling thread, at once and then every 20 ms
     * @throws AssertionError when the deadline passes or the thread is interrupted
     */
    public static void met(String what, Duration timeout, BooleanSupplier condition) {
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
