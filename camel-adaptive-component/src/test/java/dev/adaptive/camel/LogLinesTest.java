package dev.adaptive.camel;

import org.apache.camel.CamelContext;
import org.apache.camel.RoutesBuilder;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.component.http.HttpComponent;
import org.apache.camel.test.junit5.CamelTestSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The lines an operator reads, as a Camel application logs them through SLF4J (slf4j-simple
 * here, writing to standard error): the engine's Retry-After pause opened and closed, at INFO,
 * through the System.Logger bridge the component brings; a throwing classifier at WARN once,
 * then at DEBUG (not shown at the tests' level).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LogLinesTest extends CamelTestSupport {

    private static FlakyHttpServer server;
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private PrintStream original;

    @BeforeAll
    static void startServer() throws Exception {
        server = FlakyHttpServer.start(FlakyHttpServer.Model.s3());
    }

    @AfterAll
    static void stopServer() {
        server.close();
    }

    @BeforeEach
    void captureStandardError() {
        original = System.err;
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @AfterEach
    void restoreStandardError() {
        System.setErr(original);
    }

    private List<String> lines() {
        return err.toString(StandardCharsets.UTF_8).lines().toList();
    }

    @Override
    protected CamelContext createCamelContext() throws Exception {
        CamelContext context = super.createCamelContext();
        context.getRegistry().bind("brokenClassifier", (ExchangeClassifier) exchange -> {
            throw new IllegalStateException("classifier bug");
        });
        return context;
    }

    @Override
    protected RoutesBuilder createRouteBuilder() {
        return new RouteBuilder() {
            @Override
            public void configure() {
                getContext().getComponent("http", HttpComponent.class).setAutomaticRetriesDisabled(true);
                from("direct:limited").to("adaptive:logged");
                from("adaptive:logged").errorHandler(noErrorHandler())
                        .to("http://127.0.0.1:" + server.port() + "/first429/logged").convertBodyTo(String.class);
                from("direct:broken").to("adaptive:broken?classifier=#brokenClassifier");
                from("adaptive:broken").setBody(constant("ok"));
            }
        };
    }

    @Test
    void aRetryAfterPauseIsLoggedWhenItOpensAndWhenItCloses() {
        assertThat(template.requestBody("direct:limited", "x")).isEqualTo("ok");
        assertThat(lines()).filteredOn(l -> l.contains("dev.adaptive.limiter")).satisfiesExactly(
                opened -> assertThat(opened).contains("INFO").contains("limiter 'adaptive:logged': Retry-After pause"
                        + " opened, dispatch held for PT1S (asked PT1S, not capped by maxRetryAfter=PT10M)"),
                closed -> assertThat(closed).contains("INFO")
                        .containsPattern("limiter 'adaptive:logged': Retry-After pause closed after PT1(\\.\\d+)?S,"
                                + " dispatch resumes with 1 waiting"));
    }

    @Test
    void aThrowingClassifierIsLoggedAtWarnOnce() {
        for (int i = 0; i < 3; i++) {
            assertThat(template.requestBody("direct:broken", "x")).isEqualTo("ok");
        }
        assertThat(lines()).filteredOn(l -> l.contains("Classifier of adaptive pool 'broken'")).singleElement()
                .satisfies(l -> assertThat(l).contains("WARN").contains("threw; the default reading applies"
                        + " (logged once at WARN, later failures at DEBUG)"));
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("java.lang.IllegalStateException: classifier bug");
    }
}
