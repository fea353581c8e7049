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
 * with {@code throwExceptionOnFailure=false}, from the {@code CamelHttpResponseCode} header,
 * counting only header values the attempt's route set, not those the caller's message carried
 * in unchanged) is {@link Outcome.RateLimited} with the response's {@code Retry-After}, where
 * 429 always counts and any other listed status only with a valid {@code Retry-After}; any other
 * exception is {@link Outcome#DROPPED}; otherwise {@link Outcome#SUCCESS}.
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
     * @param attempt the attempt's exchange, with its result (body, headers and exception): a
     *                copy of the caller's, or the caller's exchange itself for a first attempt
     *                run in place ({@code synchronous=true}, a transacted exchange)
     * @return the outcome, or {@code null} for the default reading
     */
    Outcome classify(Exchange attempt);
}
