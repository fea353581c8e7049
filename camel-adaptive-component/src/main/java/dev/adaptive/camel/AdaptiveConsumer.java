package dev.adaptive.camel;

import org.apache.camel.Processor;
import org.apache.camel.ShutdownRunningTask;
import org.apache.camel.Suspendable;
import org.apache.camel.spi.ShutdownAware;
import org.apache.camel.support.DefaultConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The route that consumes from {@code adaptive:name}: each admitted attempt of an exchange
 * sent to the pool runs through this route, on a fresh copy of the caller's exchange (a first
 * attempt that runs on the caller's thread, with {@code synchronous=true} or for a transacted
 * exchange, on the caller's exchange itself, as {@code direct:} would). One consumer per pool.
 *
 * <p>Shutdown: the consumer tells Camel's shutdown strategy how many exchanges the pool still
 * holds ({@link #getPendingExchangesSize()}) and defers its own stop until they ended, so
 * queued exchanges still run. If the shutdown times out, every exchange not in an attempt
 * fails with {@link AdaptivePoolStoppedException}; none is dropped or left waiting.
 * Suspending the route, once Camel's graceful suspend has waited for what the pool holds to
 * end, pauses dispatch; resuming resumes it.
 *
 * <p>Thread-safe.
 */
public class AdaptiveConsumer extends DefaultConsumer implements ShutdownAware, Suspendable {

    private static final Logger LOG = LoggerFactory.getLogger(AdaptiveConsumer.class);

    private final AdaptiveEndpoint endpoint;
    private volatile ExchangePool pool;

    /**
     * @param endpoint  the endpoint
     * @param processor the route
     */
    public AdaptiveConsumer(AdaptiveEndpoint endpoint, Processor processor) {
        super(endpoint, processor);
        this.endpoint = endpoint;
    }

    @Override
    public AdaptiveEndpoint getEndpoint() {
        return endpoint;
    }

    @Override
    protected void doStart() throws Exception {
        super.doStart();
        ExchangePool p = endpoint.pool();
        // A consumer that starts is not suspended: the pause of a suspend that a stop followed
        // (a stopped route is not resumed) ends here, or the pool would hold every exchange.
        p.resume();
        p.attach(this, getAsyncProcessor());
        pool = p;
    }

    @Override
    protected void doStop() throws Exception {
        ExchangePool p = pool;
        if (p != null) {
            if (getEndpoint().getCamelContext().isStopping()) {
                // The shutdown strategy may stop this route before (or without) its forced
                // prepareShutdown: what is still queued fails now as the pool stops, not later
                // as "no consumer", and attempts that the stopping route's producers cut short
                // end as stopped too.
                p.failQueued("the Camel context stopped before the exchange completed");
            }
            p.detach(this);
            pool = null;
        }
        super.doStop();
    }

    @Override
    protected void doSuspend() throws Exception {
        ExchangePool p = pool;
        if (p != null) {
            p.pause();
        }
        super.doSuspend();
    }

    @Override
    protected void doResume() throws Exception {
        ExchangePool p = pool;
        if (p != null) {
            p.resume();
        }
        super.doResume();
    }

    @Override
    public boolean deferShutdown(ShutdownRunningTask shutdownRunningTask) {
        // Stay attached while the strategy waits: queued exchanges need this route to run.
        return true;
    }

    @Override
    public int getPendingExchangesSize() {
        ExchangePool p = pool;
        return p == null ? 0 : p.pending();
    }

    @Override
    public void prepareShutdown(boolean suspendOnly, boolean forced) {
        ExchangePool p = pool;
        if (forced && p != null) {
            int n = p.failQueued("the shutdown of its consumer route timed out");
            if (n > 0) {
                LOG.warn("Shutdown of adaptive:{} timed out: {} queued exchanges failed with {}", p.name(), n,
                        AdaptivePoolStoppedException.class.getSimpleName());
            }
        }
    }
}
