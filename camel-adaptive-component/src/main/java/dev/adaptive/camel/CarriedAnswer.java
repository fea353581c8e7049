package dev.adaptive.camel;

import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.apache.camel.util.CaseInsensitiveMap;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Headers an attempt's message already carried when its route began, where an earlier HTTP call
 * left its answer on the caller's message (a fallback route sent to {@code adaptive:} after a
 * primary API answered 429 with {@code throwExceptionOnFailure=false}, say). The default
 * reading of an attempt takes its headers for the answer its route got; the ones the route left
 * as they came (the very same value object) are another call's answer, not this one's, and must
 * not pause this pool or hold it for another API's quota.
 *
 * <p>Marked only when the message carries a {@code CamelHttpResponseCode} as the route begins,
 * which camel-http sets on every answer: one header lookup per attempt otherwise, and nothing at
 * all for a message without headers. Kept in an exchange property for the time between the
 * route's start and the attempt's reading, which removes it. A route that gets an answer of its
 * own replaces those headers with new values (camel-http parses each answer afresh), so it is
 * read as before; a value identical to the one carried in (a boxed status code shared through a
 * JVM cache raised past 429, {@code -XX:AutoBoxCacheMax}) would be taken for the carried one.
 */
final class CarriedAnswer {

    /** The exchange property holding the values carried in, by identity, while the attempt runs. */
    static final String PROPERTY = "AdaptiveCarriedAnswer";

    private CarriedAnswer() {
    }

    /**
     * Marks what an attempt's message carries as its route begins, if it carries an HTTP answer.
     *
     * @param attempt the attempt's exchange, before its route runs
     */
    static void mark(Exchange attempt) {
        Message m = attempt.getMessage();
        if (!m.hasHeaders() || m.getHeader(Exchange.HTTP_RESPONSE_CODE) == null) {
            return;
        }
        Set<Object> carried = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Object value : m.getHeaders().values()) {
            if (value != null) {
                carried.add(value);
            }
        }
        attempt.setProperty(PROPERTY, new Values(carried));
    }

    /**
     * @param attempt the attempt's exchange, after its route ran
     * @return its message's headers without those it carried in unchanged; the message's own map
     *         if it carried no HTTP answer in
     */
    static Map<String, Object> fresh(Exchange attempt) {
        Map<String, Object> headers = attempt.getMessage().getHeaders();
        if (!(attempt.getProperty(PROPERTY) instanceof Values v)) {
            return headers;
        }
        Map<String, Object> fresh = new CaseInsensitiveMap();
        for (Map.Entry<String, Object> e : headers.entrySet()) {
            if (e.getValue() != null && !v.carried().contains(e.getValue())) {
                fresh.put(e.getKey(), e.getValue());
            }
        }
        return fresh;
    }

    /** @param attempt the attempt's exchange, once read: the mark goes */
    static void forget(Exchange attempt) {
        if (attempt.getProperty(PROPERTY) != null) {
            attempt.removeProperty(PROPERTY);
        }
    }

    /** The values carried in; a type of its own, so that no user's property is mistaken for it. */
    private record Values(Set<Object> carried) {
    }
}
