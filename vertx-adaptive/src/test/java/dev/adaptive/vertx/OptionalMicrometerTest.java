package dev.adaptive.vertx;

import dev.adaptive.testing.HidingClassLoader;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.micrometer.MicrometerMetricsOptions;
import io.vertx.micrometer.VertxPrometheusOptions;
import io.vertx.micrometer.backends.BackendRegistries;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * vertx-micrometer-metrics, Micrometer and adaptive-micrometer are optional dependencies: with
 * them hidden from the module's class loader, a limiter runs calls as before, without meters
 * and without a {@link NoClassDefFoundError}, even on a Vert.x whose Micrometer metrics are on.
 */
class OptionalMicrometerTest {

    @Test
    void aLimiterRunsWithoutMicrometerOnTheClassPath() throws Exception {
        ClassLoader loader = new HidingClassLoader(getClass().getClassLoader(), "dev.adaptive.vertx.",
                "io.micrometer.", "io.vertx.micrometer.", "dev.adaptive.micrometer.");
        Class<?> meters = Class.forName("dev.adaptive.vertx.impl.LimiterMeters", true, loader);
        var present = meters.getDeclaredField("PRESENT");
        present.setAccessible(true);
        assertThat(present.getBoolean(null)).isFalse();

        Vertx vertx = Vertx.vertx(new VertxOptions().setMetricsOptions(new MicrometerMetricsOptions().setEnabled(true)
                .setPrometheusOptions(new VertxPrometheusOptions().setEnabled(true))));
        try {
            Class<?> optionsClass = Class.forName("dev.adaptive.vertx.AdaptiveOptions", true, loader);
            Object options = optionsClass.getConstructor().newInstance();
            optionsClass.getMethod("setName", String.class).invoke(options, "hidden");
            Class<?> limiterClass = Class.forName("dev.adaptive.vertx.AdaptiveLimiter", true, loader);
            Object limiter = limiterClass.getMethod("create", Vertx.class, optionsClass).invoke(null, vertx, options);
            Supplier<Future<String>> task = () -> Future.succeededFuture("ok");
            Method execute = limiterClass.getMethod("execute", Supplier.class);
            assertThat(Await.result((Future<?>) execute.invoke(limiter, task))).isEqualTo("ok");
            assertThat(BackendRegistries.getDefaultNow().getMeters())
                    .noneMatch(m -> m.getId().getName().startsWith("adaptive."));
            Await.result((Future<?>) limiterClass.getMethod("close").invoke(limiter));
        } finally {
            Await.result(vertx.close());
        }
    }
}
