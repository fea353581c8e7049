package dev.adaptive.camel;

import org.apache.camel.CamelExchangeException;
import org.apache.camel.Exchange;

/**
 * No route consumes from {@code adaptive:name}: none was started within the endpoint's
 * {@code timeout}, or the consumer route stopped while the exchange was waiting. Never retried.
 */
public class AdaptiveConsumerNotAvailableException extends CamelExchangeException {

    /**
     * @param message  what was missing and how long the exchange waited
     * @param exchange the caller's exchange
     */
    public AdaptiveConsumerNotAvailableException(String message, Exchange exchange) {
        super(message, exchange);
    }
}
