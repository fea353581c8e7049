package dev.adaptive.camel;

import org.apache.camel.http.base.HttpOperationFailedException;

/**
 * The only class that names camel-http-base, which is an optional dependency: it is loaded
 * only after {@link HttpStatusClassifier} has checked that the exception class is on the class
 * path, so the component runs without camel-http.
 */
final class HttpFailures {

    private HttpFailures() {
    }

    /**
     * @param t one throwable of a cause chain
     * @return its status and headers if it is camel-http's failure, {@code null} otherwise
     */
    static HttpAnswer answer(Throwable t) {
        if (t instanceof HttpOperationFailedException h) {
            return new HttpAnswer(h.getStatusCode(), h.getResponseHeaders());
        }
        return null;
    }
}
