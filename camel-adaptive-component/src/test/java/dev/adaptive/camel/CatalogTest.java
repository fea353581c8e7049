package dev.adaptive.camel;

import dev.adaptive.config.ConfigOption;
import dev.adaptive.docs.Snippets;
import dev.adaptive.internal.ConfigText;
import org.apache.camel.CamelContext;
import org.apache.camel.CatalogCamelContext;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.spi.EndpointUriFactory;
import org.apache.camel.util.json.JsonObject;
import org.apache.camel.util.json.Jsoner;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What Camel's tooling sees comes from camel-component-maven-plugin (the catalog JSON, the
 * configurers, the URI factory), and it matches the core's options model and the component page.
 */
class CatalogTest {

    /** Options every Camel endpoint inherits; the component page does not repeat them. */
    private static final Set<String> CAMELS_OWN = Set.of("bridgeErrorHandler", "exceptionHandler", "exchangePattern",
            "lazyStartProducer", "autowiredEnabled");

    private static final String NOTE = "Default value notice: ";

    private CamelContext camel;
    private JsonObject catalog;

    @BeforeEach
    void start() throws Exception {
        camel = new DefaultCamelContext();
        camel.start();
        catalog = (JsonObject) Jsoner.deserialize(((CatalogCamelContext) camel).getComponentParameterJsonSchema("adaptive"));
    }

    @AfterEach
    void stop() throws Exception {
        camel.close();
    }

    @Test
    void camelServesTheGeneratedCatalogWithComponentProperties() {
        assertThat(section("component")).containsEntry("scheme", "adaptive").containsEntry("syntax", "adaptive:name")
                .containsEntry("groupId", "dev.adaptive").containsEntry("artifactId", "camel-adaptive-component");
        assertThat(section("componentProperties")).containsKeys("configuration", "pools", "maxLimit", "coordinator");
        assertThat(section("headers")).containsKeys(AdaptiveConstants.ATTEMPTS, AdaptiveConstants.CONCURRENCY);
        for (String own : Set.of("lazyStartProducer", "bridgeErrorHandler")) {
            assertThat(property("properties", own)).as(own).containsEntry("defaultValue", false);
        }
        assertThat(property("componentProperties", "coordinator")).containsEntry("autowired", true);
    }

    @Test
    void everyCoreOptionIsAnEndpointAndAComponentOptionWithTheCoresNameDefaultAndValues() {
        for (ConfigOption o : ConfigOption.values()) {
            for (String section : new String[]{"properties", "componentProperties"}) {
                Map<String, Object> p = property(section, o.key());
                assertThat(p).as("%s.%s", section, o.key()).isNotNull();
                Object defaultValue = o.defaultValue();
                if (defaultValue == null) {
                    assertThat(p).as("%s.%s has no default", section, o.key()).doesNotContainKey("defaultValue");
                } else {
                    assertThat(String.valueOf(p.get("defaultValue"))).as("%s.%s default", section, o.key())
                            .isEqualTo(ConfigOption.text(defaultValue));
                }
                o.enumType().ifPresent(type -> assertThat(p.get("enum")).as("%s.%s values", section, o.key())
                        .isEqualTo(ConfigText.enumNames(type)));
                if (o.kind() == ConfigOption.Kind.DURATION) {
                    assertThat(p).containsEntry("type", "duration");
                }
            }
        }
    }

    @Test
    void theComponentPageListsEveryOptionOfTheCatalogWithItsDefault() throws Exception {
        Map<String, String> documented = Snippets.optionRows("docs/camel.md");
        Set<String> options = new TreeSet<>(section("properties").keySet());
        options.addAll(section("componentProperties").keySet());
        options.removeAll(CAMELS_OWN);
        options.remove("configuration");
        for (String option : options) {
            Map<String, Object> p = property("properties", option) != null ? property("properties", option)
                    : property("componentProperties", option);
            assertThat(documented).as("a row for option %s in docs/camel.md", option).containsKey(option);
            String cell = documented.get(option);
            if (p.containsKey("defaultValue")) {
                assertThat(cell).as("default of %s", option).startsWith(String.valueOf(p.get("defaultValue")));
            } else if (String.valueOf(p.get("description")).contains(NOTE)) {
                // The plugin writes an annotation's defaultValueNote into the description.
                String note = String.valueOf(p.get("description"));
                assertThat(cell).as("default of %s", option).isEqualTo(note.substring(note.indexOf(NOTE) + NOTE.length()));
            } else {
                assertThat(cell).as("default of %s", option).startsWith("none");
            }
        }
    }

    @Test
    void theGeneratedUriFactoryAssemblesThePathFromParameters() throws Exception {
        EndpointUriFactory factory = camel.getCamelContextExtension().getEndpointUriFactory("adaptive");
        assertThat(factory).isNotNull();
        Map<String, Object> parameters = new LinkedHashMap<>();
        parameters.put("name", "orders-api");
        parameters.put("maxLimit", 50);
        assertThat(factory.buildUri("adaptive", parameters, false)).isEqualTo("adaptive:orders-api?maxLimit=50");
        assertThat(factory.propertyNames()).contains("maxLimit", "timeout", "synchronous");
    }

    @SuppressWarnings("unchecked")
    private Map<String, Object> section(String name) {
        return (Map<String, Object>) catalog.get(name);
    }

    @SuppressWarnings("unchecked")
    private Map<String, Object> property(String section, String name) {
        Map<String, Object> all = section(section);
        return all == null ? null : (Map<String, Object>) all.get(name);
    }
}
