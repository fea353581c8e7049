package dev.adaptive.examples;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** Each standalone example runs as written against its embedded server and ends cleanly. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class StandaloneExamplesTest {

    @Test
    void poolExample() throws Exception {
        String out = Console.capture(() -> PoolExample.main(new String[0]));
        assertThat(out).containsPattern("pool: 100 ok, 0 failed, final concurrency \\d+, \\d+ rate-limit events, \\d+ ms");
    }

    @Test
    void queueExample() throws Exception {
        String out = Console.capture(() -> QueueExample.main(new String[0]));
        assertThat(out).containsPattern("queue: 60 ok, 0 failed, rate now \\d+ per second, \\d+ ms");
    }

    @Test
    void guardExample() throws Exception {
        String out = Console.capture(() -> GuardExample.main(new String[0]));
        assertThat(out).containsPattern("wave 1: \\d+ served, \\d+ shed with 503, limit \\d+")
                .containsPattern("wave 5: \\d+ served, \\d+ shed with 503, limit \\d+")
                .containsPattern("admitted=\\d+, shed=[1-9]\\d*");
    }

    @Test
    void vertxVerticleExample() throws Exception {
        String out = Console.capture(() -> VertxVerticleExample.main(new String[0]));
        assertThat(out).contains("vertx proxy: 60 ok, 0 failed")
                .contains("adaptive_limiter_attempts_total{name=\"items\",outcome=\"success\"} 60.0")
                .containsPattern("adaptive_limiter_limit\\{name=\"items\"} \\d");
    }

    @Test
    void camelJavaDslExample() throws Exception {
        String out = Console.capture(() -> CamelJavaDslExample.main(new String[0]));
        assertThat(out).containsPattern("camel java: 50 ok, 0 failed, limit \\d+ \\(max reached \\d+\\), \\d+ rate-limit events");
    }

    @Test
    void camelYamlExample() throws Exception {
        String out = Console.capture(() -> CamelYamlExample.main(new String[0]));
        assertThat(out).containsPattern("camel yaml: 50 ok, 0 failed, limit \\d+ \\(max reached \\d+\\), \\d+ rate-limit events");
    }

    @Test
    void camelMainExample() throws Exception {
        String out = Console.capture(() -> CamelMainExample.main(new String[0]));
        assertThat(out).containsPattern("camel main: 50 ok, 0 failed, limit \\d+ \\(max reached \\d+\\), \\d+ rate-limit events")
                .contains("camel main: meters scraped from")
                .contains("adaptive_limiter_limit{camelContext=\"orders-example\",name=\"adaptive:orders-api\"}");
    }
}
