package dev.adaptive.camel;

import dev.adaptive.testing.Arrival;
import dev.adaptive.testing.FlakyHttpServerExtension;
import dev.adaptive.testing.FlakyModel;
import org.apache.camel.Exchange;
import org.apache.camel.RoutesBuilder;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.component.http.HttpComponent;
import org.apache.camel.http.base.HttpOperationFailedException;
import org.apache.camel.test.junit5.CamelTestSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How HTTP answers reach the pool through the real camel-http component, against a loopback
 * server: a 429 as {@link HttpOperationFailedException} and as a response code header with
 * {@code throwExceptionOnFailure=false}, 503 with and without Retry-After, and the caller's
 * exchange when the budgets run out.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HttpRateLimitTest extends CamelTestSupport {

    private static final SettableClock CLOCK = new SettableClock();
    @RegisterExtension
    static final FlakyHttpServerExtension server = FlakyHttpServerExtension.of(FlakyModel.s3());

    @Override
    protected RoutesBuilder createRouteBuilder() {
        return new RouteBuilder() {
            @Override
            public void configure() {
                getContext().getComponent("http", HttpComponent.class).setAutomaticRetriesDisabled(true);
                getContext().getComponent("adaptive", AdaptiveComponent.class).setClock(CLOCK);
                String base = "http://127.0.0.1:" + server.port();
                // The caller sets X-Client and the path; both reach the attempt's copy.
                for (String pool : new String[] {"thrown", "errors", "limited", "unavailable", "dated1", "dated15"}) {
                    from("adaptive:" + pool).errorHandler(noErrorHandler())
                            .toD(base + "${header.path}")
                            .convertBodyTo(String.class);
                }
                for (String pool : new String[] {"header", "headerOut"}) {
                    from("adaptive:" + pool).errorHandler(noErrorHandler())
                            .toD(base + "${header.path}&throwExceptionOnFailure=false")
                            .convertBodyTo(String.class);
                }
            }
        };
    }

    private Exchange call(String uri, String client, String path) {
        return template.request(uri, e -> {
            e.getIn().setHeader("X-Client", client);
            e.getIn().setHeader("path", path);
        });
    }

    @Test
    void a429ThrownByCamelHttpPausesThePoolForItsRetryAfterAndIsRetried() {
        long start = System.nanoTime();
        Exchange e = call("adaptive:thrown", "thrown", "/first429/thrown?x=1");
        long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

        assertThat(e.getException()).isNull();
        assertThat(e.getMessage().getBody(String.class)).isEqualTo("ok");
        assertThat(e.getMessage().getHeader(AdaptiveConstants.ATTEMPTS, Integer.class)).isEqualTo(2);
        assertThat(elapsedMs).as("the retry waited the announced second").isGreaterThanOrEqualTo(1000);
        AdaptiveStats stats = stats("thrown");
        assertThat(stats.rateLimitEvents()).isEqualTo(1);
        assertThat(stats.retries()).isEqualTo(1);
        assertThat(arrivalsDuringRetryAfter("thrown")).isZero();
    }

    @Test
    void a429InTheResponseCodeHeaderPausesThePoolForItsRetryAfterAndIsRetried() {
        long start = System.nanoTime();
        Exchange e = call("adaptive:header", "header", "/first429/header?x=1");
        long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

        assertThat(e.getException()).isNull();
        assertThat(e.getMessage().getHeader(Exchange.HTTP_RESPONSE_CODE, Integer.class)).isEqualTo(200);
        assertThat(e.getMessage().getBody(String.class)).isEqualTo("ok");
        assertThat(e.getMessage().getHeader(AdaptiveConstants.ATTEMPTS, Integer.class)).isEqualTo(2);
        assertThat(elapsedMs).isGreaterThanOrEqualTo(1000);
        assertThat(stats("header").rateLimitEvents()).isEqualTo(1);
        assertThat(arrivalsDuringRetryAfter("header")).isZero();
    }

    @Test
    void whenRetriesRunOutTheCallerGetsTheFinalException() {
        Exchange e = call("adaptive:errors?retries=2&minDelay=10ms&maxDelay=20ms", "errors", "/status/500?x=errors");

        assertThat(e.getException()).isInstanceOf(HttpOperationFailedException.class);
        assertThat(((HttpOperationFailedException) e.getException()).getStatusCode()).isEqualTo(500);
        assertThat(e.getMessage().getHeader(AdaptiveConstants.ATTEMPTS, Integer.class)).isEqualTo(3);
        AdaptiveStats stats = stats("errors");
        assertThat(stats.congestionEvents()).isEqualTo(3);
        assertThat(stats.failed()).isEqualTo(1);
        assertThat(server.get().arrivals().stream().filter(a -> a.client().equals("errors")).count()).isEqualTo(3);
    }

    @Test
    void whenRateLimitRetriesRunOutTheCallerGetsTheFinal429() {
        // Retry-After: 0 announces no wait, so the retries back off instead of pausing.
        Exchange e = call("adaptive:limited?maxRateLimitRetries=2&retries=0&minDelay=10ms&maxDelay=20ms", "limited",
                "/status/429?retryAfter=0");

        assertThat(e.getException()).isInstanceOf(HttpOperationFailedException.class);
        assertThat(((HttpOperationFailedException) e.getException()).getStatusCode()).isEqualTo(429);
        assertThat(e.getMessage().getHeader(AdaptiveConstants.ATTEMPTS, Integer.class)).isEqualTo(3);
        assertThat(stats("limited").rateLimitEvents()).isEqualTo(3);
        assertThat(stats("limited").congestionEvents()).isZero();
    }

    @Test
    void withThrowExceptionOnFailureFalseTheCallerGetsTheLast429ResponseAndTheReason() {
        Exchange e = call("adaptive:headerOut?maxRateLimitRetries=1&minDelay=10ms&maxDelay=20ms", "header-out",
                "/status/429?retryAfter=0");

        assertThat(e.getException()).isInstanceOf(dev.adaptive.RateLimitedException.class);
        assertThat(e.getMessage().getHeader(Exchange.HTTP_RESPONSE_CODE, Integer.class)).isEqualTo(429);
        assertThat(e.getMessage().getBody(String.class)).isEqualTo("status 429");
        assertThat(e.getMessage().getHeader(AdaptiveConstants.ATTEMPTS, Integer.class)).isEqualTo(2);
    }

    @Test
    void a503WithRetryAfterIsARateLimitAndWithoutItADrop() {
        Exchange limited = call("adaptive:unavailable?maxRateLimitRetries=0&retries=0", "unavailable",
                "/status/503?retryAfter=1");
        assertThat(((HttpOperationFailedException) limited.getException()).getStatusCode()).isEqualTo(503);
        AdaptiveStats afterLimited = stats("unavailable");
        assertThat(afterLimited.rateLimitEvents()).isEqualTo(1);
        assertThat(afterLimited.congestionEvents()).isZero();

        Exchange dropped = call("adaptive:unavailable", "unavailable-plain", "/status/503?x=plain");
        assertThat(((HttpOperationFailedException) dropped.getException()).getStatusCode()).isEqualTo(503);
        AdaptiveStats afterDropped = stats("unavailable");
        assertThat(afterDropped.rateLimitEvents()).isEqualTo(1);
        assertThat(afterDropped.congestionEvents()).isEqualTo(1);
        assertThat(dropped.getMessage().getHeader(AdaptiveConstants.ATTEMPTS, Integer.class)).isEqualTo(1);
    }

    /**
     * The date is written by Java's own {@code RFC_1123_DATE_TIME}, which prints a one-digit
     * day on days 1 to 9, and read against the component's clock, fixed here: the test means
     * the same on every date.
     */
    @ParameterizedTest
    @ValueSource(strings = {"2026-12-01T08:55:00Z", "2026-12-15T08:55:00Z"})
    void anHttpDateRetryAfterPausesThePoolUntilThatDate(String now) {
        Instant at = Instant.parse(now);
        CLOCK.set(at);
        String pool = "dated" + ZonedDateTime.ofInstant(at, ZoneOffset.UTC).getDayOfMonth();
        String sixSecondsAhead = DateTimeFormatter.RFC_1123_DATE_TIME.format(
                ZonedDateTime.ofInstant(at.plusSeconds(6), ZoneOffset.UTC));
        Exchange e = call("adaptive:" + pool + "?maxRateLimitRetries=0", pool,
                "/status/429?retryAfter=" + sixSecondsAhead.replace(" ", "%20").replace(",", "%2C"));

        assertThat(((HttpOperationFailedException) e.getException()).getStatusCode()).isEqualTo(429);
        AdaptiveStats stats = stats(pool);
        assertThat(stats.rateLimitEvents()).isEqualTo(1);
        assertThat(stats.ratePaused()).as("paused until the announced date").isTrue();
    }

    /** A clock the test sets; the component reads HTTP-dates against it. */
    private static final class SettableClock extends Clock {
        private final AtomicReference<Instant> now = new AtomicReference<>(Instant.EPOCH);

        void set(Instant instant) {
            now.set(instant);
        }

        @Override
        public Instant instant() {
            return now.get();
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            throw new UnsupportedOperationException();
        }
    }

    private AdaptiveStats stats(String pool) {
        return context.getComponent("adaptive", AdaptiveComponent.class).stats(pool).orElseThrow();
    }

    private static long arrivalsDuringRetryAfter(String client) {
        return server.get().arrivals().stream().filter(a -> a.client().equals(client))
                .filter(Arrival::duringRetryAfter).count();
    }

}
