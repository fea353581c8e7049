package dev.adaptive.camel;

import dev.adaptive.limit.Outcome;
import org.apache.camel.Exchange;

/**
 * Says what one attempt of the consumer route meant for capacity, overriding the pool's
 * default reading. Bind an implementation in the registry and name it on the endpoint:
 * {@code adaptive:orders?classifier=#ordersClassifier}.
 *
 * <p>The default reading, used whenever this returns {@code null} or throws (anything, an
 * {@code Error} included; a throw is counted in the pool's {@code classifierFailures}): an HTTP status
 * in {@code rateLimitStatusCodes} (from camel-http's {@code HttpOperationFailedException} or,
 * with {@code throwExceptionOnFailure=false}, from the {@code CamelHttpResponseCode} header)
 * is {@link Outcome.RateLimited} with the response's {@code Retry-After}; any other exception
 * is {@link Outcome#DROPPED}; otherwise {@link Outcome#SUCCESS}.
 *
 * <p>The outcome also decides failure: {@code RateLimited} and {@code DROPPED} make the attempt
 * a failure (retried within the budgets) even when the exchange carries no exception, and
 * {@code IGNORED} feeds no sample to the limit, failing only if the exchange has an exception.
 *
 * <p>Implementations must be thread-safe and fast: they run on the thread that finished the
 * attempt. They must not change the exchange.
 */
@FunctionalInterface
public interface ExchangeClassifier {

    /**
     * @param attempt the copy of the caller's exchange that went through the consumer route,
     *                with its result: body, headers and exception
     * @return the outcome, or {@code null} for the default reading
     */
    Outcome classify(Exchange attempt);
}
