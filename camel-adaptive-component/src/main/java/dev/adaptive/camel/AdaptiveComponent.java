package dev.adaptive.camel;

import dev.adaptive.time.Scheduler;
import dev.adaptive.time.Ticker;
import org.apache.camel.Endpoint;
import org.apache.camel.spi.ExecutorServiceManager;
import org.apache.camel.support.DefaultComponent;

import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;

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
 * <p>Thread-safe.
 */
@org.apache.camel.spi.annotations.Component("adaptive")
public class AdaptiveComponent extends DefaultComponent {

    private final Map<String, Slot> slots = new ConcurrentHashMap<>();
    private volatile ScheduledExecutorService timer;
    private volatile Scheduler scheduler;
    private volatile Clock clock = Clock.systemUTC();

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
        this.clock = java.util.Objects.requireNonNull(clock, "clock");
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
            throw new IllegalArgumentException("timeout must be a duration >= 0: " + timeout);
        }
        bind(e);
    }

    /**
     * Checks an endpoint's pool options against those the pool already has.
     *
     * @throws IllegalArgumentException on a bad option, or options that conflict with the pool's
     */
    private synchronized void bind(AdaptiveEndpoint e) {
        Slot slot = slots.computeIfAbsent(e.getName(), n -> new Slot());
        if (!e.hasPoolOptions()) {
            return;
        }
        PoolConfig mine = e.poolConfig();
        PoolConfig fixed = slot.config;
        String fixedBy = slot.definedBy;
        if (fixed == null && slot.frozen != null) {
            fixed = slot.frozen;
            fixedBy = "its defaults, as it took exchanges before any endpoint set options";
        }
        if (fixed == null) {
            slot.config = mine;
            slot.definedBy = e.getEndpointUri();
            return;
        }
        if (!fixed.equals(mine)) {
            throw new IllegalArgumentException("adaptive pool '" + e.getName() + "' is already configured by "
                    + fixedBy + "; " + e.getEndpointUri() + " conflicts: " + String.join(", ", fixed.differences(mine))
                    + " (already vs here). Set the pool's options on one endpoint, or the same on every endpoint.");
        }
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
        }
        return slot.pool;
    }

    /** Fixes a pool's options for good: called when its first exchange arrives. */
    private synchronized PoolConfig freeze(String name) {
        Slot slot = slots.get(name);
        if (slot.frozen == null) {
            slot.frozen = slot.config != null ? slot.config : PoolConfig.builder().build();
        }
        return slot.frozen;
    }

    /**
     * The stats API.
     *
     * @param name a pool's name
     * @return a snapshot of that pool, if it has taken exchanges
     */
    public Optional<PoolStats> stats(String name) {
        Slot slot = slots.get(name);
        ExchangePool p = slot == null ? null : slot.pool;
        return p == null ? Optional.empty() : Optional.ofNullable(p.stats());
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
        ScheduledExecutorService t = getCamelContext().getExecutorServiceManager()
                .newSingleThreadScheduledExecutor(this, "AdaptiveScheduler");
        if (t instanceof ScheduledThreadPoolExecutor stpe) {
            // Cancelled backoffs and timeouts would otherwise stay queued until their delay.
            stpe.setRemoveOnCancelPolicy(true);
        }
        timer = t;
        scheduler = new ExecutorScheduler(t);
    }

    @Override
    protected synchronized void doStop() throws Exception {
        ExecutorServiceManager esm = getCamelContext().getExecutorServiceManager();
        for (Slot slot : slots.values()) {
            if (slot.pool != null) {
                slot.pool.close();
                slot.pool = null;
            }
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

    /** What the component knows of one name; guarded by the component's monitor. */
    private static final class Slot {
        PoolConfig config;
        String definedBy;
        PoolConfig frozen;
        volatile ExchangePool pool;
        ExecutorService workers;
    }
}
