package dev.adaptive.camel;

import dev.adaptive.fleet.InMemoryCoordinator;
import org.apache.camel.FailedToStartRouteException;
import org.apache.camel.ResolveEndpointFailedException;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.spi.Registry;
import org.apache.camel.test.junit5.CamelTestSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Endpoint options: parsing, validation with errors that name the option and the value,
 * unknown options, and one pool per name whose options endpoints must not contradict.
 */
class EndpointOptionsTest extends CamelTestSupport {

    private final ExchangeClassifier classifier = e -> null;

    @Override
    protected void bindToRegistry(Registry registry) {
        registry.bind("myClassifier", classifier);
        registry.bind("fleet", InMemoryCoordinator.create());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "max=0                            | max must be >= min (1): 0",
        "min=0                            | min must be >= 1: 0",
        "min=5&max=3                      | max must be >= min (5): 3",
        "initial=200                      | initial must be within [min, max] = [1, 100]: 200",
        "algorithm=fixed&initial=3        | initial has no meaning with algorithm=fixed",
        "algorithm=cubic                  | algorithm must be one of vegas|aimd|gradient2|fixed: cubic",
        "backoff=fibonacci                | backoff must be one of exponential|linear|constant: fibonacci",
        "jitter=1.5                       | jitter must be within [0, 1]: 1.5",
        "retries=-1                       | retries must be >= 0: -1",
        "maxRateLimitRetries=-2           | maxRateLimitRetries must be >= 0: -2",
        "minDelay=PT-1S                   | minDelay must be a duration >= 0: PT-1S",
        "minDelay=2s&maxDelay=1s          | maxDelay must be >= minDelay (2s): 1s",
        "maxRetryAfter=0                  | maxRetryAfter must be a positive duration: 0",
        "taskTimeout=PT-5S                | taskTimeout must be a duration >= 0: PT-5S",
        "maxQueueSize=-1                  | maxQueueSize must be >= 0: -1",
        "rateLimitStatusCodes=429,soon    | rateLimitStatusCodes must be comma-separated status codes; 'soon' is not one",
        "rateLimitStatusCodes=429,700     | rateLimitStatusCodes must hold status codes within [100, 599]; 700 is not",
        "timeout=PT-1S                    | timeout must be a duration >= 0: PT-1S",
        "fleetNodeId=n1                   | fleetNodeId has no meaning without coordinator: n1",
        "fleetKey=payments                | fleetKey has no meaning without coordinator: payments",
        "coordinator=#fleet               | fleetNodeId must be set when coordinator is",
        "coordinator=#fleet&fleetNodeId=n&fleetKey=%20 | fleetKey must not be blank",
        "fleetHeartbeat=0                 | fleetHeartbeat must be a positive duration: 0",
        // Found by EndpointOptionFuzzTest: accepted here, refused by the fleet member at the first exchange.
        "fleetHeartbeat=P366D             | fleetHeartbeat must be at most PT8760H: P366D",
        "fleetOutagePolicy=sometimes      | fleetOutagePolicy must be one of failClosed|localOnly: sometimes",
        // Names match in any ASCII case, and no non-ASCII look-alike (dotless i, long s) stands for a letter.
        "algorithm=f%C4%B1xed             | algorithm must be one of vegas|aimd|gradient2|fixed: fıxed",
        "backoff=con%C5%BFtant            | backoff must be one of exponential|linear|constant: conſtant",
        "fleetOutagePolicy=fa%C4%B1lClosed | fleetOutagePolicy must be one of failClosed|localOnly: faılClosed",
    })
    void aBadOptionFailsNamingTheOptionAndTheValue(String query, String message) {
        assertThatThrownBy(() -> context.getEndpoint("adaptive:bad?" + query))
                .isInstanceOf(ResolveEndpointFailedException.class)
                .rootCause().isInstanceOf(IllegalArgumentException.class).hasMessageContaining(message);
    }

    @Test
    void anUnknownOptionFailsAsInAnyCamelComponent() {
        assertThatThrownBy(() -> context.getEndpoint("adaptive:x?maxx=5"))
                .isInstanceOf(ResolveEndpointFailedException.class)
                .hasMessageContaining("Unknown parameters").hasMessageContaining("maxx");
    }

    @Test
    void aNameIsRequired() {
        assertThatThrownBy(() -> context.getEndpoint("adaptive:"))
                .isInstanceOf(ResolveEndpointFailedException.class);
    }

    @Test
    void optionsAreParsedWithCamelsDurationsAndBeanReferences() {
        AdaptiveEndpoint e = context.getEndpoint("adaptive:parsed?algorithm=AIMD&initial=4&min=2&max=40"
                + "&minDelay=250ms&maxDelay=PT2S&taskTimeout=1500&timeout=5s&backoff=linear&jitter=0.1"
                + "&retries=5&maxRateLimitRetries=7&maxRetryAfter=1m&maxQueueSize=50&rateLimitStatusCodes=429"
                + "&adaptOnLatency=false&classifier=#myClassifier", AdaptiveEndpoint.class);

        assertThat(e.getMinDelay()).isEqualTo(Duration.ofMillis(250));
        assertThat(e.getMaxDelay()).isEqualTo(Duration.ofSeconds(2));
        assertThat(e.getTaskTimeout()).isEqualTo(Duration.ofMillis(1500));
        assertThat(e.getTimeout()).isEqualTo(Duration.ofSeconds(5));
        assertThat(e.getMaxRetryAfter()).isEqualTo(Duration.ofMinutes(1));
        assertThat(e.getClassifier()).isSameAs(classifier);
        PoolConfig config = e.poolConfig();
        assertThat(config.algorithm()).isEqualTo("aimd");
        assertThat(config.initial()).isEqualTo(4);
        assertThat(config.limit().maxLimit()).isEqualTo(40);
        assertThat(config.adapt().onLatency()).isFalse();
        assertThat(config.rateLimitStatusCodes()).containsExactly(429);
        assertThat(config.retryPolicy((error, attempt) -> true).retries()).isEqualTo(5);
        assertThat(config.retryPolicy((error, attempt) -> true).backoff().minDelay()).isEqualTo(Duration.ofMillis(250));
    }

    @Test
    void theDefaultsAreThoseTheComponentPageLists() {
        PoolConfig config = context.getEndpoint("adaptive:defaults?max=100", AdaptiveEndpoint.class).poolConfig();
        assertThat(config).isEqualTo(PoolConfig.builder().build());
        assertThat(config.algorithm()).isEqualTo("vegas");
        assertThat(config.initial()).isEqualTo(5);
        assertThat(config.min()).isEqualTo(1);
        assertThat(config.max()).isEqualTo(100);
        assertThat(config.retries()).isEqualTo(3);
        assertThat(config.minDelay()).isEqualTo(Duration.ofMillis(100));
        assertThat(config.maxDelay()).isEqualTo(Duration.ofSeconds(30));
        assertThat(config.jitter()).isEqualTo(0.2);
        assertThat(config.maxRateLimitRetries()).isEqualTo(10);
        assertThat(config.maxRetryAfter()).isEqualTo(Duration.ofMinutes(10));
        assertThat(config.taskTimeout()).isNull();
        assertThat(config.maxQueueSize()).isEqualTo(10_000);
        assertThat(config.rateLimitStatusCodes()).containsExactlyInAnyOrder(429, 503);
        assertThat(context.getEndpoint("adaptive:defaults", AdaptiveEndpoint.class).getTimeout())
                .isEqualTo(Duration.ofSeconds(30));
    }

    @Test
    void endpointsOfOnePoolMustNotContradictEachOther() {
        context.getEndpoint("adaptive:shared?max=10&retries=2");
        // Joins: sets nothing, or the same effective options.
        context.getEndpoint("adaptive:shared");
        context.getEndpoint("adaptive:shared?retries=2&max=10&timeout=1s");
        context.getEndpoint("adaptive:shared?max=10&retries=2&algorithm=vegas");

        assertThatThrownBy(() -> context.getEndpoint("adaptive:shared?max=20&retries=2"))
                .isInstanceOf(ResolveEndpointFailedException.class)
                .rootCause().isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("adaptive pool 'shared' is already configured by adaptive://shared?max=10&retries=2")
                .hasMessageContaining("max=10 vs 20");
        assertThatThrownBy(() -> context.getEndpoint("adaptive:shared?max=10"))
                .rootCause().hasMessageContaining("retries=2 vs 3");
        // Other names are other pools.
        context.getEndpoint("adaptive:other?max=20");
    }

    @Test
    void optionsAreFixedWhenThePoolTakesItsFirstExchange() throws Exception {
        context.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("adaptive:early").setBody(constant("ok"));
            }
        });
        assertThat(template.requestBody("adaptive:early", "x")).isEqualTo("ok");

        assertThatThrownBy(() -> context.getEndpoint("adaptive:early?max=7"))
                .rootCause().hasMessageContaining("already configured by its defaults")
                .hasMessageContaining("max=100 vs 7");
    }

    @Test
    void optionsOnTheProducerApplyEvenIfTheConsumerRouteStartedFirst() throws Exception {
        context.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("adaptive:late").setBody(constant("ok"));
            }
        });
        assertThat(template.requestBody("adaptive:late?algorithm=fixed&max=3", "x")).isEqualTo("ok");
        PoolStats stats = context.getComponent("adaptive", AdaptiveComponent.class).stats("late").orElseThrow();
        assertThat(stats.limit()).isEqualTo(3);
    }

    @Test
    void onlyOneRouteMayConsumeFromAPool() throws Exception {
        context.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("adaptive:single").routeId("first").log("first");
            }
        });
        assertThatThrownBy(() -> context.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("adaptive:single").routeId("second").log("second");
            }
        })).isInstanceOf(FailedToStartRouteException.class)
                .hasMessageContaining("Multiple consumers for the same endpoint is not allowed");
        // Another URI of the same pool: the pool itself refuses.
        assertThatThrownBy(() -> context.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("adaptive:single?timeout=5s").routeId("third").log("third");
            }
        })).hasStackTraceContaining("adaptive pool 'single' already has a consumer");
    }
}
