package dev.adaptive.micrometer;

import dev.adaptive.Lease;
import dev.adaptive.Limiter;
import dev.adaptive.limit.FixedLimit;
import dev.adaptive.time.Ticker;
import dev.adaptive.time.VirtualTime;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A ticker is user code and may throw anything. The limiter's stats read it while a Retry-After
 * pause is open (what is left of the pause), and every counter of a binding reads the stats: a
 * ticker that throws then must not fail the scrape, which is the whole registry's, every other
 * meter of the application included.
 */
class BrokenTickerScrapeTest {

    private final VirtualTime time = new VirtualTime();
    /** What the ticker throws: nothing, an exception or an Error. */
    private String broken = "";
    private final Ticker ticker = () -> {
        switch (broken) {
            case "exception" -> throw new IllegalStateException("a ticker that throws");
            case "error" -> throw new AssertionError("a ticker that throws an Error");
            default -> {
                return time.nanoTime();
            }
        }
    };

    @Test
    void aTickerThatThrowsWhileAPauseIsOpenFailsNeitherTheScrapeNorTheCounters() {
        check("exception");
    }

    @Test
    void aTickerThatThrowsAnErrorDoesNotEither() {
        check("error");
    }

    private void check(String failure) {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        Limiter limiter = Limiter.builder().name("orders").ticker(ticker).scheduler(time)
                .limit(FixedLimit.of(10)).build();
        LimiterMetrics metrics = LimiterMetrics.bind(limiter, registry);
        Lease lease = limiter.tryAcquire().orElseThrow();
        time.advance(Duration.ofMillis(5));
        lease.release();
        limiter.pauseFor(Duration.ofSeconds(10));
        assertThat(registry.scrape()).contains("adaptive_limiter_pauses_total{name=\"orders\"} 1.0");

        broken = failure;
        String scrape = registry.scrape();
        assertThat(scrape)
                .contains("adaptive_limiter_attempts_total{name=\"orders\",outcome=\"success\"} 1.0")
                .contains("adaptive_limiter_pauses_total{name=\"orders\"} 1.0")
                .contains("adaptive_limiter_paused{name=\"orders\"} 1.0")
                .contains("adaptive_limiter_limit{name=\"orders\"} 10.0")
                // Without a reading the limiter shows the pause's whole length as what remains.
                .contains("adaptive_limiter_pause_remaining_seconds{name=\"orders\"} 10.0");

        broken = "";
        time.advance(Duration.ofSeconds(10));
        assertThat(registry.scrape())
                .contains("adaptive_limiter_paused{name=\"orders\"} 0.0")
                .contains("adaptive_limiter_attempts_total{name=\"orders\",outcome=\"success\"} 1.0");
        metrics.close();
        assertThat(registry.getMeters()).isEmpty();
    }
}
