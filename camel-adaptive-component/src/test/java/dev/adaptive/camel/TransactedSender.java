package dev.adaptive.camel;

import org.apache.camel.Exchange;
import org.apache.camel.ProducerTemplate;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A transacted exchange sent from a thread of its own, in a "transaction": what a transaction
 * manager binds to the sending thread, here the value of {@link #TRANSACTION}, which every
 * attempt of the exchange must see.
 */
final class TransactedSender {

    /** The sending thread's "transaction": read it in a consumer route to see where it runs. */
    static final ThreadLocal<String> TRANSACTION = new ThreadLocal<>();

    private final CompletableFuture<Exchange> result = new CompletableFuture<>();
    private final String transaction;
    private final Thread thread;
    /** Whether the sending thread's interrupt flag was set when the request returned. */
    private volatile boolean interruptedAfter;

    private TransactedSender(ProducerTemplate template, String uri, String body, String transaction, Runnable first) {
        this.transaction = transaction;
        this.thread = new Thread(() -> {
            TRANSACTION.set(transaction);
            try {
                first.run();
                Exchange x = template.request(uri, m -> {
                    m.getExchangeExtension().setTransacted(true);
                    m.getMessage().setBody(body);
                });
                interruptedAfter = Thread.interrupted();
                result.complete(x);
            } catch (Throwable e) {
                result.completeExceptionally(e);
            } finally {
                TRANSACTION.remove();
            }
        }, "sender-" + transaction);
        thread.start();
    }

    /** Starts sending {@code body} to {@code uri}, transacted, in {@code transaction}. */
    static TransactedSender send(ProducerTemplate template, String uri, String body, String transaction) {
        return new TransactedSender(template, uri, body, transaction, () -> { });
    }

    /**
     * Starts sending as {@link #send}, after running {@code first} on the sending thread (to
     * queue routing work on it, say).
     */
    static TransactedSender send(ProducerTemplate template, String uri, String body, String transaction,
                                 Runnable first) {
        return new TransactedSender(template, uri, body, transaction, first);
    }

    /** @return the exchange once the request has returned (within 30 s) */
    Exchange exchange() throws Exception {
        return result.get(30, TimeUnit.SECONDS);
    }

    /** @return what a consumer route records on the sending thread: its name and the transaction */
    String on() {
        return thread.getName() + ":" + transaction;
    }

    /** Interrupts the sending thread. */
    void interrupt() {
        thread.interrupt();
    }

    /** @return whether the interrupt flag was still set on the sending thread when its request returned */
    boolean interruptedAfter() throws Exception {
        exchange();
        return interruptedAfter;
    }
}
