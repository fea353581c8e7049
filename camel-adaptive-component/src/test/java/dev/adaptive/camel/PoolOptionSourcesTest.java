package dev.adaptive.camel;

import dev.adaptive.fleet.InMemoryCoordinator;
import dev.adaptive.time.Ticker;

import org.apache.camel.CamelContext;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.PropertyBindingSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Where a pool's options come from, the nearer winning option by option: a URI of the pool, then
 * the named pool's configuration, then the component's; and the component's options read text as
 * strictly as URIs do, whichever way Camel binds them.
 */
class PoolOptionSourcesTest {

    @RegisterExtension
    final StandardErrorCapture err = new StandardErrorCapture();

    private CamelContext camel;
    private AdaptiveComponent adaptive;

    @BeforeEach
    void start() throws Exception {
        camel = new DefaultCamelContext();
        adaptive = camel.getComponent("adaptive", AdaptiveComponent.class);
        bind(Map.of("retries", "7", "maxDelay", "2s", "outageProbe", "250ms", "pools.orders.retries", "4",
                "pools.orders.maxLimit", "20", "pools.orders.outage-probe", "0"));
        camel.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("adaptive:orders").setBody(constant("ok"));
                from("adaptive:billing").setBody(constant("ok"));
            }
        });
        camel.start();
    }

    @AfterEach
    void stop() throws Exception {
        camel.close();
    }

    private void bind(Map<String, Object> properties) {
        PropertyBindingSupport.build().withConfigurer(adaptive.getComponentPropertyConfigurer())
                .withIgnoreCase(true).withMandatory(true).withRemoveParameters(false)
                .bind(camel, adaptive, new LinkedHashMap<>(properties));
    }

    @Test
    void theUriWinsOverTheNamedPoolWhichWinsOverTheComponent() {
        assertThat(camel.createProducerTemplate().requestBody("adaptive:orders?maxLimit=30", "x")).isEqualTo("ok");
        assertThat(camel.createProducerTemplate().requestBody("adaptive:billing", "x")).isEqualTo("ok");
        var orders = adaptive.options("orders").orElseThrow();
        assertThat(orders.maxLimit()).as("the URI").isEqualTo(30);
        assertThat(orders.retries()).as("the named pool").isEqualTo(4);
        assertThat(orders.maxDelay()).as("the component").isEqualTo(Duration.ofSeconds(2));
        assertThat(orders.outageProbe()).as("the named pool").isEqualTo(Duration.ZERO);
        var billing = adaptive.options("billing").orElseThrow();
        assertThat(billing.maxLimit()).as("the default").isEqualTo(100);
        assertThat(billing.retries()).as("the component").isEqualTo(7);
        assertThat(billing.outageProbe()).as("the component").isEqualTo(Duration.ofMillis(250));
    }

    @Test
    void componentOptionsAreReadAsStrictlyAsUris() {
        assertThatThrownBy(() -> bind(Map.of("maxDelay", "1h30x"))).rootCause()
                .hasMessageStartingWith("maxDelay must be a duration: ");
        assertThatThrownBy(() -> bind(Map.of("algorithm", "f\u0131xed"))).rootCause()
                .hasMessage("algorithm must be one of vegas|aimd|gradient2|fixed: f\u0131xed");
        assertThatThrownBy(() -> bind(Map.of("max-limit", "5.5"))).rootCause()
                .hasMessage("maxLimit must be a whole number: 5.5");
        assertThatThrownBy(() -> bind(Map.of("outageProbe", "-1s"))).rootCause()
                .hasMessage("outageProbe must be a duration >= 0: -1s");
        bind(Map.of("fleet-outage-policy", "local-only", "backoff", "LINEAR"));
        assertThat(adaptive.getConfiguration().getFleetOutagePolicy()).hasToString("LOCAL_ONLY");
        assertThat(adaptive.getConfiguration().options()).containsEntry("backoff", "LINEAR");
    }

    /**
     * The catalog's {@code configuration} option is a path to the same options: they are read as
     * strictly through it, on the component and in a URI, and its text is quoted as typed.
     */
    @Test
    void optionsReachedThroughTheConfigurationAreReadAsStrictly() {
        assertThatThrownBy(() -> bind(Map.of("configuration.maxDelay", "1h30x"))).rootCause()
                .hasMessageStartingWith("maxDelay must be a duration: ");
        assertThatThrownBy(() -> bind(Map.of("configuration.algorithm", "f\u0131xed"))).rootCause()
                .hasMessage("algorithm must be one of vegas|aimd|gradient2|fixed: f\u0131xed");
        assertThatThrownBy(() -> bind(Map.of("configuration.clock", "#nothere")))
                .hasMessageContaining("clock=#nothere");
        assertThatThrownBy(() -> camel.getEndpoint("adaptive:ledger?configuration.waitTimeout=abc")).rootCause()
                .hasMessageStartingWith("waitTimeout must be a duration: ");
        bind(Map.of("configuration.max-retry-after", "90s"));
        assertThat(adaptive.getConfiguration().getMaxRetryAfter()).isEqualTo(Duration.ofSeconds(90));
        assertThat(adaptive.getConfiguration().options()).containsEntry("maxRetryAfter", "90s");
    }

    @Test
    void aBadNamedPoolOptionFailsItsEndpointNamingIt() {
        bind(Map.of("pools.ledger.maxLimt", "5"));
        assertThatThrownBy(() -> camel.getEndpoint("adaptive:ledger")).rootCause()
                .hasMessageStartingWith("pools.ledger.maxLimt: unknown pool option 'maxLimt'");
        bind(Map.of("pools.audit.outage-probe", "2h"));
        assertThatThrownBy(() -> camel.getEndpoint("adaptive:audit")).rootCause()
                .hasMessage("outageProbe must be at most 1h: 2h");
    }

    /**
     * The classifier bean a pool runs with reads back once it has taken its first exchange; a
     * pool on the default reading has none, and options(name) tells that apart from a pool not
     * yet started.
     */
    @Test
    void theClassifierInForceReadsBackPerPool() throws Exception {
        try (CamelContext camel = new DefaultCamelContext()) {
            ExchangeClassifier mine = exchange -> null;
            camel.getRegistry().bind("mine", mine);
            camel.addRoutes(new RouteBuilder() {
                @Override
                public void configure() {
                    from("adaptive:classified").setBody(constant("ok"));
                    from("adaptive:plain").setBody(constant("ok"));
                }
            });
            camel.start();
            AdaptiveComponent component = camel.getComponent("adaptive", AdaptiveComponent.class);
            assertThat(component.classifier("classified")).as("before its first exchange").isEmpty();
            assertThat(camel.createProducerTemplate().requestBody("adaptive:classified?classifier=#mine", "x"))
                    .isEqualTo("ok");
            assertThat(camel.createProducerTemplate().requestBody("adaptive:plain", "x")).isEqualTo("ok");
            assertThat(component.classifier("classified")).as("the bean").containsSame(mine);
            assertThat(component.classifier("plain")).as("the default reading: no bean").isEmpty();
            assertThat(component.options("plain")).as("started, unlike a pool not yet used").isPresent();
            assertThat(component.classifier("nowhere")).isEmpty();
        }
    }

    /**
     * The component's own option rateLimitStatusCodes, like the core's options, comes from the
     * nearest source and reads back once the pool has taken its first exchange: the statuses in
     * force, in ascending order, whatever order and spacing they were given in.
     */
    @Test
    void theRateLimitStatusCodesInForceReadBackPerPool() throws Exception {
        try (CamelContext statuses = new DefaultCamelContext()) {
            AdaptiveComponent component = statuses.getComponent("adaptive", AdaptiveComponent.class);
            PropertyBindingSupport.build().withConfigurer(component.getComponentPropertyConfigurer())
                    .withIgnoreCase(true).withMandatory(true).withRemoveParameters(false)
                    .bind(statuses, component, new LinkedHashMap<>(Map.of("rate-limit-status-codes", "503, 429,420",
                            "pools.orders.rate-limit-status-codes", "429")));
            statuses.addRoutes(new RouteBuilder() {
                @Override
                public void configure() {
                    from("adaptive:orders").setBody(constant("ok"));
                    from("adaptive:billing").setBody(constant("ok"));
                    from("adaptive:ledger").setBody(constant("ok"));
                }
            });
            statuses.start();
            assertThat(component.rateLimitStatusCodes("orders")).as("before its first exchange").isEmpty();
            for (String uri : List.of("adaptive:orders", "adaptive:billing", "adaptive:ledger?rateLimitStatusCodes=599,429")) {
                assertThat(statuses.createProducerTemplate().requestBody(uri, "x")).isEqualTo("ok");
            }
            assertThat(component.rateLimitStatusCodes("orders")).as("the named pool").contains(Set.of(429));
            assertThat(component.rateLimitStatusCodes("billing").orElseThrow()).as("the component")
                    .containsExactly(420, 429, 503);
            assertThat(component.rateLimitStatusCodes("ledger").orElseThrow()).as("the URI").containsExactly(429, 599);
            assertThat(component.rateLimitStatusCodes("nowhere")).isEmpty();
        }
        try (CamelContext defaults = new DefaultCamelContext()) {
            defaults.addRoutes(new RouteBuilder() {
                @Override
                public void configure() {
                    from("adaptive:orders").setBody(constant("ok"));
                }
            });
            defaults.start();
            assertThat(defaults.createProducerTemplate().requestBody("adaptive:orders", "x")).isEqualTo("ok");
            assertThat(defaults.getComponent("adaptive", AdaptiveComponent.class).rateLimitStatusCodes("orders")
                    .orElseThrow()).as("the default").containsExactly(429, 503);
        }
    }

    /**
     * With one Coordinator bean (the component's, autowired), a pool without fleetNodeId runs
     * alone, as camel.md says, even when the component also sets a fleet default (fleetKey) for
     * the pools that join.
     */
    @Test
    void aPoolWithoutFleetNodeIdRunsAloneBesideTheComponentsFleetDefaults() throws Exception {
        try (CamelContext fleet = new DefaultCamelContext()) {
            fleet.getRegistry().bind("fleet", new InMemoryCoordinator(Ticker.system()));
            AdaptiveComponent component = fleet.getComponent("adaptive", AdaptiveComponent.class);
            PropertyBindingSupport.build().withConfigurer(component.getComponentPropertyConfigurer())
                    .withIgnoreCase(true).withMandatory(true).withRemoveParameters(false)
                    .bind(fleet, component, new LinkedHashMap<>(Map.of("fleet-key", "payments-api")));
            fleet.addRoutes(new RouteBuilder() {
                @Override
                public void configure() {
                    from("adaptive:payments").setBody(constant("ok"));
                    from("adaptive:local").setBody(constant("ok"));
                }
            });
            fleet.start();
            assertThat(fleet.createProducerTemplate().requestBody("adaptive:payments?fleetNodeId=node-1", "x"))
                    .isEqualTo("ok");
            assertThat(fleet.createProducerTemplate().requestBody("adaptive:local", "x")).isEqualTo("ok");
            assertThat(component.stats("payments").orElseThrow().fleet()).as("a member").isNotNull();
            assertThat(component.options("payments").orElseThrow().fleetKey()).isEqualTo("payments-api");
            assertThat(component.stats("local").orElseThrow().fleet()).as("alone").isNull();
        }
    }
    /**
     * A component-level fleetNodeId (or fleetKey) is a default for the fleets the pools join: with
     * no coordinator for a pool (none in the registry, so none autowired), that pool runs alone, a
     * warning at the start says the component has no coordinator, and only an endpoint's own
     * fleetNodeId without a coordinator is an error.
     */
    @Test
    void aComponentFleetNodeIdWithoutCoordinatorLeavesThePoolsAlone() throws Exception {
        try (CamelContext noFleet = new DefaultCamelContext()) {
            AdaptiveComponent component = noFleet.getComponent("adaptive", AdaptiveComponent.class);
            PropertyBindingSupport.build().withConfigurer(component.getComponentPropertyConfigurer())
                    .withIgnoreCase(true).withMandatory(true).withRemoveParameters(false)
                    .bind(noFleet, component, new LinkedHashMap<>(Map.of("fleet-node-id", "node-1", "fleet-key", "orders")));
            noFleet.addRoutes(new RouteBuilder() {
                @Override
                public void configure() {
                    from("adaptive:orders").setBody(constant("ok"));
                }
            });
            noFleet.start();
            assertThat(noFleet.createProducerTemplate().requestBody("adaptive:orders", "x")).isEqualTo("ok");
            assertThat(component.stats("orders").orElseThrow().fleet()).as("alone").isNull();
            assertThat(component.options("orders").orElseThrow().fleetNodeId()).isNull();
            assertThat(component.options("orders").orElseThrow().fleetKey()).isNull();
            assertThat(err.text()).contains("The adaptive component sets fleetNodeId=node-1 but has no coordinator:"
                    + " the registry holds no Coordinator bean");
            assertThatThrownBy(() -> noFleet.getEndpoint("adaptive:member?fleetNodeId=node-2")).rootCause()
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("fleetNodeId has no meaning without coordinator: node-2");
            PropertyBindingSupport.build().withConfigurer(component.getComponentPropertyConfigurer())
                    .withIgnoreCase(true).withMandatory(true).withRemoveParameters(false)
                    .bind(noFleet, component, new LinkedHashMap<>(Map.of("pools.ledger.fleet-node-id", "node-3")));
            assertThatThrownBy(() -> noFleet.getEndpoint("adaptive:ledger")).rootCause()
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("fleetNodeId has no meaning without coordinator: node-3");
        }
    }

    /**
     * With two Coordinator beans Camel autowires none: a pool that names one joins its fleet under
     * the component's fleetNodeId, and a pool that names none runs alone.
     */
    @Test
    void withTwoCoordinatorsTheComponentFleetNodeIdGoesToThePoolsThatNameOne() throws Exception {
        try (CamelContext twoFleets = new DefaultCamelContext()) {
            twoFleets.getRegistry().bind("fleetA", new InMemoryCoordinator(Ticker.system()));
            twoFleets.getRegistry().bind("fleetB", new InMemoryCoordinator(Ticker.system()));
            AdaptiveComponent component = twoFleets.getComponent("adaptive", AdaptiveComponent.class);
            component.getConfiguration().setFleetNodeId("node-1");
            twoFleets.addRoutes(new RouteBuilder() {
                @Override
                public void configure() {
                    from("adaptive:payments?coordinator=#fleetA").setBody(constant("ok"));
                    from("adaptive:local").setBody(constant("ok"));
                }
            });
            twoFleets.start();
            assertThat(twoFleets.createProducerTemplate().requestBody("adaptive:payments", "x")).isEqualTo("ok");
            assertThat(twoFleets.createProducerTemplate().requestBody("adaptive:local", "x")).isEqualTo("ok");
            assertThat(component.options("payments").orElseThrow().fleetNodeId()).isEqualTo("node-1");
            assertThat(component.stats("payments").orElseThrow().fleet()).as("a member").isNotNull();
            assertThat(component.stats("local").orElseThrow().fleet()).as("alone").isNull();
        }
    }
    /**
     * A named pool whose name no endpoint uses (a typo, most likely) gets one warning once the
     * context has started, naming it and the pools the endpoints use; a route added later that
     * uses it still gets its options.
     */
    @Test
    void aNamedPoolNoEndpointUsesIsLoggedOnceTheContextHasStarted() throws Exception {
        try (CamelContext typo = new DefaultCamelContext()) {
            AdaptiveComponent component = typo.getComponent("adaptive", AdaptiveComponent.class);
            PropertyBindingSupport.build().withConfigurer(component.getComponentPropertyConfigurer())
                    .withIgnoreCase(true).withMandatory(true).withRemoveParameters(false)
                    .bind(typo, component, new LinkedHashMap<>(Map.of("pools.ordres-api.max-limit", "50",
                            "pools.ordersApi.retries", "2", "pools.billing.retries", "1")));
            typo.addRoutes(new RouteBuilder() {
                @Override
                public void configure() {
                    from("direct:in").to("adaptive:orders-api");
                    from("adaptive:orders-api").setBody(constant("ok"));
                    from("adaptive:billing").setBody(constant("ok"));
                }
            });
            typo.start();

            List<String> warnings = err.lines().stream().filter(l -> l.contains("Named pool")).toList();
            assertThat(warnings).hasSize(1);
            assertThat(warnings.get(0)).contains("WARN").contains("Named pool 'ordresApi' (camel.component.adaptive.pools.ordresApi.*)")
                    .contains("the endpoints use billing, orders-api");
            assertThat(typo.createProducerTemplate().requestBody("direct:in", "x")).isEqualTo("ok");
            assertThat(component.options("orders-api").orElseThrow().retries()).isEqualTo(2);

            typo.addRoutes(new RouteBuilder() {
                @Override
                public void configure() {
                    from("adaptive:ordres-api").setBody(constant("later"));
                }
            });
            assertThat(typo.createProducerTemplate().requestBody("adaptive:ordres-api", "x")).isEqualTo("later");
            assertThat(component.options("ordres-api").orElseThrow().maxLimit()).isEqualTo(50);
            assertThat(err.lines().stream().filter(l -> l.contains("Named pool"))).as("no more warnings").hasSize(1);
        }
    }

    /** An option name no pool has, in a named pool no endpoint uses, fails the start, naming it. */
    @Test
    void anUnknownOptionOfANamedPoolNoEndpointUsesFailsTheStart() throws Exception {
        try (CamelContext unused = new DefaultCamelContext()) {
            AdaptiveComponent component = unused.getComponent("adaptive", AdaptiveComponent.class);
            PropertyBindingSupport.build().withConfigurer(component.getComponentPropertyConfigurer())
                    .withIgnoreCase(true).withMandatory(true).withRemoveParameters(false)
                    .bind(unused, component, new LinkedHashMap<>(Map.of("pools.audit.max-limt", "5")));
            assertThatThrownBy(unused::start).rootCause().isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("pools.audit.maxLimt: unknown pool option 'maxLimt' (known: algorithm,");
        }
    }
}
