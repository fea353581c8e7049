package dev.adaptive.camel;

import java.util.Map;

/**
 * The parts of an HTTP response that matter for classification.
 *
 * @param status  the status code
 * @param headers the response headers (values strings or collections of them), or {@code null}
 *                if there were none to read
 */
record HttpAnswer(int status, Map<String, ?> headers) {

    /** @return the raw {@code Retry-After} value, or {@code null} if the response had none */
    String retryAfter() {
        return RetryAfterHeader.find(headers);
    }
}
