package dev.adaptive.camel;

import org.apache.camel.Exchange;
import org.apache.camel.ExchangeExtension;
import org.apache.camel.ExchangePropertyKey;
import org.apache.camel.Message;
import org.apache.camel.support.DefaultExchange;
import org.apache.camel.support.DefaultMessage;
import org.apache.camel.trait.message.MessageTrait;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * What a caller's exchange was when it reached the pool, kept when its first attempt runs on
 * the exchange itself ({@code synchronous=true}, or a transacted exchange): a retry starts
 * from it, and the caller's exchange goes back to it before it takes a later attempt's result,
 * so neither sees what a failed first attempt left behind.
 *
 * <p>It keeps what a route writes: the message (its body, id and headers, or a copy of a message
 * of a kind of its own: the attempt writes into the exchange's own), the exchange's properties,
 * its internal properties (its charset, say) and its variables. Everything else of an exchange
 * (its pattern, its origin, its creation time) a route does not change; bodies and header values
 * are kept by reference, as in an attempt's copy. For a plain message it costs a few references
 * and, only when the exchange has any, copies of its maps: far less than the exchange copy an
 * attempt of its own would take.
 *
 * <p>Immutable once built; {@link #newAttempt(boolean)} and {@link #restore(Exchange)} may run on
 * any thread, even while the first attempt still runs on the caller's exchange (after a task
 * timeout): they read nothing of it then but its identity, origin and pattern. Its safe-copy
 * properties (a tracer's or a session's context) are not kept: a retry copies them from the
 * caller's exchange once its first attempt's route has returned.
 */
final class SentExchange {

    private static final ExchangePropertyKey[] KEYS = ExchangePropertyKey.values();

    private final Exchange exchange;
    /** A copy of the message as sent, if it is of a kind of its own; {@code null} for a plain one. */
    private final Message message;
    /** A plain message's body as sent. */
    private final Object body;
    /** A plain message's id as sent, if it had one. */
    private final String messageId;
    /** A copy of a plain message's headers as sent, if it had any. */
    private final Map<String, Object> headers;
    private final Map<String, Object> properties;
    private final Map<String, Object> variables;
    /** The internal properties that were set, as key, value, key, value...; {@code null} if none. */
    private final Object[] internal;
    /** How much of {@link #internal} is set. */
    private final int internalLength;

    private SentExchange(Exchange exchange) {
        this.exchange = exchange;
        Message in = exchange.getIn();
        if (in.getClass() == DefaultMessage.class && in.getPayloadForTrait(MessageTrait.ATTACHMENTS) == null) {
            // What a copy of a plain message would hold, without the message: most exchanges
            // are never retried, and their first attempt then costs no message at all.
            this.message = null;
            this.body = in.getBody();
            this.messageId = in.hasMessageId() ? in.getMessageId() : null;
            this.headers = in.hasHeaders() ? new HashMap<>(in.getHeaders()) : null;
        } else {
            // A message of a kind of its own (an HTTP request's, a JMS message's) copies itself.
            this.message = in.copy();
            this.body = null;
            this.messageId = null;
            this.headers = null;
        }
        this.properties = exchange.hasProperties() ? new HashMap<>(exchange.getProperties()) : null;
        this.variables = exchange.hasVariables() ? new HashMap<>(exchange.getVariables()) : null;
        // One pass over the keys (Camel keeps internal properties in an EnumMap it does not
        // show): this loop is most of what keeping the exchange costs.
        Object[] set = null;
        int n = 0;
        for (ExchangePropertyKey key : KEYS) {
            Object value = exchange.getProperty(key);
            if (value != null) {
                if (set == null) {
                    set = new Object[8];
                } else if (n == set.length) {
                    set = Arrays.copyOf(set, 2 * n);
                }
                set[n++] = key;
                set[n++] = value;
            }
        }
        this.internal = set;
        this.internalLength = n;
    }

    /**
     * @param exchange the caller's exchange, before anything of its first attempt ran
     * @return what it is now
     */
    static SentExchange of(Exchange exchange) {
        return new SentExchange(exchange);
    }

    /**
     * @param callerQuiet whether nothing writes the caller's exchange now: its first attempt's
     *                    route has returned
     * @return a new exchange as the caller's was sent, correlated to it as an attempt's copy
     *         is ({@link ExchangePropertyKey#CORRELATION_ID}), with no unit of work: the
     *         consumer route gives it its own
     */
    Exchange newAttempt(boolean callerQuiet) {
        DefaultExchange attempt = new DefaultExchange(exchange);
        attempt.getExchangeExtension().setUnitOfWork(null);
        restore(attempt);
        if (callerQuiet) {
            // A tracer's or a session's context, which a copy of the exchange carries (each one
            // copied by its own safeCopy()): read from the caller's exchange as it is, since Camel
            // shows no way to keep it aside without an exchange to hold it. Not while a first
            // attempt abandoned by a task timeout may still write it: Camel's map of them is not
            // thread-safe, and such a retry starts without them.
            exchange.getExchangeExtension().copySafeCopyPropertiesTo(attempt.getExchangeExtension());
        }
        attempt.getIn().setMessageId(null);
        // Read only now: most exchanges are never retried, and an id nobody reads is never
        // generated. Only a retry that starts while a timed-out first attempt's route still runs
        // can read it at the same instant as that route, the first read of both: Camel would then
        // generate it twice, and this correlation id could be the one that lost.
        attempt.setProperty(ExchangePropertyKey.CORRELATION_ID, exchange.getExchangeId());
        return attempt;
    }

    /**
     * Sets {@code target} back to what the caller's exchange was when sent: its message, its
     * properties (internal ones included) and variables, no exception, and none of the flags an
     * error handler or a {@code rollback()} leaves.
     *
     * @param target the caller's exchange, or an exchange for a new attempt
     */
    void restore(Exchange target) {
        if (message != null) {
            target.setIn(message.copy());
        } else {
            DefaultMessage m = new DefaultMessage(target);
            m.setBody(body);
            if (messageId != null) {
                m.setMessageId(messageId);
            }
            if (headers != null) {
                m.getHeaders().putAll(headers);
            }
            target.setIn(m);
        }
        target.removeProperties("*");
        if (internal != null) {
            for (int i = 0; i < internalLength; i += 2) {
                target.setProperty((ExchangePropertyKey) internal[i], internal[i + 1]);
            }
        }
        if (properties != null) {
            target.getProperties().putAll(properties);
        }
        if (variables != null || target.hasVariables()) {
            Map<String, Object> v = target.getVariables();
            v.clear();
            if (variables != null) {
                v.putAll(variables);
            }
        }
        target.setException(null);
        target.setRouteStop(false);
        target.setRollbackOnly(false);
        target.setRollbackOnlyLast(false);
        ExchangeExtension x = target.getExchangeExtension();
        x.setErrorHandlerHandled(null);
        x.setRedeliveryExhausted(false);
        x.setRedeliveryCounter(0);
        x.setRedeliveryMaxCounter(0);
        x.setFailureHandled(false);
        x.setInterrupted(false);
    }
}
