package dev.adaptive.vertx;

import dev.adaptive.AdaptiveException;

import io.vertx.ext.web.client.HttpResponse;

/**
 * An HTTP answer that {@link AdaptiveWebClient} counts as an error (by default 500, 502, 503
 * without a usable {@code Retry-After}, and 504): a drop for the limit, retried on the error
 * budget. Once retries run out, the call fails with it, and the last response is kept.
 */
public class HttpStatusException extends AdaptiveException {

    private final transient HttpResponse<?> response;

    /**
     * @param what     the request, for the message ({@code GET http://host:port/uri})
     * @param response the response
     */
    public HttpStatusException(String what, HttpResponse<?> response) {
        super("HTTP " + response.statusCode() + " " + response.statusMessage() + " from " + what);
        this.response = response;
    }

    /** @return the status code */
    public int statusCode() {
        return response.statusCode();
    }

    /** @return the last response */
    public HttpResponse<?> response() {
        return response;
    }
}
