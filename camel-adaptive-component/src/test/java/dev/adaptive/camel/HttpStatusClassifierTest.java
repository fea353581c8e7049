package dev.adaptive.camel;

import dev.adaptive.limit.Outcome;
import dev.adaptive.RateLimitedException;
import dev.adaptive.retry.Quota;
import org.apache.camel.CamelContext;
import org.apache.camel.CamelExecutionException;
import org.apache.camel.Exchange;
import org.apache.camel.http.base.HttpOperationFailedException;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.spi.HttpResponseAware;
import org.apache.camel.support.DefaultExchange;
import org.apache.camel.support.DefaultMessage;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** The default reading of an attempt, with a fixed wall clock for HTTP-date values. */
class HttpStatusClassifierTest {

    private static final Instant NOW = Instant.parse("2025-03-01T12:00:00Z");
    private final CamelContext camel = new DefaultCamelContext();
    private final HttpStatusClassifier classifier = new HttpStatusClassifier(Set.of(429, 503), Duration.ofMinutes(10),
            Clock.fixed(NOW, ZoneOffset.UTC), true);

    private Exchange failed(Exception e) {
        Exchange x = new DefaultExchange(camel);
        x.setException(e);
        return x;
    }

    private Exchange answered(int status, Map<String, Object> headers) {
        Exchange x = new DefaultExchange(camel);
        x.getMessage().setHeaders(new HashMap<>(headers));
        x.getMessage().setHeader(Exchange.HTTP_RESPONSE_CODE, status);
        return x;
    }

    private static HttpOperationFailedException http(int status, Map<String, String> headers) {
        return new HttpOperationFailedException("http://127.0.0.1/x", status, "status " + status, null, headers, "body");
    }

    /** A message that says whether its headers were created, and can fill them only when asked, as a consumer's binding may. */
    private static final class ProbeMessage extends DefaultMessage {
        private final Map<String, Object> lazy;

        ProbeMessage(CamelContext camel, Map<String, Object> lazy) {
            super(camel);
            this.lazy = lazy;
        }

        boolean headersCreated() {
            return hasPopulatedHeaders();
        }

        @Override
        protected boolean isPopulateHeadersSupported() {
            return !lazy.isEmpty();
        }

        @Override
        protected void populateInitialHeaders(Map<String, Object> map) {
            map.putAll(lazy);
        }
    }

    @Test
    void readingAnAttemptWithoutHeadersCreatesNoHeaderMapButLazyHeadersAreRead() {
        Exchange bare = new DefaultExchange(camel);
        ProbeMessage none = new ProbeMessage(camel, Map.of());
        bare.setIn(none);
        assertThat(classifier.classify(bare)).isEqualTo(Outcome.SUCCESS);
        assertThat(none.headersCreated()).as("the caller's message would copy an empty map").isFalse();

        Exchange lazy = new DefaultExchange(camel);
        lazy.setIn(new ProbeMessage(camel, Map.of(Exchange.HTTP_RESPONSE_CODE, 429, "Retry-After", "3")));
        assertThat(classifier.classify(lazy)).isEqualTo(Outcome.rateLimited(Duration.ofSeconds(3)));
    }

    @Test
    void a429FromCamelHttpIsRateLimitedWithItsRetryAfterInAnyCasing() {
        assertThat(classifier.classify(failed(http(429, Map.of("Retry-After", "7")))))
                .isEqualTo(Outcome.rateLimited(Duration.ofSeconds(7)));
        assertThat(classifier.classify(failed(http(429, Map.of("retry-after", "8")))))
                .isEqualTo(Outcome.rateLimited(Duration.ofSeconds(8)));
        assertThat(classifier.classify(failed(http(429, Map.of("RETRY-AFTER", "9")))))
                .isEqualTo(Outcome.rateLimited(Duration.ofSeconds(9)));
    }

    @Test
    void anHttpDateRetryAfterIsAWaitUntilThatDate() {
        String inThirtySeconds = "Sat, 01 Mar 2025 12:00:30 GMT";
        assertThat(classifier.classify(failed(http(429, Map.of("Retry-After", inThirtySeconds)))))
                .isEqualTo(Outcome.rateLimited(Duration.ofSeconds(30)));
    }

    @Test
    void a429WithoutAUsableRetryAfterIsStillRateLimitedButPausesNothing() {
        assertThat(classifier.classify(failed(http(429, Map.of())))).isEqualTo(Outcome.rateLimited(Duration.ZERO));
        assertThat(classifier.classify(failed(http(429, Map.of("Retry-After", "soon")))))
                .isEqualTo(Outcome.rateLimited(Duration.ZERO));
        assertThat(classifier.classify(failed(http(429, Map.of("Retry-After", "Sat, 01 Mar 2025 11:00:00 GMT")))))
                .as("a date in the past").isEqualTo(Outcome.rateLimited(Duration.ZERO));
    }

    @Test
    void hostileRetryAfterValuesAreCapped() {
        assertThat(classifier.classify(failed(http(429, Map.of("Retry-After", "999999999999999")))))
                .isEqualTo(Outcome.rateLimited(Duration.ofMinutes(10)));
        assertThat(classifier.classify(failed(new RateLimitedException(Duration.ofDays(3)))))
                .isEqualTo(Outcome.rateLimited(Duration.ofMinutes(10)));
    }

    @Test
    void a503IsRateLimitedOnlyWithAValidRetryAfter() {
        assertThat(classifier.classify(failed(http(503, Map.of("Retry-After", "3")))))
                .isEqualTo(Outcome.rateLimited(Duration.ofSeconds(3)));
        assertThat(classifier.classify(failed(http(503, Map.of())))).isEqualTo(Outcome.DROPPED);
        assertThat(classifier.classify(failed(http(503, Map.of("Retry-After", "garbage"))))).isEqualTo(Outcome.DROPPED);
    }

    @Test
    void otherFailuresAreDropsAndOtherwiseSuccess() {
        assertThat(classifier.classify(failed(http(500, Map.of("Retry-After", "3"))))).isEqualTo(Outcome.DROPPED);
        assertThat(classifier.classify(failed(new IllegalStateException("x")))).isEqualTo(Outcome.DROPPED);
        assertThat(classifier.classify(new DefaultExchange(camel))).isEqualTo(Outcome.SUCCESS);
    }

    @Test
    void theStatusCodesAreConfigurable() {
        HttpStatusClassifier only503 = new HttpStatusClassifier(Set.of(503), Duration.ofMinutes(1), Clock.systemUTC(), true);
        assertThat(only503.classify(failed(http(429, Map.of("Retry-After", "1"))))).isEqualTo(Outcome.DROPPED);
        HttpStatusClassifier with418 = new HttpStatusClassifier(Set.of(418, 429), Duration.ofMinutes(1),
                Clock.systemUTC(), true);
        assertThat(with418.classify(failed(http(418, Map.of("Retry-After", "2")))))
                .isEqualTo(Outcome.rateLimited(Duration.ofSeconds(2)));
    }

    @Test
    void theResponseCodeHeaderIsReadWhenCamelHttpDidNotThrow() {
        assertThat(classifier.classify(answered(429, Map.of("Retry-After", "2"))))
                .isEqualTo(Outcome.rateLimited(Duration.ofSeconds(2)));
        assertThat(classifier.classify(answered(429, Map.of("retry-after", "4"))))
                .isEqualTo(Outcome.rateLimited(Duration.ofSeconds(4)));
        assertThat(classifier.classify(answered(503, Map.of("Retry-After", "5"))))
                .isEqualTo(Outcome.rateLimited(Duration.ofSeconds(5)));
        assertThat(classifier.classify(answered(503, Map.of()))).isEqualTo(Outcome.SUCCESS);
        assertThat(classifier.classify(answered(200, Map.of()))).isEqualTo(Outcome.SUCCESS);
        assertThat(classifier.classify(answered(429, Map.of("Retry-After", List.of("6", "1")))))
                .as("a multi-valued header: the first value").isEqualTo(Outcome.rateLimited(Duration.ofSeconds(6)));
    }

    @Test
    void theCauseChainIsSearched() {
        Exchange x = new DefaultExchange(camel);
        CamelExecutionException wrapped = new CamelExecutionException("route failed", x,
                http(429, Map.of("Retry-After", "1")));
        assertThat(classifier.classify(failed(wrapped))).isEqualTo(Outcome.rateLimited(Duration.ofSeconds(1)));
        RuntimeException rl = new RuntimeException(new RateLimitedException("quota", Duration.ofSeconds(2)));
        assertThat(classifier.classify(failed(rl))).isEqualTo(Outcome.rateLimited(Duration.ofSeconds(2)));
    }

    @Test
    void anyHttpResponseAwareExceptionCountsByItsStatus() {
        class OtherHttpFailure extends Exception implements HttpResponseAware {
            @Override
            public int getHttpResponseCode() {
                return 429;
            }

            @Override
            public void setHttpResponseCode(int code) {
            }

            @Override
            public String getHttpResponseStatus() {
                return "Too Many Requests";
            }

            @Override
            public void setHttpResponseStatus(String status) {
            }
        }
        assertThat(classifier.classify(failed(new OtherHttpFailure()))).isEqualTo(Outcome.rateLimited(Duration.ZERO));
    }

    @Test
    void theQuotaASuccessAnnouncesTravelsInItsOutcome() {
        assertThat(classifier.classify(answered(200, Map.of("RateLimit", "\"default\";r=7;t=30"))))
                .isEqualTo(Outcome.SUCCESS.withQuota(new Quota(7, Duration.ofSeconds(30))));
        assertThat(classifier.classify(answered(200, Map.of("X-RateLimit-Remaining", "3", "X-RateLimit-Reset",
                String.valueOf(NOW.getEpochSecond() + 20)))))
                .isEqualTo(Outcome.SUCCESS.withQuota(new Quota(3, Duration.ofSeconds(20))));
        assertThat(classifier.classify(answered(200, Map.of("x-ratelimit-remaining-requests", "59",
                "x-ratelimit-reset-requests", "6m0s"))))
                .as("its reset capped at maxRetryAfter").isEqualTo(Outcome.SUCCESS.withQuota(
                        new Quota(59, Duration.ofMinutes(6))));
        assertThat(classifier.classify(answered(200, Map.of("X-RateLimit-Remaining", "garbage",
                "X-RateLimit-Reset", "1")))).as("garbage is ignored").isEqualTo(Outcome.SUCCESS);
    }

    @Test
    void theQuotaAFailureAnnouncesTravelsInItsOutcome() {
        assertThat(classifier.classify(failed(http(429, Map.of("Retry-After", "2", "RateLimit", "d;r=0;t=2")))))
                .isEqualTo(Outcome.rateLimited(Duration.ofSeconds(2)).withQuota(new Quota(0, Duration.ofSeconds(2))));
        assertThat(classifier.classify(failed(http(500, Map.of("RateLimit-Remaining", "4", "RateLimit-Reset", "9")))))
                .isEqualTo(Outcome.DROPPED.withQuota(new Quota(4, Duration.ofSeconds(9))));
        assertThat(classifier.classify(answered(429, Map.of("Retry-After", "1", "RateLimit", "d;r=0;t=9999")))).as(
                "a hostile reset is capped").isEqualTo(Outcome.rateLimited(Duration.ofSeconds(1))
                        .withQuota(new Quota(0, Duration.ofMinutes(10))));
    }

    @Test
    void withQuotaHeadersOffTheQuotaIsNotRead() {
        HttpStatusClassifier off = new HttpStatusClassifier(Set.of(429, 503), Duration.ofMinutes(10),
                Clock.fixed(NOW, ZoneOffset.UTC), false);
        assertThat(off.classify(answered(200, Map.of("RateLimit", "d;r=7;t=30")))).isEqualTo(Outcome.SUCCESS);
        assertThat(off.classify(failed(http(429, Map.of("Retry-After", "2", "RateLimit", "d;r=0;t=2")))))
                .isEqualTo(Outcome.rateLimited(Duration.ofSeconds(2)));
    }
}
