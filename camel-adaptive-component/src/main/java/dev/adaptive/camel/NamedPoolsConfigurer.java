package dev.adaptive.camel;

import org.apache.camel.CamelContext;
import org.apache.camel.spi.PropertyConfigurer;
import org.apache.camel.spi.PropertyConfigurerGetter;

import java.util.Map;

/**
 * Lets Camel's property binding step from the component's {@code pools} option into one named
 * pool ({@code pools.orders-api.max-limit=50}): Camel resolves it by the class name of
 * {@link NamedPools} ({@code META-INF/services/org/apache/camel/configurer/dev.adaptive.camel.NamedPools})
 * and asks it for the pool's map of options, which Camel then fills as a map. Not API: Camel
 * instantiates it. Stateless; thread-safe.
 */
public final class NamedPoolsConfigurer implements PropertyConfigurer, PropertyConfigurerGetter {

    /** Created by Camel's configurer resolver. */
    public NamedPoolsConfigurer() {
    }

    @Override
    public boolean configure(CamelContext camelContext, Object target, String name, Object value, boolean ignoreCase) {
        if (target instanceof NamedPools pools) {
            pools.put(name, value);
            return true;
        }
        return false;
    }

    @Override
    public Class<?> getOptionType(String name, boolean ignoreCase) {
        return Map.class;
    }

    @Override
    public Object getOptionValue(Object target, String name, boolean ignoreCase) {
        return target instanceof NamedPools pools ? pools.get(name) : null;
    }

    @Override
    public Object getCollectionValueType(Object target, String name, boolean ignoreCase) {
        return null;
    }
}
