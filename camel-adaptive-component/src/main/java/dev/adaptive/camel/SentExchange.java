package dev.adaptive.camel;

import org.apache.camel.Exchange;
import org.apache.camel.ExchangeExtension;
import org.apache.camel.ExchangePropertyKey;
import org.apache.camel.Message;
import org.apache.camel.support.DefaultExchange;
import org.apache.camel.support.DefaultMessage;
import org.apache.camel.trait.message.MessageTrait;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.EnumMap;
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
    /**
     * Camel's own map of an exchange's internal properties (the field {@code internalProperties}
     * that {@link DefaultExchange} inherits), or {@code null} if this Camel has no such field or
     * does not let it be read. Camel shows internal properties only key by key, and asking for
     * each of its ~70 keys was most of what keeping an exchange cost (a tenth of a synchronous
     * exchange's time); copying the map is one array copy. Without it, key by key.
     */
    private static final Class<?> INTERNAL_HOLDER = internalPropertiesHolder();
    private static final VarHandle INTERNAL = internalPropertiesHandle(INTERNAL_HOLDER);

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
    /**
     * The internal properties that were set, as key, value, key, value...; {@code null} if none.
     * Not an {@link EnumMap}: its copy is an array of every key's slot (~290 bytes for the two or
     * three an exchange has), a third of what keeping a synchronous exchange allocated.
     */
    private final Object[] internal;

    private SentExchange(Exchange exchange, boolean fromMap) {
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
        this.internal = fromMap && INTERNAL_HOLDER.isInstance(exchange) ? copyOfMap(exchange) : keyByKey(exchange);
    }

    private static Object[] copyOfMap(Exchange exchange) {
        @SuppressWarnings("unchecked")
        EnumMap<ExchangePropertyKey, Object> map = (EnumMap<ExchangePropertyKey, Object>) INTERNAL.get(exchange);
        int n = map.size();
        if (n == 0) {
            return null;
        }
        Object[] set = new Object[2 * n];
        int i = 0;
        // By key, not by entry: an EnumMap makes a new entry object for each one its entry
        // iterator returns, and its key iterator none.
        for (ExchangePropertyKey key : map.keySet()) {
            set[i++] = key;
            set[i++] = map.get(key);
        }
        return set;
    }

    private static Object[] keyByKey(Exchange exchange) {
        Object[] set = null;
        int i = 0;
        for (ExchangePropertyKey key : KEYS) {
            Object value = exchange.getProperty(key);
            if (value != null) {
                if (set == null) {
                    set = new Object[8];
                } else if (i == set.length) {
                    set = Arrays.copyOf(set, 2 * i);
                }
                set[i++] = key;
                set[i++] = value;
            }
        }
        return set == null || i == set.length ? set : Arrays.copyOf(set, i);
    }

    /** @return the class of Camel's exchanges that declares their map of internal properties, or {@code null} */
    private static Class<?> internalPropertiesHolder() {
        for (Class<?> c = DefaultExchange.class; c != null; c = c.getSuperclass()) {
            try {
                if (c.getDeclaredField("internalProperties").getType() == EnumMap.class) {
                    return c;
                }
                return null;
            } catch (NoSuchFieldException notHere) {
                // Declared higher up, if anywhere.
            } catch (RuntimeException notReadable) {
                return null;
            }
        }
        return null;
    }

    private static VarHandle internalPropertiesHandle(Class<?> holder) {
        if (holder == null) {
            return null;
        }
        try {
            return MethodHandles.privateLookupIn(holder, MethodHandles.lookup())
                    .findVarHandle(holder, "internalProperties", EnumMap.class);
        } catch (ReflectiveOperationException | RuntimeException notReadable) {
            // A module layer that does not open camel-support to this one: key by key.
            return null;
        }
    }

    /** @return whether internal properties are read from Camel's own map rather than key by key */
    static boolean readsInternalMap() {
        return INTERNAL != null;
    }

    /**
     * @param exchange the caller's exchange, before anything of its first attempt ran
     * @return what it is now
     */
    static SentExchange of(Exchange exchange) {
        return new SentExchange(exchange, INTERNAL != null);
    }

    /**
     * @param exchange the caller's exchange
     * @return what it is now, its internal properties asked for key by key as when Camel's map
     *         cannot be read
     */
    static SentExchange readKeyByKey(Exchange exchange) {
        return new SentExchange(exchange, false);
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
            for (int i = 0; i < internal.length; i += 2) {
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
