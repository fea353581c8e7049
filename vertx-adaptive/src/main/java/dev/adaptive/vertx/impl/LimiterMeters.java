package dev.adaptive.vertx.impl;

import dev.adaptive.Limiter;
import dev.adaptive.micrometer.LimiterMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.micrometer.backends.BackendRegistries;

import java.lang.System.Logger.Level;

/**
 * Binds a limiter's meters to the registry of Vert.x's Micrometer metrics
 * ({@link BackendRegistries#getDefaultNow()}) when they are enabled. The only class of the module
 * that names Micrometer, vertx-micrometer-metrics and adaptive-micrometer, all optional: its
 * nested {@code Bind} is loaded only after {@link #PRESENT} found them, so the module runs
 * without them.
 */
final class LimiterMeters {

    /** Whether vertx-micrometer-metrics and adaptive-micrometer are on the class path. */
    static final boolean PRESENT = present("io.vertx.micrometer.backends.BackendRegistries")
            && present("dev.adaptive.micrometer.LimiterMetrics") && present("io.micrometer.core.instrument.MeterRegistry");

    private LimiterMeters() {
    }

    private static boolean present(String className) {
        try {
            Class.forName(className, false, LimiterMeters.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /**
     * @param vertx   the limiter's Vert.x
     * @param limiter the limiter
     * @return what removes the meters, or {@code null} when Micrometer metrics are off or absent
     */
    static AutoCloseable bind(Vertx vertx, Limiter limiter) {
        if (!PRESENT || !vertx.isMetricsEnabled()) {
            return null;
        }
        try {
            return Bind.bind(limiter);
        } catch (Throwable broken) {
            // Meters are an observer: the limiter runs without them rather than fail its creation.
            System.getLogger("dev.adaptive.vertx").log(Level.WARNING, "adaptive limiter '" + limiter.name()
                    + "' runs without its meters: binding them failed", broken);
            return null;
        }
    }

    /** Loaded at the first bind, hence only when {@link #PRESENT}. */
    private static final class Bind {
        static AutoCloseable bind(Limiter limiter) {
            MeterRegistry registry = BackendRegistries.getDefaultNow();
            return registry == null ? null : LimiterMetrics.bind(limiter, registry);
        }
    }
}
