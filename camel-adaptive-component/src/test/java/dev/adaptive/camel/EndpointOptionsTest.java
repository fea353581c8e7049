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

import dev.adaptive.config.AdaptiveConfig;
import dev.adaptive.config.Algorithm;
import dev.adaptive.retry.Backoff;

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
        "maxLimit=0                       | maxLimit must be >= 1: 0",
        "minLimit=0                       | minLimit must be >= 1: 0",
        "minLimit=5&maxLimit=3            | maxLimit must be >= minLimit (5): 3",
        "initialLimit=200                 | initialLimit must be within [minLimit, maxLimit] = [1, 100]: 200",
        "algorithm=fixed&initialLimit=3   | initialLimit has no meaning with algorithm=fixed",
        "algorithm=cubic                  | algorithm must be one of vegas|aimd|gradient2|fixed: cubic",
        "backoff=fibonacci                | backoff must be one of constant|linear|exponential: fibonacci",
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
        // An empty element is refused wherever it stands, the last one too.
        "rateLimitStatusCodes=429,        | rateLimitStatusCodes must be comma-separated status codes; '' is not one: 429,",
        "timeout=PT-1S                    | timeout must be a duration >= 0: PT-1S",
        "fleetKey=payments                | fleetKey has no meaning without coordinator: payments",
        "coordinator=#fleet               | fleetNodeId must be set when coordinator is",
        "coordinator=#fleet&fleetNodeId=n&fleetKey=%20 | fleetKey must not be blank",
        "fleetHeartbeat=0                 | fleetHeartbeat must be a positive duration: 0",
        // Found by EndpointOptionFuzzTest: accepted here, refused by the fleet member at the first exchange.
        "fleetHeartbeat=P366D             | fleetHeartbeat must be at most 365d: P366D",
        "fleetOutagePolicy=sometimes      | fleetOutagePolicy must be one of failClosed|localOnly: sometimes",
        // Names match in any ASCII case, and no non-ASCII look-alike (dotless i, long s) stands for a letter.
        "algorithm=f%C4%B1xed             | algorithm must be one of vegas|aimd|gradient2|fixed: fıxed",
        "backoff=con%C5%BFtant            | backoff must be one of constant|linear|exponential: conſtant",
        "fleetOutagePolicy=fa%C4%B1lClosed | fleetOutagePolicy must be one of failClosed|localOnly: faılClosed",
        // Whole numbers are ASCII digits, as in every face: Camel's converter would throw a bare NumberFormatException.
        "maxLimit=5.5                     | maxLimit must be a whole number: 5.5",
        "waitTimeout=abc                  | waitTimeout must be a duration",
    })
    void aBadOptionFailsNamingTheOptionAndTheValue(String query, String message) {
        assertThatThrownBy(() -> context.getEndpoint("adaptive:bad?" + query))
                .isInstanceOf(ResolveEndpointFailedException.class)
                .rootCause().isInstanceOf(IllegalArgumentException.class).hasMessageContaining(message);
    }

    @Test
    void theRegistrysOneCoordinatorIsTheFleetOfThePoolsThatNameThemselvesInIt() {
        // The registry holds one Coordinator: it is autowired as the component's default.
        AdaptiveComponent component = context.getComponent("adaptive", AdaptiveComponent.class);
        assertThat(component.getConfiguration().getCoordinator()).isSameAs(context.getRegistry().lookupByName("fleet"));
        PoolConfig member = context.getEndpoint("adaptive:member?fleetNodeId=n1", AdaptiveEndpoint.class).poolConfig();
        assertThat(member.coordinator()).isSameAs(context.getRegistry().lookupByName("fleet"));
        assertThat(member.fleetNodeId()).isEqualTo("n1");
        // A pool without fleetNodeId runs alone.
        assertThat(context.getEndpoint("adaptive:alone", AdaptiveEndpoint.class).poolConfig().coordinator()).isNull();
    }

    @Test
    void anUnknownOptionFailsAsInAnyCamelComponent() {
        assertThatThrownBy(() -> context.getEndpoint("adaptive:x?maxx=5"))
                .isInstanceOf(ResolveEndpointFailedException.class)
                .hasMessageContaining("Unknown parameters").hasMessageContaining("maxx");
    }

    @Test
    void theOldNamesOfTheLimitsFailLoudlyInsteadOfBeingIgnored() {
        for (String old : new String[] {"max=50", "min=2", "initial=5"}) {
            assertThatThrownBy(() -> context.getEndpoint("adaptive:old?" + old))
                    .as(old).isInstanceOf(ResolveEndpointFailedException.class)
                    .hasMessageContaining("Unknown parameters").hasMessageContaining(old.substring(0, old.indexOf('=')));
        }
    }

    @Test
    void aNameIsRequired() {
        assertThatThrownBy(() -> context.getEndpoint("adaptive:"))
                .isInstanceOf(ResolveEndpointFailedException.class);
    }

    @Test
    void optionsAreParsedWithCamelsDurationsAndBeanReferences() {
        AdaptiveEndpoint e = context.getEndpoint("adaptive:parsed?algorithm=AIMD&initialLimit=4&minLimit=2&maxLimit=40"
                + "&minDelay=250ms&maxDelay=PT2S&taskTimeout=1500&timeout=5s&backoff=linear&jitter=0.1"
                + "&retries=5&maxRateLimitRetries=7&maxRetryAfter=1m&maxQueueSize=50&rateLimitStatusCodes=429"
                + "&adaptOnLatency=false&classifier=#myClassifier", AdaptiveEndpoint.class);

        PoolConfiguration o = e.getConfiguration();
        assertThat(o.getMinDelay()).isEqualTo(Duration.ofMillis(250));
        assertThat(o.getMaxDelay()).isEqualTo(Duration.ofSeconds(2));
        assertThat(o.getTaskTimeout()).isEqualTo(Duration.ofMillis(1500));
        assertThat(e.getTimeout()).isEqualTo(Duration.ofSeconds(5));
        assertThat(o.getMaxRetryAfter()).isEqualTo(Duration.ofMinutes(1));
        assertThat(o.getClassifier()).isSameAs(classifier);
        assertThat(o.getAlgorithm()).isEqualTo(Algorithm.AIMD);
        assertThat(o.getBackoff()).isEqualTo(Backoff.Kind.LINEAR);
        // What the URI set, as typed: messages quote it so.
        assertThat(o.options()).containsEntry("minDelay", "250ms").containsEntry("algorithm", "AIMD");
        PoolConfig config = e.poolConfig();
        assertThat(config.core().algorithm()).isEqualTo(Algorithm.AIMD);
        assertThat(config.core().initialLimit()).isEqualTo(4);
        assertThat(config.limit().maxLimit()).isEqualTo(40);
        assertThat(config.adapt().onLatency()).isFalse();
        assertThat(config.rateLimitStatusCodes()).containsExactly(429);
        assertThat(config.retryPolicy((error, attempt) -> true).retries()).isEqualTo(5);
        assertThat(config.retryPolicy((error, attempt) -> true).backoff().minDelay()).isEqualTo(Duration.ofMillis(250));
    }

    @Test
    void theDefaultsAreThoseTheComponentPageLists() {
        PoolConfig config = context.getEndpoint("adaptive:defaults?maxLimit=100", AdaptiveEndpoint.class).poolConfig();
        assertThat(config).isEqualTo(PoolConfig.builder().build());
        assertThat(config.core()).isEqualTo(AdaptiveConfig.defaults());
        assertThat(config.core().algorithm()).isEqualTo(Algorithm.VEGAS);
        assertThat(config.core().effectiveInitialLimit()).isEqualTo(5);
        assertThat(config.core().minLimit()).isEqualTo(1);
        assertThat(config.core().maxLimit()).isEqualTo(100);
        assertThat(config.core().retries()).isEqualTo(3);
        assertThat(config.core().minDelay()).isEqualTo(Duration.ofMillis(100));
        assertThat(config.core().maxDelay()).isEqualTo(Duration.ofSeconds(30));
        assertThat(config.core().jitter()).isEqualTo(0.2);
        assertThat(config.core().maxRateLimitRetries()).isEqualTo(10);
        assertThat(config.maxRetryAfter()).isEqualTo(Duration.ofMinutes(10));
        assertThat(config.taskTimeout()).isNull();
        assertThat(config.maxQueueSize()).isEqualTo(10_000);
        assertThat(config.rateLimitStatusCodes()).containsExactlyInAnyOrder(429, 503);
        assertThat(context.getEndpoint("adaptive:defaults", AdaptiveEndpoint.class).getTimeout())
                .isEqualTo(Duration.ofSeconds(30));
    }

    @Test
    void eachPoolOptionHasOneValuePerPoolWhicheverEndpointSetsIt() {
        context.getEndpoint("adaptive:shared?maxLimit=10&retries=2");
        // Joins: sets nothing, the same values, or options no other endpoint set.
        context.getEndpoint("adaptive:shared");
        context.getEndpoint("adaptive:shared?retries=2&maxLimit=10&timeout=1s");
        context.getEndpoint("adaptive:shared?maxLimit=10");
        context.getEndpoint("adaptive:shared?minDelay=250ms");
        context.getEndpoint("adaptive:shared?minDelay=250");   // the same duration, spelled otherwise

        assertThatThrownBy(() -> context.getEndpoint("adaptive:shared?maxLimit=20&retries=2"))
                .isInstanceOf(ResolveEndpointFailedException.class)
                .rootCause().isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("adaptive pool 'shared': adaptive://shared?maxLimit=20&retries=2 sets maxLimit=10"
                        + " (adaptive://shared?maxLimit=10&retries=2) vs 20");
        PoolConfig config = context.getEndpoint("adaptive:shared", AdaptiveEndpoint.class).poolConfig();
        assertThat(config.core().maxLimit()).isEqualTo(10);
        assertThat(config.core().retries()).isEqualTo(2);
        assertThat(config.core().minDelay()).isEqualTo(Duration.ofMillis(250));
        // Other names are other pools.
        context.getEndpoint("adaptive:other?maxLimit=20");
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

        assertThatThrownBy(() -> context.getEndpoint("adaptive:early?maxLimit=7"))
                .rootCause().hasMessageContaining("adaptive pool 'early' already runs with its options fixed")
                .hasMessageContaining("would change maxLimit=100 vs 7");
        // An endpoint that changes nothing still joins.
        context.getEndpoint("adaptive:early?maxLimit=100");
    }

    @Test
    void optionsOnTheProducerApplyEvenIfTheConsumerRouteStartedFirst() throws Exception {
        context.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("adaptive:late").setBody(constant("ok"));
            }
        });
        assertThat(template.requestBody("adaptive:late?algorithm=fixed&maxLimit=3", "x")).isEqualTo("ok");
        AdaptiveStats stats = context.getComponent("adaptive", AdaptiveComponent.class).stats("late").orElseThrow();
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
