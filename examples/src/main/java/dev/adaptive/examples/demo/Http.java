package dev.adaptive.examples.demo;

import dev.adaptive.RateLimitedException;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * The one HTTP call of the demo, on {@code java.net.http}: a GET whose stage fails with
 * {@link RateLimitedException} (carrying the raw {@code Retry-After}) on a 429 and with
 * {@link HttpStatusException} on any other non-2xx answer, which is how the engine expects a
 * task to report them. Stateless; thread-safe.
 */
public final class Http {

    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);

    private Http() {
    }

    /**
     * @param client the client
     * @param uri    what to get
     * @return the body of a 2xx answer
     */
    public static CompletableFuture<String> get(HttpClient client, URI uri) {
        HttpRequest request = HttpRequest.newBuilder(uri).timeout(REQUEST_TIMEOUT).GET().build();
        return client.sendAsync(request, HttpResponse.BodyHandlers.ofString()).thenApply(Http::bodyOf);
    }

    private static String bodyOf(HttpResponse<String> response) {
        int status = response.statusCode();
        if (status == 429) {
            throw new RateLimitedException("429 from " + response.uri(),
                    response.headers().firstValue("Retry-After").orElse(null));
        }
        if (status < 200 || status > 299) {
            throw new HttpStatusException(status, response.uri());
        }
        return response.body();
    }

    /** A non-2xx answer other than 429. Immutable. */
    public static final class HttpStatusException extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final int status;

        /**
         * @param status the status code
         * @param uri    the request
         */
        public HttpStatusException(int status, URI uri) {
            super("HTTP " + status + " from " + uri);
            this.status = status;
        }

        /** @return the status code */
        public int status() {
            return status;
        }
    }
}
