package dev.adaptive;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * The engine's {@link Cancellation}, one per attempt: a signal that fires once. Callbacks registered with {@link #onCancel(Runnable)} run once, on
 * the thread that fires it (at once if it already fired); one that throws does not stop the
 * others.
 *
 * <p>Most attempts are never cancelled and nobody listens: the future that carries callbacks is
 * made only for the first {@link #onCancel} or {@link #asFuture()}, so such an attempt's signal is
 * one small object.
 *
 * <p>An attempt is its own signal (it extends this class): one object fewer per attempt.
 *
 * <p>Thread-safe: {@link #fire} writes the reason, then looks for the future; the future's maker
 * publishes it, then looks at the reason; so one of them always completes it.
 */
class CancellationSignal implements Cancellation {

    private static final VarHandle REASON;
    private static final VarHandle FUTURE;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            REASON = lookup.findVarHandle(CancellationSignal.class, "reason", Throwable.class);
            FUTURE = lookup.findVarHandle(CancellationSignal.class, "future", CompletableFuture.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Why it fired; {@code null} until then. */
    private volatile Throwable reason;
    /** Completes with the reason when it fires; made on demand. */
    private volatile CompletableFuture<Throwable> future;

    /** A signal that has not fired. */
    CancellationSignal() {
    }

    /**
     * Fires the signal, unless it already fired.
     *
     * @param reason why; what {@link #reason()} returns from now on; not {@code null}
     * @return {@code true} if this call fired it
     */
    final boolean fire(Throwable reason) {
        Objects.requireNonNull(reason, "reason");
        if (!REASON.compareAndSet(this, null, reason)) {
            return false;
        }
        CompletableFuture<Throwable> f = future;
        if (f != null) {
            f.complete(reason);
        }
        return true;
    }

    @Override
    public boolean isCancelled() {
        return reason != null;
    }

    @Override
    public Throwable reason() {
        return reason;
    }

    @Override
    public void onCancel(Runnable callback) {
        future().thenRun(() -> {
            try {
                callback.run();
            } catch (Throwable ignored) {
                // A user's cleanup failing must not stop the others or the engine.
            }
        });
    }

    @Override
    public CompletableFuture<Throwable> asFuture() {
        // A copy, so that a caller completing it cannot fire the signal.
        return future().copy();
    }

    private CompletableFuture<Throwable> future() {
        CompletableFuture<Throwable> f = future;
        if (f == null) {
            CompletableFuture<Throwable> made = new CompletableFuture<>();
            f = FUTURE.compareAndSet(this, null, made) ? made : future;
            Throwable r = reason;
            if (r != null) {
                // Fired before it saw the future: complete it here (complete is idempotent).
                f.complete(r);
            }
        }
        return f;
    }
}
