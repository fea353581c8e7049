package dev.adaptive.camel;

import org.apache.camel.AsyncProducer;
import org.apache.camel.CamelContext;
import org.apache.camel.Endpoint;
import org.apache.camel.Exchange;
import org.apache.camel.support.service.ServiceHelper;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.function.IntFunction;

/**
 * Sends many exchanges into an endpoint from one thread through its asynchronous producer, as a
 * route's {@code to()} does, without waiting for any of them.
 */
final class AsyncSends {

    /**
     * The exchanges sent, their completions, how many producer calls returned {@code false}
     * (async), and how often each exchange's callback was called (a completion hides a second call).
     */
    record Batch(List<Exchange> exchanges, List<CompletableFuture<Exchange>> done, int asyncReturns, AsyncProducer producer,
                 AtomicIntegerArray callbacks) {

        /** Waits for every exchange (bounded) and returns them. */
        List<Exchange> await(long seconds) throws Exception {
            CompletableFuture.allOf(done.toArray(new CompletableFuture<?>[0])).get(seconds, TimeUnit.SECONDS);
            return exchanges;
        }

        /** @return how many times the callback of exchange {@code i} has been called */
        int callbacks(int i) {
            return callbacks.get(i);
        }

        void stop() {
            ServiceHelper.stopService(producer);
        }
    }

    private AsyncSends() {
    }

    static Batch send(CamelContext context, String uri, int n, IntFunction<Object> body, Map<String, Object> headers) {
        Endpoint endpoint = context.getEndpoint(uri);
        AsyncProducer producer;
        try {
            producer = endpoint.createAsyncProducer();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        ServiceHelper.startService(producer);
        List<Exchange> exchanges = new ArrayList<>(n);
        List<CompletableFuture<Exchange>> done = new ArrayList<>(n);
        AtomicIntegerArray callbacks = new AtomicIntegerArray(n);
        int async = 0;
        for (int i = 0; i < n; i++) {
            Exchange e = endpoint.createExchange();
            e.getIn().setBody(body.apply(i));
            e.getIn().getHeaders().putAll(headers);
            CompletableFuture<Exchange> f = new CompletableFuture<>();
            exchanges.add(e);
            done.add(f);
            int index = i;
            if (!producer.process(e, doneSync -> {
                callbacks.incrementAndGet(index);
                f.complete(e);
            })) {
                async++;
            }
        }
        return new Batch(exchanges, done, async, producer, callbacks);
    }
}
