package dev.adaptive.spi;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

/**
 * A {@link CompletableFuture} that holds one listener of its own in a field: the engine listens
 * to each attempt's stage and a runner to each execution's result, and on a hot path
 * ({@code adaptive:?synchronous=true}, say) the dependent stage and completion node that
 * {@link CompletableFuture#whenComplete} allocates for each were a tenth of what an exchange
 * cost. Every other use of the future (its own dependents, {@code join}, {@code get}) is
 * {@link CompletableFuture}'s.
 *
 * <p>The listener is called exactly once, after the future's own dependents, on the thread that
 * completes it, or at once on the thread that registers it if the future is already complete.
 * Like a {@code whenComplete} stage nobody reads, it cannot fail its caller: whatever it throws,
 * an {@link Error} included, is dropped, so a broken listener never unwinds whoever completed
 * the future. A completion through {@link #complete}, {@link #completeExceptionally},
 * {@link #cancel}, the {@code obtrude} methods, {@link #completeAsync} or a timeout of
 * {@link #orTimeout} and {@link #completeOnTimeout} reaches it.
 *
 * <p>Part of the runner SPI: a task's stage of this type is listened to without a dependent
 * stage ({@link #listen}); any other stage is listened to with {@code whenComplete}.
 * Thread-safe.
 *
 * @param <T> the result type
 */
public class OneListenerFuture<T> extends CompletableFuture<T> {

    private static final VarHandle LISTENER;
    /** {@link #listener} once the future completed and its listener, if any, was called. */
    private static final Object FIRED = new Object();

    static {
        try {
            LISTENER = MethodHandles.lookup().findVarHandle(OneListenerFuture.class, "listener", Object.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** {@code null}, the one listener waiting for the completion, or {@link #FIRED}. */
    @SuppressWarnings("unused") // through LISTENER
    private volatile Object listener;

    /** An incomplete future with no listener. */
    public OneListenerFuture() {
    }

    /**
     * Calls {@code listener} with {@code stage}'s result once it completes: through the field
     * of a {@link OneListenerFuture} that has none yet, otherwise with {@code whenComplete}.
     *
     * @param stage    the stage
     * @param listener told its value, or its failure as {@code whenComplete} gives it (for a
     *                 {@link OneListenerFuture}, unwrapped from a {@link CompletionException})
     * @param <T>      the result type
     */
    public static <T> void listen(CompletionStage<T> stage, BiConsumer<? super T, ? super Throwable> listener) {
        Objects.requireNonNull(listener, "listener");
        if (!(stage instanceof OneListenerFuture<T> f) || !f.tryListen(listener)) {
            stage.whenComplete(listener);
        }
    }

    /**
     * @param l the listener
     * @return {@code false} if another listener holds the field: {@code l} is not registered
     */
    private boolean tryListen(BiConsumer<? super T, ? super Throwable> l) {
        Object held = LISTENER.compareAndExchange(this, null, l);
        if (held == null) {
            return true;
        }
        if (held != FIRED) {
            return false;
        }
        notify(l); // completed already: told now, as whenComplete on a complete future would
        return true;
    }

    /** Calls the listener, if one waits, with the result this future holds now. */
    private void fire() {
        Object l = LISTENER.getAndSet(this, FIRED);
        if (l != null && l != FIRED) {
            notify(listener(l));
        }
    }

    /** As {@link #fire()}, with the result known: no {@code join}, whose failure costs a stack trace. */
    private void fire(T value, Throwable error) {
        Object l = LISTENER.getAndSet(this, FIRED);
        if (l != null && l != FIRED) {
            call(listener(l), value, error);
        }
    }

    @SuppressWarnings("unchecked")
    private BiConsumer<? super T, ? super Throwable> listener(Object l) {
        return (BiConsumer<? super T, ? super Throwable>) l;
    }

    /** Tells {@code l} the result this future holds, read back from it (it is complete). */
    private void notify(BiConsumer<? super T, ? super Throwable> l) {
        T value = null;
        Throwable error = null;
        try {
            value = join();
        } catch (CompletionException e) {
            // join wraps what the future holds; whenComplete would hand it over bare.
            error = e.getCause() == null ? e : e.getCause();
        } catch (Throwable t) {
            error = t; // a cancellation, as join throws it
        }
        call(l, value, error);
    }

    private static <T> void call(BiConsumer<? super T, ? super Throwable> l, T value, Throwable error) {
        try {
            l.accept(value, error);
        } catch (Throwable dropped) {
            // As a whenComplete stage nobody reads would keep it: the completer must not unwind.
        }
    }

    /**
     * Overridable by subclasses that act on their own completion; they must call this one.
     *
     * @param value the value
     * @return whether this call completed the future
     */
    @Override
    public boolean complete(T value) {
        boolean done = super.complete(value);
        if (done) {
            fire(value, null);
        } else {
            fire();
        }
        return done;
    }

    /**
     * Overridable by subclasses that act on their own completion; they must call this one.
     *
     * @param ex the failure
     * @return whether this call completed the future
     */
    @Override
    public boolean completeExceptionally(Throwable ex) {
        boolean done = super.completeExceptionally(ex);
        if (done) {
            fire(null, ex);
        } else {
            fire();
        }
        return done;
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
        boolean done = super.cancel(mayInterruptIfRunning);
        fire();
        return done;
    }

    @Override
    public void obtrudeValue(T value) {
        super.obtrudeValue(value);
        fire();
    }

    @Override
    public void obtrudeException(Throwable ex) {
        super.obtrudeException(ex);
        fire();
    }

    /**
     * As {@link CompletableFuture#completeAsync(Supplier, Executor)}, through {@link #complete}
     * and {@link #completeExceptionally}: the JDK's own would bypass both.
     */
    @Override
    public CompletableFuture<T> completeAsync(Supplier<? extends T> supplier, Executor executor) {
        Objects.requireNonNull(supplier, "supplier");
        Objects.requireNonNull(executor, "executor");
        executor.execute(() -> {
            if (isDone()) {
                return;
            }
            try {
                complete(supplier.get());
            } catch (Throwable t) {
                completeExceptionally(t);
            }
        });
        return this;
    }

    @Override
    public CompletableFuture<T> completeAsync(Supplier<? extends T> supplier) {
        return completeAsync(supplier, defaultExecutor());
    }
}
