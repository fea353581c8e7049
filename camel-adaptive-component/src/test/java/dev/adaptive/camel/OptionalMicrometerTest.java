package dev.adaptive.camel;

import dev.adaptive.testing.HidingClassLoader;
import dev.adaptive.time.Ticker;
import dev.adaptive.time.VirtualTime;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.apache.camel.CamelContext;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.time.Clock;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Micrometer and adaptive-micrometer are optional dependencies: with both hidden from the
 * component's class loader, every class of the component loads and links, and a pool builds its
 * engine, even with a {@code MeterRegistry} bean in the context, without meters and without a
 * {@link NoClassDefFoundError}.
 */
class OptionalMicrometerTest {

    @Test
    void aPoolStartsWithoutMicrometerOnTheClassPath() throws Exception {
        ClassLoader loader = new HidingClassLoader(getClass().getClassLoader(), "dev.adaptive.camel.", "io.micrometer.",
                "dev.adaptive.micrometer.");
        for (String name : new String[] {"AdaptiveComponent", "AdaptiveEndpoint", "AdaptiveProducer",
                "AdaptiveConsumer", "ExchangePool", "Submission", "ManagedAdaptivePool", "PoolMeters"}) {
            Class<?> c = Class.forName("dev.adaptive.camel." + name, true, loader);
            assertThat(c.getClassLoader()).isSameAs(loader);
        }
        Class<?> meters = Class.forName("dev.adaptive.camel.PoolMeters", true, loader);
        var present = meters.getDeclaredField("PRESENT");
        present.setAccessible(true);
        assertThat(present.getBoolean(null)).isFalse();

        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try (CamelContext context = new DefaultCamelContext()) {
            context.getRegistry().bind("meterRegistry", registry);
            Method listener = meters.getDeclaredMethod("listener", CamelContext.class);
            listener.setAccessible(true);
            assertThat(listener.invoke(null, context)).isNull();

            Class<?> configClass = Class.forName("dev.adaptive.camel.PoolConfig", true, loader);
            Method builder = configClass.getDeclaredMethod("builder");
            builder.setAccessible(true);
            Object configBuilder = builder.invoke(null);
            Method build = configBuilder.getClass().getDeclaredMethod("build");
            build.setAccessible(true);
            Object config = build.invoke(configBuilder);

            Class<?> poolClass = Class.forName("dev.adaptive.camel.ExchangePool", true, loader);
            Constructor<?> ctor = poolClass.getDeclaredConstructor(String.class, Supplier.class, Ticker.class,
                    dev.adaptive.time.Scheduler.class, Executor.class, Clock.class);
            ctor.setAccessible(true);
            VirtualTime time = new VirtualTime();
            Supplier<Object> configs = () -> config;
            Object pool = ctor.newInstance("plain", configs, time, time, (Executor) Runnable::run, Clock.systemUTC());
            Method engineListener = poolClass.getDeclaredMethod("engineListener",
                    Class.forName("dev.adaptive.camel.ExchangePool$EngineListener", true, loader));
            engineListener.setAccessible(true);
            engineListener.invoke(pool, listener.invoke(null, context));
            Method limiter = poolClass.getDeclaredMethod("limiter");
            limiter.setAccessible(true);
            assertThat(limiter.invoke(pool)).isNotNull(); // the engine is built
            Method close = poolClass.getDeclaredMethod("close");
            close.setAccessible(true);
            close.invoke(pool);
        }
        assertThat(registry.getMeters()).isEmpty();
    }

    @Test
    void withMicrometerPresentThePoolsAreMetered() {
        assertThat(PoolMeters.PRESENT).isTrue();
    }
}
