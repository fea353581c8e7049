package dev.adaptive.camel;

import dev.adaptive.config.AdaptiveConfig;
import dev.adaptive.docs.Snippets;
import dev.adaptive.testing.FlakyHttpServerExtension;
import dev.adaptive.testing.FlakyModel;
import org.apache.camel.CamelContext;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.RoutesBuilder;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.component.http.HttpComponent;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.main.Main;
import org.apache.camel.support.PluginHelper;
import org.apache.camel.support.ResourceHelper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Camel snippets of the README and of docs/camel.md, read from the pages and run as printed
 * (Java ones compiled as a route builder's body), against a loopback server that follows the
 * flaky model. Only the API's base URL is rewritten: {@code https://api.example.com} becomes the
 * loopback server's {@code http://127.0.0.1:port} (a TLS server would need a certificate the test
 * cannot make with the JDK's public API), and each test also checks what the snippet set on the
 * {@code https} component, which a printed https:// URL would use.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class DocsExamplesTest {

    private static final String API = "https://api.example.com";
    @RegisterExtension
    static final FlakyHttpServerExtension server = FlakyHttpServerExtension.of(FlakyModel.s3());

    private static String api() {
        return "http://127.0.0.1:" + server.port();
    }

    /** @return the Java snippet as the body of a route builder's configure(), its API on the loopback server */
    private static RoutesBuilder routes(String snippet) throws Exception {
        String source = "import org.apache.camel.builder.RouteBuilder;\n"
                + "import org.apache.camel.component.http.HttpComponent;\n"
                + "import java.util.List;\n"
                + "public class SnippetRoutes extends RouteBuilder {\n"
                + "    @Override\n    public void configure() {\n" + snippet.replace(API, api()) + "\n    }\n}\n";
        return Snippets.compile(source, "SnippetRoutes", RoutesBuilder.class);
    }

    private static int maxLimitOf(String snippet) {
        Matcher m = Pattern.compile("maxLimit[=:] ?(\\d+)").matcher(snippet);
        assertThat(m.find()).as("the snippet sets maxLimit").isTrue();
        return Integer.parseInt(m.group(1));
    }

    private static void assertHttpFollowsTheRules(CamelContext camel, int maxLimit) {
        for (String scheme : List.of("http", "https")) {
            HttpComponent http = camel.getComponent(scheme, HttpComponent.class);
            assertThat(http.isAutomaticRetriesDisabled()).as("%s retries 429s itself", scheme).isTrue();
            assertThat(http.getConnectionsPerRoute()).as("%s connectionsPerRoute >= maxLimit", scheme)
                    .isGreaterThanOrEqualTo(maxLimit);
        }
    }

    private static void runsOrders(CamelContext camel, int orders) {
        camel.createProducerTemplate().requestBody("direct:orders", IntStream.range(0, orders).boxed().toList());
        AdaptiveStats stats = camel.getComponent("adaptive", AdaptiveComponent.class).stats("orders-api").orElseThrow();
        assertThat(stats.completed()).isEqualTo(orders);
        assertThat(stats.failed()).isZero();
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({"README.md, ## Camel", "docs/camel.md, ## Example"})
    void theJavaRoutesRunAsPrinted(String page, String heading) throws Exception {
        String snippet = Snippets.blocks(page, heading, "java").get(0);
        try (CamelContext camel = new DefaultCamelContext()) {
            camel.addRoutes(routes(snippet));
            camel.start();
            assertHttpFollowsTheRules(camel, maxLimitOf(snippet));
            runsOrders(camel, 40);
        }
    }

    @Test
    void theImportantSectionConfiguresBothHttpComponentsInJavaAndInProperties() throws Exception {
        String java = Snippets.blocks("docs/camel.md", "## Important", "java").get(0);
        try (CamelContext camel = new DefaultCamelContext()) {
            camel.addRoutes(routes(java));
            camel.start();
            assertHttpFollowsTheRules(camel, 50);
        }
        Main main = main(Snippets.blocks("docs/camel.md", "## Important", "properties").get(0));
        try {
            assertHttpFollowsTheRules(main.getCamelContext(), 50);
        } finally {
            main.stop();
        }
    }

    @Test
    void theYamlRoutesOfTheComponentPageRunWithUriAndParameters() throws Exception {
        String yaml = Snippets.blocks("docs/camel.md", "## Example", "yaml").get(0);
        assertThat(yaml).contains("uri: adaptive\n").contains("parameters:");
        try (CamelContext camel = new DefaultCamelContext()) {
            Properties props = new Properties();
            props.setProperty("api.url", api());
            camel.getPropertiesComponent().setInitialProperties(props);
            camel.getComponent("http", HttpComponent.class).setAutomaticRetriesDisabled(true);
            camel.getComponent("http", HttpComponent.class).setConnectionsPerRoute(maxLimitOf(yaml));
            PluginHelper.getRoutesLoader(camel).loadRoutes(ResourceHelper.fromString("camel.yaml", yaml));
            camel.start();
            runsOrders(camel, 60);
            // The URI factory assembled the producer's URI from its parameters.
            assertThat(camel.getEndpoints()).extracting(e -> e.getEndpointUri())
                    .contains("adaptive://orders-api?maxLimit=50");
            assertThat(camel.getComponent("adaptive", AdaptiveComponent.class).options("orders-api").orElseThrow()
                    .maxLimit()).isEqualTo(50);
        }
    }

    @Test
    void theOptionsSectionsPropertiesConfigureTheNamedPoolAndEveryPool() throws Exception {
        Main main = main(Snippets.blocks("docs/camel.md", "## Options", "properties").get(0));
        try {
            CamelContext camel = main.getCamelContext();
            camel.addRoutes(new org.apache.camel.builder.RouteBuilder() {
                @Override
                public void configure() {
                    from("adaptive:orders-api").setBody(constant("ok"));
                    from("adaptive:other").setBody(constant("ok"));
                }
            });
            assertThat(camel.createProducerTemplate().requestBody("adaptive:orders-api", "x")).isEqualTo("ok");
            assertThat(camel.createProducerTemplate().requestBody("adaptive:other", "x")).isEqualTo("ok");
            AdaptiveComponent adaptive = camel.getComponent("adaptive", AdaptiveComponent.class);
            AdaptiveConfig named = adaptive.options("orders-api").orElseThrow();
            assertThat(named.maxLimit()).isEqualTo(50);
            assertThat(named.retries()).isEqualTo(5);
            assertThat(named.maxRetryAfter()).isEqualTo(Duration.ofMinutes(2));
            AdaptiveConfig other = adaptive.options("other").orElseThrow();
            assertThat(other.maxLimit()).as("the default").isEqualTo(100);
            assertThat(other.maxRetryAfter()).as("every pool").isEqualTo(Duration.ofMinutes(2));
        } finally {
            main.stop();
        }
    }

    @Test
    void theReadmesConfigurationAloneRunsWithTheComponentPagesYamlRoutes() throws Exception {
        // The README's properties include classpath:camel/*.camel.yaml: the component page's routes, as printed.
        Path routes = Path.of("target", "test-classes", "camel", "docs-orders.camel.yaml");
        Files.createDirectories(routes.getParent());
        Files.writeString(routes, Snippets.blocks("docs/camel.md", "## Example", "yaml").get(0));
        String properties = Snippets.blocks("README.md", "## Configuration alone", "properties").get(0);
        Main main = main(properties);
        try {
            CamelContext camel = main.getCamelContext();
            assertHttpFollowsTheRules(camel, maxLimitOf(properties.replace("max-limit", "maxLimit")));
            runsOrders(camel, 40);
            AdaptiveConfig options = camel.getComponent("adaptive", AdaptiveComponent.class).options("orders-api")
                    .orElseThrow();
            assertThat(options.retries()).isEqualTo(5);
        } finally {
            main.stop();
            Files.delete(routes);
        }
    }

    /** @return a started Camel Main configured by these properties, as if they were its application.properties */
    private static Main main(String properties) throws Exception {
        Properties p = new Properties();
        p.load(new StringReader(properties));
        Main main = new Main();
        p.forEach((k, v) -> main.addOverrideProperty((String) k, (String) v));
        main.addOverrideProperty("api.url", api());
        main.start();
        return main;
    }
}
