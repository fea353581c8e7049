package dev.adaptive;

/**
 * The base of every exception the library throws or completes a result with: one
 * {@code catch (AdaptiveException e)} sees them all, in the engine, the pool, the queue and
 * the Camel and Vert.x faces. Unchecked, like the failures of the futures it travels in.
 *
 * <p>Two kinds of failure are not of this type, by contract rather than by omission: a bad
 * option or a misuse is a JDK {@link IllegalArgumentException} or
 * {@link IllegalStateException}, and a result that was cancelled completes with the JDK's
 * {@link java.util.concurrent.CancellationException}, which {@code CompletableFuture} requires
 * for {@code isCancelled()}. The Camel face's {@code AdaptiveConsumerNotAvailableException}
 * extends Camel's {@code CamelExchangeException}, as Camel's own {@code direct:} does, so that
 * routes handle it like every other missing consumer.
 *
 * <p>Immutable once thrown.
 */
public class AdaptiveException extends RuntimeException {

    /** @param message what went wrong */
    public AdaptiveException(String message) {
        super(message);
    }

    /**
     * @param message what went wrong
     * @param cause   the underlying failure, or {@code null}
     */
    public AdaptiveException(String message, Throwable cause) {
        super(message, cause);
    }
}
