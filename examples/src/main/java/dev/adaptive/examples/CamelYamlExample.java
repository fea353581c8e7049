package dev.adaptive.examples;

import dev.adaptive.camel.AdaptiveComponent;
import dev.adaptive.camel.AdaptiveStats;
import org.apache.camel.CamelContext;
import org.apache.camel.component.http.HttpComponent;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.PluginHelper;
import org.apache.camel.support.ResourceHelper;

import java.util.List;
import java.util.Properties;
import java.util.stream.IntStream;

/**
 * The same routes as {@link CamelJavaDslExample}, written in the YAML DSL
 * ({@code src/main/resources/camel/orders.camel.yaml}) and loaded with Camel's routes loader;
 * the API's address is the property {@code api.url}.
 *
 * <pre>java dev.adaptive.examples.CamelYamlExample [base-url]</pre>
 */
public final class CamelYamlExample {

    static final String ROUTES = "classpath:camel/orders.camel.yaml";

    private CamelYamlExample() {
    }

    /**
     * @param args optional base URL of the API; default: an embedded flaky server
     * @throws Exception when Camel cannot start or the routes cannot be read
     */
    public static void main(String[] args) throws Exception {
        try (ExampleTarget where = ExampleTarget.fromArgs(args);
             CamelContext camel = new DefaultCamelContext()) {
            Properties props = new Properties();
            props.setProperty("api.url", where.baseUrl());
            camel.getPropertiesComponent().setInitialProperties(props);
            // camel-http retries 429s itself on http and https unless told not to, and must have at least
            // maxLimit connections per host (application.properties: camel.component.http.*, camel.component.https.*)
            for (String scheme : List.of("http", "https")) {
                HttpComponent http = camel.getComponent(scheme, HttpComponent.class);
                http.setAutomaticRetriesDisabled(true);
                http.setConnectionsPerRoute(50);
            }
            PluginHelper.getRoutesLoader(camel).loadRoutes(ResourceHelper.resolveMandatoryResource(camel, ROUTES));
            camel.start();

            List<Integer> orders = IntStream.range(0, 50).boxed().toList();
            camel.createProducerTemplate().requestBody("direct:orders", orders);

            AdaptiveStats stats = camel.getComponent("adaptive", AdaptiveComponent.class).stats("orders-api").orElseThrow();
            System.out.printf("camel yaml: %d ok, %d failed, limit %d (max reached %d), %d rate-limit events%n",
                    stats.completed(), stats.failed(), stats.limit(), stats.maxLimitReached(), stats.rateLimitEvents());
        }
    }
}
