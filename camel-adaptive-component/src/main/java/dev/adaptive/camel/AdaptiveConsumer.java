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
 * queued exchanges still run. If the strategy's timeout runs out, Camel stops the consumer
 * anyway, for a stop of the context or of this route alone alike: every exchange not in a
 * running attempt then fails at once with {@link AdaptivePoolStoppedException}; none is
 * dropped or left waiting. The pool itself stays for a route stop: the route can be started
 * again. Suspending the route, once Camel's graceful suspend has waited for what the pool
 * holds to end, pauses dispatch, and exchanges sent meanwhile stay queued; resuming resumes it.
 * A stop of the suspended route waits only for attempts still running, not for the exchanges
 * the paused pool holds, which nothing would dispatch: they fail at once, as stopped. A stop of
 * the context while the route is suspended fails them at once too, when its shutdown strategy
 * first asks for the pending count, and so does not wait for the exchanges that its own routes
 * sent into the pool and Camel counts in flight in those routes.
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
            // Once this consumer has gone nothing can run what the pool still holds. A graceful
            // stop comes when the pool holds nothing; one that comes sooner is Camel forcing the
            // route down once its shutdown strategy's timeout ran out (for the context or this
            // route alone), and its forced prepareShutdown comes only after this stop, if at all.
            // So what is still queued fails now as stopped, not later as "no consumer" when a
            // slot comes to it, and an attempt granted to a transacted caller's thread that has
            // not begun it never begins on the stopped route. Attempts that the stop cuts short
            // end as stopped too. The pool stays: a start of the route attaches it again.
            failHeld(p, getEndpoint().getCamelContext().isStopping()
                    ? "the Camel context stopped before the exchange completed"
                    : "its consumer route stopped before the exchange completed");
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
        if (p == null) {
            return 0;
        }
        if (p.isPaused() && getEndpoint().getCamelContext().isStopping()) {
            // The context stops while this route is suspended: nothing will dispatch what the
            // paused pool holds before the context is gone, and the pool does not count it here,
            // yet Camel counts an exchange that a route of this context sent into the pool in
            // flight in that route, and its shutdown strategy would wait its whole timeout for
            // it. The strategy asks this at every turn of its wait, so what the pool holds, and
            // what a route still sends into it meanwhile, fails now as the consumer's stop would
            // fail it later, and the sending route's count drops. Running attempts are still
            // waited for: the count below holds them.
            failHeld(p, "the Camel context stopped while its consumer route was suspended");
        }
        return p.pendingForShutdown();
    }

    @Override
    public void prepareShutdown(boolean suspendOnly, boolean forced) {
        ExchangePool p = pool;
        if (forced && p != null) {
            failHeld(p, "the shutdown of its consumer route timed out");
        }
    }

    /** Fails every exchange the pool holds that is not in a running attempt, saying so once. */
    private static void failHeld(ExchangePool p, String why) {
        int n = p.failQueued(why);
        if (n > 0) {
            LOG.warn("{} exchanges queued in adaptive:{} failed with {}: {}", n, p.name(),
                    AdaptivePoolStoppedException.class.getSimpleName(), why);
        }
    }
}
