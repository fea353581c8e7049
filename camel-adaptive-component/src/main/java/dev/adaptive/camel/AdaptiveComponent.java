package dev.adaptive.camel;

import dev.adaptive.config.AdaptiveConfig;
import dev.adaptive.config.ConfigOption;
import dev.adaptive.internal.Ascii;
import dev.adaptive.time.Scheduler;
import dev.adaptive.time.Ticker;
import org.apache.camel.CamelContext;
import org.apache.camel.Endpoint;
import org.apache.camel.StartupListener;
import org.apache.camel.spi.ExecutorServiceManager;
import org.apache.camel.spi.ManagementAgent;
import org.apache.camel.spi.Metadata;
import org.apache.camel.spi.PropertyConfigurer;
import org.apache.camel.support.DefaultComponent;
import dev.adaptive.fleet.Coordinator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.management.ObjectName;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The {@code adaptive:} component: one pool per name per Camel context.
 *
 * <p>Threads, all from Camel's {@link ExecutorServiceManager}: one scheduler thread
 * ({@code AdaptiveScheduler}) for every wait of every pool, and per pool a cached thread
 * pool ({@code Adaptive[name]}) that runs admitted attempts. Waiting exchanges hold no
 * thread; attempts never exceed the pool's limit, so neither do the threads running them.
 * Stopping the component fails what its pools still hold with
 * {@link AdaptivePoolStoppedException} and shuts every thread down.
 *
 * <p>Pool options come from three places, the nearer winning, option by option: the URIs of the
 * pool's endpoints ({@code adaptive:orders-api?maxLimit=50}), the named pool's configuration
 * ({@code camel.component.adaptive.pools.orders-api.max-limit=50}, {@link #setPools}) and the
 * component's defaults for every pool ({@code camel.component.adaptive.max-limit=50},
 * {@link #setConfiguration}). Each option has one value per pool: two endpoints that set it
 * differently, or an endpoint created after the pool took its first exchange that would change
 * it, fail with {@link IllegalArgumentException} naming the option, both values and their
 * sources. A named pool's option names are checked when the component starts, and once the
 * context has started a named pool that no endpoint uses (a typo in its name, most likely) is
 * logged at WARN. A single {@link dev.adaptive.fleet.Coordinator} bean in the registry is autowired as
 * the component's default {@code coordinator}, the fleet of the pools that set {@code fleetNodeId}.
 * The component's {@code fleetNodeId} and {@code fleetKey} are defaults for the pools in a fleet: a
 * pool without a coordinator runs alone (a pool's own {@code fleetNodeId} or {@code fleetKey}
 * without one fails, naming it).
 *
 * <p>Thread-safe.
 */
@org.apache.camel.spi.annotations.Component("adaptive")
public class AdaptiveComponent extends DefaultComponent {

    private static final Logger LOG = LoggerFactory.getLogger(AdaptiveComponent.class);

    private final Map<String, Slot> slots = new ConcurrentHashMap<>();
    private volatile ScheduledExecutorService timer;
    private volatile Scheduler scheduler;

    @Metadata(label = "advanced", description = "The wall clock that HTTP-date Retry-After values are read against;"
            + " waits always run on the component's scheduler. Default: the system UTC clock.")
    private volatile Clock clock = Clock.systemUTC();

    @Metadata(description = "The defaults of every pool's options: camel.component.adaptive.max-limit=50 gives every"
            + " pool that sets no maxLimit of its own (in a named pool or a URI) a maximum of 50.")
    private PoolConfiguration configuration = new PoolConfiguration();

    @Metadata(label = "advanced", description = "Named pools: pool options by pool name, as"
            + " camel.component.adaptive.pools.orders-api.max-limit=50 (the pool's name, a dot, the option). They"
            + " override the component's defaults and are overridden by options in a URI of the pool.")
    private Map<String, Object> pools = new NamedPools();

    private volatile StrictConfigurer endpointConfigurer;
    private volatile StrictConfigurer componentConfigurer;
    /** Set once the component listens for the context's start, to warn of named pools no endpoint uses. */
    private final AtomicBoolean watchingStart = new AtomicBoolean();
    /** Set by each start of the component, cleared by the check of the named pools that follows it. */
    private final AtomicBoolean checkOnStart = new AtomicBoolean();

    /** Creates the component; Camel does so on first use of {@code adaptive:}. */
    public AdaptiveComponent() {
    }

    /**
     * @return the wall clock that HTTP-date {@code Retry-After} values are read against;
     *         default {@link Clock#systemUTC()}
     */
    public Clock getClock() {
        return clock;
    }

    /**
     * Sets the wall clock that HTTP-date {@code Retry-After} values are read against (a date
     * means "wait until then", so "now" comes from this clock). Pools created afterwards use
     * it. Waits themselves always run on the component's scheduler, never on this clock.
     *
     * @param clock the clock; default {@link Clock#systemUTC()}
     * @throws NullPointerException if {@code clock} is null
     */
    public void setClock(Clock clock) {
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** @return the defaults of every pool's options; only those set on it apply */
    public PoolConfiguration getConfiguration() {
        return configuration;
    }

    /**
     * @param configuration the defaults of every pool's options, below a named pool's and a URI's
     * @throws NullPointerException if {@code configuration} is null
     */
    public void setConfiguration(PoolConfiguration configuration) {
        this.configuration = Objects.requireNonNull(configuration, "configuration");
    }

    /**
     * @return the named pools' options, keyed {@code <pool name>.<option>} (a name set here, in
     *         Java, may hold dots: the option is what follows the last one; in properties it may
     *         not, since Camel's binding takes each dot for a step into this map)
     */
    public Map<String, Object> getPools() {
        return pools;
    }

    /**
     * @param pools the named pools' options, keyed {@code <pool name>.<option>}, each value text
     *              or typed as in a URI
     * @throws NullPointerException if {@code pools} is null
     */
    public void setPools(Map<String, Object> pools) {
        NamedPools named = new NamedPools();
        named.putAll(Objects.requireNonNull(pools, "pools"));
        this.pools = named;
    }

    @Override
    public PropertyConfigurer getEndpointPropertyConfigurer() {
        StrictConfigurer c = endpointConfigurer;
        PropertyConfigurer generated = super.getEndpointPropertyConfigurer();
        if (c == null && generated != null) {
            c = new StrictConfigurer(generated, null);
            endpointConfigurer = c;
        }
        return c != null ? c : generated;
    }

    @Override
    public PropertyConfigurer getComponentPropertyConfigurer() {
        StrictConfigurer c = componentConfigurer;
        PropertyConfigurer generated = super.getComponentPropertyConfigurer();
        if (c == null && generated != null) {
            c = new StrictConfigurer(generated, this);
            componentConfigurer = c;
        }
        return c != null ? c : generated;
    }

    @Override
    protected Endpoint createEndpoint(String uri, String remaining, Map<String, Object> parameters) throws Exception {
        if (remaining == null || remaining.isBlank()) {
            throw new IllegalArgumentException("name must not be empty: adaptive:" + remaining
                    + " (the URI is adaptive:name)");
        }
        AdaptiveEndpoint endpoint = new AdaptiveEndpoint(uri, this, remaining);
        setProperties(endpoint, parameters);
        return endpoint;
    }

    @Override
    protected void afterConfiguration(String uri, String remaining, Endpoint endpoint, Map<String, Object> parameters)
            throws Exception {
        super.afterConfiguration(uri, remaining, endpoint, parameters);
        AdaptiveEndpoint e = (AdaptiveEndpoint) endpoint;
        Duration timeout = e.getTimeout();
        if (timeout == null || timeout.isNegative()) {
            throw new IllegalArgumentException("timeout must be a duration >= 0: " + e.timeoutSpelling());
        }
        bind(e);
    }

    /**
     * Checks an endpoint's pool options against those the pool's other endpoints set, and against
     * the pool's options in force if it is running; then adds them to the pool's.
     *
     * @throws IllegalArgumentException on a bad option, or options that conflict
     */
    private synchronized void bind(AdaptiveEndpoint e) {
        String name = e.getName();
        Slot slot = slots.computeIfAbsent(name, n -> new Slot());
        Map<String, Object> mine = canonical(e.getConfiguration().options());
        List<String> clashes = new ArrayList<>();
        mine.forEach((option, value) -> {
            Source already = slot.fromUris.get(option);
            if (already != null && !same(option, already.value(), value)) {
                clashes.add(option + "=" + already.value() + " (" + already.uri() + ") vs " + value);
            }
        });
        if (!clashes.isEmpty()) {
            throw new IllegalArgumentException("adaptive pool '" + name + "': " + e.getEndpointUri() + " sets "
                    + String.join(", ", clashes) + ". A pool option has one value per pool: set it on one endpoint,"
                    + " the same on every endpoint, or in camel.component.adaptive.pools." + name + ".*");
        }
        Map<String, Object> uris = uriOptions(slot);
        uris.putAll(mine);
        PoolConfig config = effective(name, uris);
        if (slot.frozen != null && !slot.frozen.equals(config)) {
            throw new IllegalArgumentException("adaptive pool '" + name + "' already runs with its options fixed ("
                    + slot.frozenBy + "); " + e.getEndpointUri() + " would change "
                    + String.join(", ", slot.frozen.differences(config)) + " (running vs here). A pool's options are"
                    + " fixed when it takes its first exchange: set them before, on any of its endpoints, or in"
                    + " camel.component.adaptive.pools." + name + ".*");
        }
        mine.forEach((option, value) -> slot.fromUris.putIfAbsent(option, new Source(value, e.getEndpointUri())));
    }

    /**
     * @param name       a pool's name
     * @param uriOptions the options its endpoints' URIs set
     * @return its options: the component's defaults, overridden by the named pool's, overridden by the URIs'
     */
    private PoolConfig effective(String name, Map<String, Object> uriOptions) {
        Map<String, Object> defaults = canonical(configuration.options());
        Map<String, Object> named = canonical(namedPool(name));
        String nodeId = ConfigOption.FLEET_NODE_ID.key();
        String coordinator = ConfigOption.COORDINATOR.key();
        boolean ownCoordinator = named.containsKey(coordinator) || uriOptions.containsKey(coordinator);
        Object fleet = uriOptions.containsKey(coordinator) ? uriOptions.get(coordinator)
                : named.containsKey(coordinator) ? named.get(coordinator) : defaults.get(coordinator);
        boolean hasNodeId = named.containsKey(nodeId) || uriOptions.containsKey(nodeId) || defaults.get(nodeId) != null;
        if (fleet == null || !ownCoordinator && !hasNodeId) {
            // The component's fleet options are defaults for the pools in a fleet: its coordinator
            // (autowired when the registry holds one) is the fleet of the pools that name themselves
            // in it, and its fleetNodeId and fleetKey are this application's id and the key in the
            // fleets its pools join. A pool with no coordinator, or only the component's and no
            // fleetNodeId, runs alone: left, the component's fleetNodeId or fleetKey would fail it
            // as an option without coordinator (every pool, when the registry holds no Coordinator
            // bean, or two, so that none is autowired). A pool's own fleetNodeId or fleetKey (its
            // URI's, its named pool's) without a coordinator still fails, naming it.
            defaults.remove(coordinator);
            defaults.remove(nodeId);
            defaults.remove(ConfigOption.FLEET_KEY.key());
        }
        return PoolConfig.builder()
                .setAll(defaults)
                .setAll(named)
                .setAll(uriOptions)
                .build();
    }

    /** @return the options {@code pools} holds for this pool name, by option */
    private Map<String, Object> namedPool(String name) {
        Map<String, Object> out = new LinkedHashMap<>();
        NamedPools.byPool(pools).forEach((pool, options) -> {
            if (samePoolName(pool, name)) {
                options.forEach((option, value) -> {
                    checkNamedPoolOption(pool, option);
                    out.put(option, reference(option, value));
                });
            }
        });
        return out;
    }

    /** @throws IllegalArgumentException naming {@code pools.<pool>.<option>} if no pool option has that name */
    private static void checkNamedPoolOption(String pool, String option) {
        if (PoolConfig.poolOption(option) == null) {
            throw new IllegalArgumentException("pools." + pool + "." + option + ": unknown pool option '"
                    + option + "' (known: " + String.join(", ", ConfigOption.keys()) + ", "
                    + PoolConfig.RATE_LIMIT_STATUS_CODES + ", " + PoolConfig.CLASSIFIER + ")");
        }
    }

    /**
     * Logs a warning for each named pool that no endpoint uses once the context has started: a
     * typo in its name ({@code pools.ordres-api.*} for {@code adaptive:orders-api}) would
     * otherwise leave its options unused without a word. Not an error: a route added later, or
     * an endpoint resolved at run time ({@code toD}), may still use it.
     */
    private void warnUnusedNamedPools() {
        Set<String> used = new TreeSet<>(slots.keySet());
        for (String configured : NamedPools.byPool(pools).keySet()) {
            if (used.stream().noneMatch(name -> samePoolName(configured, name))) {
                // Camel's binding camel-cases the name (ordres-api comes as ordresApi): say how names match.
                LOG.warn("Named pool '{}' (camel.component.adaptive.pools.{}.*) matches no adaptive endpoint of the"
                        + " started Camel context: {}. Pool names match with or without dashes, in any letter case;"
                        + " check this one for a typo. A route added later, or an endpoint resolved at run time, that"
                        + " uses it still gets its options", configured, configured,
                        used.isEmpty() ? "no endpoint uses a pool yet" : "the endpoints use " + String.join(", ", used));
            }
        }
    }

    /** Resolves {@code #name} (or {@code #bean:name}) for the bean options of a named pool, as a URI would. */
    private Object reference(String option, Object value) {
        if (value instanceof String text && text.startsWith("#")) {
            String name = text.startsWith("#bean:") ? text.substring(6) : text.substring(1);
            Object bean = getCamelContext().getRegistry().lookupByName(name);
            if (bean == null) {
                throw new IllegalArgumentException(option + " names no bean in the registry: " + text);
            }
            return bean;
        }
        return value;
    }

    /**
     * Pool names in {@code pools.<name>} match as Spring's and Camel Main's relaxed binding writes
     * them: {@code orders-api} is also {@code ordersApi} and {@code ordersapi}.
     */
    private static boolean samePoolName(String configured, String name) {
        return configured.equals(name)
                || Ascii.equalsIgnoreCase(configured.replace("-", "").replace("_", ""), name.replace("-", "").replace("_", ""));
    }

    private static Map<String, Object> canonical(Map<String, Object> options) {
        Map<String, Object> out = new LinkedHashMap<>();
        options.forEach((k, v) -> out.put(PoolConfig.poolOption(k), v));
        return out;
    }

    private static Map<String, Object> uriOptions(Slot slot) {
        Map<String, Object> out = new LinkedHashMap<>();
        slot.fromUris.forEach((k, s) -> out.put(k, s.value()));
        return out;
    }

    /** Compares two values of one option as read: {@code 1s} is {@code 1000}, beans by identity. */
    private static boolean same(String option, Object a, Object b) {
        Optional<ConfigOption> core = ConfigOption.find(option);
        if (core.isPresent()) {
            return core.get().kind() == ConfigOption.Kind.BEAN ? a == b
                    : Objects.equals(core.get().read(a), core.get().read(b));
        }
        if (PoolConfig.CLASSIFIER.equals(option)) {
            return a == b;
        }
        return PoolConfig.builder().set(option, a).build().equals(PoolConfig.builder().set(option, b).build());
    }

    /**
     * @param name a pool's name
     * @return the running pool, created on first use with the options bound to the name
     */
    synchronized ExchangePool pool(String name) {
        Slot slot = slots.computeIfAbsent(name, n -> new Slot());
        if (slot.pool == null) {
            if (scheduler == null) {
                throw new IllegalStateException("adaptive component is not started");
            }
            ExecutorServiceManager esm = getCamelContext().getExecutorServiceManager();
            ExecutorService workers = esm.newCachedThreadPool(this, "Adaptive[" + name + "]");
            slot.workers = workers;
            slot.pool = new ExchangePool(name, () -> freeze(name), Ticker.system(), scheduler, workers,
                    clock);
            slot.pool.engineListener(PoolMeters.listener(getCamelContext()));
            slot.mbean = manage(slot.pool);
        }
        return slot.pool;
    }

    /** Registers the pool's one MBean, if JMX is on; a failure costs the MBean, not the pool. */
    private ObjectName manage(ExchangePool pool) {
        ManagementAgent agent = getCamelContext().getManagementStrategy() == null ? null
                : getCamelContext().getManagementStrategy().getManagementAgent();
        if (agent == null) {
            return null;
        }
        try {
            ObjectName on = new ObjectName(agent.getMBeanObjectDomainName() + ":context="
                    + ObjectName.quote(getCamelContext().getManagementName()) + ",type=adaptive-pools,name="
                    + ObjectName.quote(pool.name()));
            agent.register(new ManagedAdaptivePool(this, pool), on);
            return on;
        } catch (Exception | LinkageError e) {
            LOG.warn("Adaptive pool '{}' has no MBean: registering it failed", pool.name(), e);
            return null;
        }
    }

    private void unmanage(Slot slot) {
        ObjectName on = slot.mbean;
        slot.mbean = null;
        ManagementAgent agent = getCamelContext().getManagementStrategy() == null ? null
                : getCamelContext().getManagementStrategy().getManagementAgent();
        if (on != null && agent != null) {
            try {
                agent.unregister(on);
            } catch (Exception e) {
                LOG.debug("Unregistering the MBean {} failed", on, e);
            }
        }
    }

    /** @return a pool's options: fixed if it runs, else as its configuration and URIs give them now */
    synchronized PoolConfig configOf(String name) {
        Slot slot = slots.computeIfAbsent(name, n -> new Slot());
        return slot.frozen != null ? slot.frozen : effective(name, uriOptions(slot));
    }

    /** Fixes a pool's options for good: called when its first exchange arrives. */
    private synchronized PoolConfig freeze(String name) {
        Slot slot = slots.get(name);
        if (slot.frozen == null) {
            slot.frozen = effective(name, uriOptions(slot));
            slot.frozenBy = slot.fromUris.isEmpty() ? "the component's configuration"
                    : "set by " + String.join(", ", new TreeSet<>(slot.fromUris.values().stream().map(Source::uri)
                    .toList())) + " and the component's configuration";
        }
        return slot.frozen;
    }

    /**
     * The stats API.
     *
     * @param name a pool's name
     * @return a snapshot of that pool, if it has taken exchanges
     */
    public Optional<AdaptiveStats> stats(String name) {
        Slot slot = slots.get(name);
        ExchangePool p = slot == null ? null : slot.pool;
        return p == null ? Optional.empty() : Optional.ofNullable(p.stats());
    }

    /**
     * @param name a pool's name
     * @return the core options the pool runs with (its URIs over its named configuration over the
     *         component's), once it has taken its first exchange; the component's own
     *         {@code rateLimitStatusCodes} read back from {@link #rateLimitStatusCodes(String)}
     */
    public Optional<AdaptiveConfig> options(String name) {
        return running(name).map(PoolConfig::core);
    }

    /**
     * @param name a pool's name
     * @return the HTTP statuses the pool reads as rate limits ({@code rateLimitStatusCodes}: its
     *         URIs over its named configuration over the component's; default 429 and 503), in
     *         ascending order, once it has taken its first exchange
     */
    public Optional<Set<Integer>> rateLimitStatusCodes(String name) {
        return running(name).map(PoolConfig::rateLimitStatusCodes);
    }

    /**
     * @param name a pool's name
     * @return the {@code classifier} bean the pool reads its attempts with (its URIs over its
     *         named configuration over the component's), once it has taken its first exchange;
     *         empty before, and for a pool on the default reading (its
     *         {@link #rateLimitStatusCodes(String)} and the exception): {@link #options(String)}
     *         is present for a started pool, to tell the two apart
     */
    public Optional<ExchangeClassifier> classifier(String name) {
        return running(name).map(PoolConfig::classifier);
    }

    /** @return the options a pool was fixed with at its first exchange, if it has taken one */
    private synchronized Optional<PoolConfig> running(String name) {
        Slot slot = slots.get(name);
        return Optional.ofNullable(slot == null ? null : slot.frozen);
    }

    /** @return the names of the pools started so far, sorted */
    public Set<String> poolNames() {
        Set<String> names = new TreeSet<>();
        slots.forEach((n, s) -> {
            if (s.pool != null) {
                names.add(n);
            }
        });
        return names;
    }

    @Override
    protected void doStart() throws Exception {
        super.doStart();
        // An option name no pool has is wrong whatever the pool's name: fail now, not when (or if)
        // an endpoint of that pool is created.
        NamedPools.byPool(pools).forEach((pool, options) -> options.keySet()
                .forEach(option -> checkNamedPoolOption(pool, option)));
        checkOnStart.set(true);
        if (watchingStart.compareAndSet(false, true)) {
            // Camel keeps its startup listeners across a stop and a start: one is enough.
            getCamelContext().addStartupListener(new StartupListener() {
                @Override
                public void onCamelContextStarted(CamelContext context, boolean alreadyStarted) {
                }

                @Override
                public void onCamelContextFullyStarted(CamelContext context, boolean alreadyStarted) {
                    // Called at the end of every start of the context (alreadyStarted is then true
                    // too), when every route's endpoints exist: a named pool none of them uses is
                    // suspect. Once per start of this component.
                    if (checkOnStart.compareAndSet(true, false)) {
                        warnUnusedNamedPools();
                    }
                }
            });
        }
        ScheduledExecutorService t = getCamelContext().getExecutorServiceManager()
                .newSingleThreadScheduledExecutor(this, "AdaptiveScheduler");
        if (t instanceof ScheduledThreadPoolExecutor stpe) {
            // Cancelled backoffs and timeouts would otherwise stay queued until their delay.
            stpe.setRemoveOnCancelPolicy(true);
        }
        timer = t;
        scheduler = new ExecutorScheduler(t);
        if (configuration.getCoordinator() == null) {
            int coordinators = getCamelContext().getRegistry().findByType(Coordinator.class).size();
            if (coordinators > 1) {
                // Camel autowires a component option only from a single bean: say why no fleet forms.
                LOG.warn("The adaptive component has no coordinator: the registry holds {} Coordinator beans, and one is"
                        + " autowired only when it is the only one; set camel.component.adaptive.coordinator=#<bean>"
                        + " or coordinator=#<bean> on the endpoints of the fleet's pools", coordinators);
            } else if (coordinators == 0 && (configuration.getFleetNodeId() != null || configuration.getFleetKey() != null)) {
                // The component's fleet options only apply to pools with a coordinator, and a pool
                // names one from the registry: a forgotten bean would otherwise pass unnoticed.
                LOG.warn("The adaptive component sets {} but has no coordinator: the registry holds no Coordinator"
                        + " bean, so every pool runs alone unless it is given one (coordinator=#<bean> on its"
                        + " endpoints or in camel.component.adaptive.pools.<name>.coordinator)",
                        configuration.getFleetNodeId() != null ? "fleetNodeId=" + configuration.getFleetNodeId()
                                : "fleetKey=" + configuration.getFleetKey());
            }
        }
    }

    @Override
    protected synchronized void doStop() throws Exception {
        ExecutorServiceManager esm = getCamelContext().getExecutorServiceManager();
        for (Slot slot : slots.values()) {
            if (slot.pool != null) {
                slot.pool.close();
                slot.pool = null;
            }
            unmanage(slot);
            if (slot.workers != null) {
                esm.shutdownNow(slot.workers);
                slot.workers = null;
            }
        }
        ScheduledExecutorService t = timer;
        if (t != null) {
            esm.shutdownNow(t);
        }
        timer = null;
        scheduler = null;
        super.doStop();
    }

    /** An option a URI set, and the URI. */
    private record Source(Object value, String uri) {
    }

    /** What the component knows of one name; guarded by the component's monitor. */
    private static final class Slot {
        final Map<String, Source> fromUris = new LinkedHashMap<>();
        PoolConfig frozen;
        String frozenBy;
        volatile ExchangePool pool;
        ExecutorService workers;
        ObjectName mbean;
    }
}
