package dev.adaptive.camel;

import dev.adaptive.config.ConfigOption;
import dev.adaptive.internal.DurationText;
import org.apache.camel.CamelContext;
import org.apache.camel.spi.PropertyConfigurer;
import org.apache.camel.spi.PropertyConfigurerGetter;

import java.util.Optional;

/**
 * Puts the core's strict reading of text in front of the configurers camel-component-maven-plugin
 * generates. Those hand text to Camel's type converter, which reads {@code abc} or {@code 1M} as
 * a zero duration, {@code 1h30x} as an hour, and takes {@code fıxed} (a dotless i) for
 * {@code FIXED}; so for every pool option (and the endpoint's {@code timeout}) text is read here,
 * as every face reads it ({@link ConfigOption#read}), the typed value goes on to the generated
 * configurer, and the text is kept so that messages quote it as typed. Everything else (bean
 * references, Camel's own options, the getters tooling uses) is the generated configurer's.
 * Stateless apart from its delegate; thread-safe.
 */
final class StrictConfigurer implements PropertyConfigurer, PropertyConfigurerGetter {

    private final PropertyConfigurer generated;
    private final AdaptiveComponent component;

    /**
     * @param generated the generated configurer
     * @param component the component whose named pools ({@code pools.<name>.<option>}) this binds,
     *                  or {@code null} for an endpoint configurer
     */
    StrictConfigurer(PropertyConfigurer generated, AdaptiveComponent component) {
        this.generated = generated;
        this.component = component;
    }

    @Override
    public boolean configure(CamelContext camelContext, Object target, String name, Object value, boolean ignoreCase) {
        if (value instanceof String text && !text.startsWith("#")) {
            Optional<ConfigOption> option = ConfigOption.find(name);
            PoolConfiguration pool = configurationOf(target);
            if (option.isPresent() && option.get().kind() != ConfigOption.Kind.BEAN && pool != null) {
                boolean done = generated.configure(camelContext, target, name, option.get().read(text), ignoreCase);
                if (done) {
                    pool.spelled(option.get().key(), text);
                }
                return done;
            }
            if (target instanceof AdaptiveEndpoint endpoint && "timeout".equalsIgnoreCase(name)) {
                boolean done = generated.configure(camelContext, target, name, DurationText.parse("timeout", text),
                        ignoreCase);
                endpoint.timeoutSpelled(text);
                return done;
            }
        }
        return generated.configure(camelContext, target, name, value, ignoreCase);
    }

    private static PoolConfiguration configurationOf(Object target) {
        if (target instanceof AdaptiveEndpoint e) {
            return e.getConfiguration();
        }
        if (target instanceof AdaptiveComponent c) {
            return c.getConfiguration();
        }
        return null;
    }

    private PropertyConfigurerGetter getter() {
        return (PropertyConfigurerGetter) generated;
    }

    @Override
    public Class<?> getOptionType(String name, boolean ignoreCase) {
        return getter().getOptionType(name, ignoreCase);
    }

    @Override
    public String[] getAutowiredNames() {
        return getter().getAutowiredNames();
    }

    @Override
    public Object getCollectionValueType(Object target, String name, boolean ignoreCase) {
        if (component != null && "pools".equalsIgnoreCase(name)) {
            // Camel's binding steps into pools.<name> through NamedPoolsConfigurer, found by this class.
            return NamedPools.class;
        }
        return getter().getCollectionValueType(target, name, ignoreCase);
    }

    @Override
    public Object getOptionValue(Object target, String name, boolean ignoreCase) {
        return getter().getOptionValue(target, name, ignoreCase);
    }
}
