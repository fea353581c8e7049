package dev.adaptive.camel;

import org.apache.camel.Category;
import org.apache.camel.Consumer;
import org.apache.camel.Processor;
import org.apache.camel.Producer;
import org.apache.camel.api.management.ManagedAttribute;
import org.apache.camel.api.management.ManagedResource;
import org.apache.camel.spi.Metadata;
import org.apache.camel.spi.UriEndpoint;
import org.apache.camel.spi.UriParam;
import org.apache.camel.spi.UriPath;
import org.apache.camel.support.DefaultEndpoint;

import java.time.Duration;
import java.util.Optional;

/**
 * {@code adaptive:name}: a producer hands the exchange to the route that consumes from the
 * same name, like {@code direct:}, through the pool's adaptive limiter, which finds how many
 * attempts may run at once, retries failures and pauses the whole pool on a 429 with
 * {@code Retry-After}.
 *
 * <p>Every option but {@code timeout} and {@code synchronous} belongs to the pool
 * ({@link PoolConfiguration}), which is shared by every endpoint with the same name in one Camel
 * context. Each pool option has one value per pool: set in a URI, it overrides the named pool's
 * configuration ({@code camel.component.adaptive.pools.<name>.*}), which overrides the
 * component's ({@code camel.component.adaptive.*}); two endpoints that set one option to
 * different values, or an endpoint created after the pool started that would change it, fail
 * with {@link IllegalArgumentException} naming the option, both values and where each came from.
 *
 * <p>Text is read as every face reads it ({@link dev.adaptive.config.AdaptiveConfig}), not by
 * Camel's converter (which reads {@code abc} or {@code 1M} as 0 and {@code 1h30x} as an hour):
 * durations as milliseconds ({@code 500}), numbers with units from {@code d} to {@code ms} in
 * that order ({@code 1h30m15s}) or ISO-8601 ({@code PT1S}); anything else fails the endpoint's
 * creation with an {@link IllegalArgumentException} naming the option and quoting the text.
 *
 * <p>Thread-safe once configured; options are set while Camel creates the endpoint.
 */
@UriEndpoint(firstVersion = "0.1.0", scheme = "adaptive", title = "Adaptive", syntax = "adaptive:name",
        category = {Category.CORE, Category.HTTP}, headersClass = AdaptiveConstants.class)
@ManagedResource(description = "Managed adaptive endpoint; its pool's figures are on the pool's own MBean"
        + " (type=adaptive-pools), one per pool however many endpoints share it")
public class AdaptiveEndpoint extends DefaultEndpoint {

    /** Default wait for a consumer route when none is started: 30 s. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);

    /** The timeout as typed in the URI, so that its message quotes it so; null when set typed. */
    private volatile String timeoutText;

    @UriPath(description = "Name of the pool. Producers and the one consumer route with the same name in a"
            + " Camel context share one pool.")
    @Metadata(required = true)
    private String name;

    @UriParam
    private PoolConfiguration configuration = new PoolConfiguration();

    @UriParam(label = "producer", defaultValue = "30s", javaType = "java.time.Duration",
            description = "How long an exchange waits for a consumer route when none is started, holding no thread"
                    + " (a transacted exchange's thread waits with it);"
                    + " then it fails with AdaptiveConsumerNotAvailableException. 0 fails at once. This option is"
                    + " the endpoint's own, not the pool's. Default 30s.")
    private Duration timeout = DEFAULT_TIMEOUT;

    @UriParam(label = "producer,advanced", defaultValue = "false",
            description = "Whether the first attempt of an exchange runs on the caller's thread when a slot is free"
                    + " at once, as direct: does, instead of on the pool's worker threads. For callers that wait"
                    + " for the result anyway (ProducerTemplate.sendBody, a synchronous route): it saves a thread"
                    + " hand-off per exchange, and that attempt runs on the caller's exchange itself, in its unit"
                    + " of work, instead of on a copy; a retry still starts from the exchange as it was sent."
                    + " Exchanges that wait for a slot, retries and attempts after a Retry-After pause still run on"
                    + " the workers, and a task timeout frees the slot and fails the attempt but does not interrupt"
                    + " the caller's thread: the exchange ends once the route has returned. Transacted exchanges"
                    + " always run their first attempt this way, and their other attempts on the caller's thread"
                    + " too, which waits for them, so the transaction stays on its thread. This"
                    + " option is the endpoint's own, not the pool's. Default false.")
    private boolean synchronous;

    /**
     * @param uri       the endpoint URI
     * @param component the component
     * @param name      the pool's name
     */
    public AdaptiveEndpoint(String uri, AdaptiveComponent component, String name) {
        super(uri, component);
        this.name = name;
    }

    @Override
    public AdaptiveComponent getComponent() {
        return (AdaptiveComponent) super.getComponent();
    }

    @Override
    public Producer createProducer() {
        return new AdaptiveProducer(this);
    }

    @Override
    public Consumer createConsumer(Processor processor) throws Exception {
        AdaptiveConsumer consumer = new AdaptiveConsumer(this, processor);
        configureConsumer(consumer);
        return consumer;
    }

    /** @return the text the timeout was given as, or its value */
    String timeoutSpelling() {
        return timeoutText != null ? timeoutText : String.valueOf(timeout);
    }

    void timeoutSpelled(String text) {
        this.timeoutText = text;
    }

    /**
     * @return the options of this endpoint's pool as they stand: the running pool's, or those the
     *         component's configuration and the URIs bound so far give
     */
    PoolConfig poolConfig() {
        return getComponent().configOf(name);
    }

    /** @return the pool behind this endpoint, started on first use */
    ExchangePool pool() {
        return getComponent().pool(name);
    }

    /** @return a snapshot of the pool, if it has started */
    public Optional<AdaptiveStats> stats() {
        return getComponent().stats(name);
    }

    // ---- options -------------------------------------------------------------------------

    /** @return the pool's name */
    @ManagedAttribute(description = "The pool's name: its figures are on the MBean type=adaptive-pools,name=<this>")
    public String getName() {
        return name;
    }

    /** @param name the pool's name */
    public void setName(String name) {
        this.name = name;
    }

    /** @return this endpoint's pool options (those it sets take part in its pool's options) */
    public PoolConfiguration getConfiguration() {
        return configuration;
    }

    /** @param configuration this endpoint's pool options */
    public void setConfiguration(PoolConfiguration configuration) {
        this.configuration = java.util.Objects.requireNonNull(configuration, "configuration");
    }

    /** @return whether a first attempt with a free slot runs on the caller's thread */
    public boolean isSynchronous() {
        return synchronous;
    }

    /** @param synchronous whether a first attempt with a free slot runs on the caller's thread and exchange */
    public void setSynchronous(boolean synchronous) {
        this.synchronous = synchronous;
    }

    /** @return how long an exchange waits for a consumer route */
    public Duration getTimeout() {
        return timeout;
    }

    /** @param timeout how long an exchange waits for a consumer route, at least 0 */
    public void setTimeout(Duration timeout) {
        this.timeout = timeout;
        this.timeoutText = null;
    }
}
