package dev.adaptive.camel;

import dev.adaptive.Limiter;
import dev.adaptive.fleet.FleetMember;
import dev.adaptive.micrometer.LimiterMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.camel.CamelContext;
import org.apache.camel.spi.Registry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The only class that names Micrometer and adaptive-micrometer, both optional dependencies: it
 * is loaded only after {@link #PRESENT} found them on the class path, so the component runs
 * without them. Binds a pool's limiter to the {@link MeterRegistry} of the Camel context's
 * registry: the bean named {@code meterRegistry}, else the one named {@code metricsRegistry}
 * (camel-micrometer's name), else the only {@code MeterRegistry} bean; none, no meters; several,
 * none of them named so, no meters and a warning.
 */
final class PoolMeters {

    private static final Logger LOG = LoggerFactory.getLogger(PoolMeters.class);

    /** Whether Micrometer and adaptive-micrometer are both on the class path. */
    static final boolean PRESENT = Presence.of("io.micrometer.core.instrument.MeterRegistry")
            && Presence.of("dev.adaptive.micrometer.LimiterMetrics");

    private PoolMeters() {
    }

    /**
     * @param context the pool's Camel context
     * @return what binds a pool's meters when its engine is built, or {@code null} without Micrometer
     */
    static ExchangePool.EngineListener listener(CamelContext context) {
        return PRESENT ? (limiter, fleet) -> Bind.bind(context, limiter, fleet) : null;
    }

    /** Checks a class without naming it in a signature, so that this class loads without Micrometer. */
    private static final class Presence {
        static boolean of(String className) {
            try {
                Class.forName(className, false, PoolMeters.class.getClassLoader());
                return true;
            } catch (ClassNotFoundException | LinkageError e) {
                return false;
            }
        }
    }

    /** Loaded at the first bind, hence only when {@link #PRESENT}. */
    private static final class Bind {
        static AutoCloseable bind(CamelContext context, Limiter limiter, FleetMember fleet) {
            MeterRegistry registry = find(context.getRegistry());
            if (registry == null) {
                int beans = context.getRegistry().findByType(MeterRegistry.class).size();
                if (beans > 1) {
                    // Several, none under a name it knows: which one is meant is the user's call.
                    LOG.warn("{} runs without meters: the registry holds {} MeterRegistry beans and none is named"
                            + " meterRegistry or metricsRegistry; bind the one to use under either name", limiter.name(),
                            beans);
                }
                return null;
            }
            LimiterMetrics metrics = LimiterMetrics.builder(limiter).tag("camelContext", context.getName())
                    .fleet(fleet).build();
            metrics.bindTo(registry);
            LOG.debug("Meters of {} bound to {}", limiter.name(), registry);
            return metrics;
        }

        private static MeterRegistry find(Registry registry) {
            for (String name : new String[] {"meterRegistry", "metricsRegistry"}) {
                if (registry.lookupByName(name) instanceof MeterRegistry r) {
                    return r;
                }
            }
            return registry.findSingleByType(MeterRegistry.class);
        }
    }
}
