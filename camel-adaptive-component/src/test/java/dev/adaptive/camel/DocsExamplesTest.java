package dev.adaptive.camel;

import org.apache.camel.CamelContext;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.component.http.HttpComponent;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.PluginHelper;
import org.apache.camel.support.ResourceHelper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The examples of docs/camel.md and of the README snippet run as written, against a loopback
 * server that follows the flaky model.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class DocsExamplesTest {

    private static FlakyHttpServer server;

    @BeforeAll
    static void startServer() throws Exception {
        server = FlakyHttpServer.start(FlakyHttpServer.Model.s3());
    }

    @AfterAll
    static void stopServer() {
        server.close();
    }

    private static String docsBlock(String language) throws Exception {
        Path page = Path.of("..", "docs", "camel.md");
        Matcher m = Pattern.compile("```" + language + "\\n(.*?)```", Pattern.DOTALL).matcher(Files.readString(page));
        assertThat(m.find()).as("a %s block in %s", language, page).isTrue();
        return m.group(1);
    }

    @Test
    void theYamlRoutesOfTheComponentPageRun() throws Exception {
        try (CamelContext camel = new DefaultCamelContext()) {
            Properties props = new Properties();
            props.setProperty("api.url", "http://127.0.0.1:" + server.port());
            camel.getPropertiesComponent().setInitialProperties(props);
            camel.getComponent("http", HttpComponent.class).setAutomaticRetriesDisabled(true);
            PluginHelper.getRoutesLoader(camel).loadRoutes(ResourceHelper.fromString("camel.yaml", docsBlock("yaml")));
            camel.start();

            List<Integer> orders = IntStream.range(0, 60).boxed().toList();
            camel.createProducerTemplate().requestBody("direct:orders", orders);

            PoolStats stats = camel.getComponent("adaptive", AdaptiveComponent.class).stats("orders-api").orElseThrow();
            assertThat(stats.completed()).isEqualTo(60);
            assertThat(stats.failed()).isZero();
            assertThat(stats.maxLimitReached()).isGreaterThan(1);
        }
    }

    @Test
    void theReadmeSnippetRuns() throws Exception {
        String api = "http://127.0.0.1:" + server.port();
        // --- the README snippet, with the API's address -----------------------------------
        try (CamelContext camel = new DefaultCamelContext()) {
            camel.getComponent("http", HttpComponent.class).setAutomaticRetriesDisabled(true);
            camel.addRoutes(new RouteBuilder() {
                @Override
                public void configure() {
                    from("direct:orders")
                            .split(body()).parallelProcessing()
                            .to("adaptive:orders-api?maxLimit=50");
                    from("adaptive:orders-api").errorHandler(noErrorHandler())
                            .toD(api + "/orders/${body}?httpMethod=GET")
                            .convertBodyTo(String.class);
                }
            });
            camel.start();
            ProducerTemplate template = camel.createProducerTemplate();
            template.requestBody("direct:orders", List.of(1, 2, 3, 4, 5, 6, 7, 8, 9, 10));
            PoolStats stats = camel.getComponent("adaptive", AdaptiveComponent.class).stats("orders-api").orElseThrow();
            // --- end of the snippet --------------------------------------------------------
            assertThat(stats.completed()).isEqualTo(10);
            assertThat(stats.failed()).isZero();
        }
    }
}
