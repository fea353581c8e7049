package dev.adaptive.vertx;

import io.vertx.core.Future;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Waits on the test thread (never an event loop) for a future, with a generous bound. */
final class Await {

    static final long TIMEOUT_SECONDS = 30;

    private Await() {
    }

    static <T> T result(Future<T> future) {
        try {
            return future.toCompletionStage().toCompletableFuture().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw new AssertionError("future failed: " + e.getCause(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        } catch (TimeoutException e) {
            throw new AssertionError("future did not complete within " + TIMEOUT_SECONDS + " s", e);
        }
    }

    /** Waits for {@code future} to complete either way; fails the test only if it does not. */
    static void settled(Future<?> future) {
        try {
            future.toCompletionStage().toCompletableFuture().handle((v, e) -> null)
                    .get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw new AssertionError(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        } catch (TimeoutException e) {
            throw new AssertionError("future did not complete within " + TIMEOUT_SECONDS + " s", e);
        }
    }

    static Throwable failure(Future<?> future) {
        try {
            Object v = future.toCompletionStage().toCompletableFuture().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            throw new AssertionError("expected a failure, got " + v);
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        } catch (TimeoutException e) {
            throw new AssertionError("future did not complete within " + TIMEOUT_SECONDS + " s", e);
        }
    }
}
