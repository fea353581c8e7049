package dev.adaptive.camel;

import org.apache.camel.AsyncCallback;
import org.apache.camel.Exchange;
import org.apache.camel.support.DefaultAsyncProducer;

/**
 * Hands each exchange to its pool and returns at once: waiting for a consumer, for a slot, for
 * a backoff or for a Retry-After pause holds no thread, and the callback completes when the
 * exchange ends, on the thread that finished its last attempt (or a pool worker if it ended
 * while waiting: never the timers' thread every pool shares). The caller's exchange then carries the consumer route's result of
 * the last attempt (body, headers, exception) and the headers of {@link AdaptiveConstants}.
 *
 * <p>A transacted exchange is the exception: its transaction is bound to the caller's thread,
 * so every attempt runs on that thread, which waits for the exchange to end ({@link CallerThread}).
 *
 * <p>Thread-safe.
 */
public class AdaptiveProducer extends DefaultAsyncProducer {

    private final AdaptiveEndpoint endpoint;
    private volatile ExchangePool pool;

    /** @param endpoint the endpoint */
    public AdaptiveProducer(AdaptiveEndpoint endpoint) {
        super(endpoint);
        this.endpoint = endpoint;
    }

    @Override
    protected void doStart() throws Exception {
        super.doStart();
        pool = endpoint.pool();
    }

    @Override
    public boolean process(Exchange exchange, AsyncCallback callback) {
        ExchangePool p = pool;
        if (p == null) {
            // Started lazily or restarted with its component: resolve now.
            p = endpoint.pool();
            pool = p;
        }
        if (exchange.isTransacted()) {
            // Its transaction is bound to this thread: every attempt runs here, and the thread
            // waits meanwhile, as Camel's own Delay and Throttle EIPs wait for a transacted exchange.
            return p.submitOnThisThread(exchange, callback, endpoint.getTimeout());
        }
        return p.submit(exchange, callback, endpoint.getTimeout(), endpoint.isSynchronous());
    }

    @Override
    protected void doStop() throws Exception {
        pool = null;
        super.doStop();
    }
}
