package dev.adaptive.camel;

import org.apache.camel.CamelContext;
import org.apache.camel.spi.PropertyConfigurer;
import org.apache.camel.spi.annotations.Component;
import org.apache.camel.support.PluginHelper;

/**
 * Binds the pool options Camel's property binding reaches through a {@link PoolConfiguration}:
 * {@code camel.component.adaptive.configuration.max-delay=5s} (the catalog lists
 * {@code configuration} among the component's options) or {@code configuration.maxDelay=5s} in a
 * URI. Camel resolves it by the class name of {@link PoolConfiguration}
 * ({@code META-INF/services/org/apache/camel/configurer/dev.adaptive.camel.PoolConfiguration});
 * without it Camel set these by reflection through its own converter, which reads {@code abc}
 * as a zero duration, {@code 1h30x} as an hour, {@code +5} as 5 and a dotless {@code fıxed} as
 * {@code FIXED}. A pool option goes through the component's configurer, read as
 * {@code camel.component.adaptive.max-delay} is ({@link StrictConfigurer}); any other name is no
 * option of a pool's configuration. Not API: Camel instantiates it. Stateless; thread-safe.
 */
public final class PoolConfigurationConfigurer implements PropertyConfigurer {

    /**
     * The name Camel resolves the component's generated configurer by, as {@code DefaultComponent}
     * does: it is generated after the first compilation, so no code may name its class.
     */
    private static final String GENERATED = AdaptiveComponent.class.getAnnotation(Component.class).value()
            + "-component";

    /** Created by Camel's configurer resolver. */
    public PoolConfigurationConfigurer() {
    }

    @Override
    public boolean configure(CamelContext camelContext, Object target, String name, Object value, boolean ignoreCase) {
        if (!(target instanceof PoolConfiguration configuration) || PoolConfig.poolOption(name) == null) {
            return false;
        }
        PropertyConfigurer generated = PluginHelper.getConfigurerResolver(camelContext)
                .resolvePropertyConfigurer(GENERATED, camelContext);
        // The component's configurers set a pool option on the component's configuration: a
        // component of no context, holding this one, carries it to them, so that it is read by
        // the one strict reading (and its text kept for messages) rather than a second copy.
        AdaptiveComponent carrier = new AdaptiveComponent();
        carrier.setConfiguration(configuration);
        return new StrictConfigurer(generated, null).configure(camelContext, carrier, name, value, ignoreCase);
    }
}
