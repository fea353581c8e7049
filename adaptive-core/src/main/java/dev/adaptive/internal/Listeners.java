package dev.adaptive.internal;

import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * Calls user callbacks (listeners, subscribers) the way the engine promises to: one that
 * throws anything, an {@code Error} included, loses only its own call; the failure is counted
 * and the next listener is still called. Rethrown, such a failure would unwind the engine's own
 * work (a release half done, a slot never freed) for a bug in an observer.
 *
 * <p>The event is passed apart from the call so that the usual call, a method reference such
 * as {@code TraceListener::onEvent}, captures nothing and costs no allocation.
 *
 * <p>Stateless. Not API: its package is internal and may change without notice.
 */
public final class Listeners {

    private Listeners() {
    }

    /**
     * @param listener the callback's owner
     * @param event    what it is told
     * @param call     how it is told, for example {@code Consumer::accept}
     * @param failures counts a call that threw
     * @param <L>      the listener type
     * @param <E>      the event type
     * @return whether the call returned normally
     */
    public static <L, E> boolean tell(L listener, E event, BiConsumer<? super L, ? super E> call,
                                      LongAdder failures) {
        Throwable t = call(listener, event, call);
        if (t != null) {
            failures.increment();
        }
        return t == null;
    }

    /** @return what the call threw, or {@code null} if it returned normally */
    private static <L, E> Throwable call(L listener, E event, BiConsumer<? super L, ? super E> call) {
        try {
            call.accept(listener, event);
            return null;
        } catch (Throwable t) {
            return t;
        }
    }

    /**
     * Tells every listener, in order, as {@link #tell(Object, Object, BiConsumer, LongAdder)}.
     *
     * @param listeners the listeners
     * @param event     what they are told
     * @param call      how each is told
     * @param failures  counts each call that threw
     * @param <L>       the listener type
     * @param <E>       the event type
     */
    public static <L, E> void tellAll(L[] listeners, E event, BiConsumer<? super L, ? super E> call,
                                      LongAdder failures) {
        for (L l : listeners) {
            tell(l, event, call, failures);
        }
    }

    /**
     * Tells every listener, in iteration order, as {@link #tell(Object, Object, BiConsumer, LongAdder)}.
     *
     * @param listeners the listeners
     * @param event     what they are told
     * @param call      how each is told
     * @param failures  counts each call that threw
     * @param <L>       the listener type
     * @param <E>       the event type
     */
    public static <L, E> void tellAll(Iterable<? extends L> listeners, E event,
                                      BiConsumer<? super L, ? super E> call, LongAdder failures) {
        for (L l : listeners) {
            tell(l, event, call, failures);
        }
    }

    /**
     * Calls {@code call} on every listener, for calls with several arguments (a lambda that
     * captures them).
     *
     * @param listeners the listeners
     * @param call      what each is told
     * @param failures  counts each call that threw
     * @param <L>       the listener type
     */
    public static <L> void each(Iterable<? extends L> listeners, Consumer<? super L> call, LongAdder failures) {
        tellAll(listeners, call, Listeners::accept, failures);
    }

    /**
     * As {@link #each(Iterable, Consumer, LongAdder)}, over an array.
     *
     * @param listeners the listeners
     * @param call      what each is told
     * @param failures  counts each call that threw
     * @param <L>       the listener type
     */
    public static <L> void each(L[] listeners, Consumer<? super L> call, LongAdder failures) {
        tellAll(listeners, call, Listeners::accept, failures);
    }

    /**
     * As {@link #tell(Object, Object, BiConsumer, LongAdder)}, but a failure is counted and
     * logged by {@code failures}.
     *
     * @param listener the callback's owner
     * @param event    what it is told
     * @param call     how it is told
     * @param failures counts and logs a call that threw
     * @param <L>      the listener type
     * @param <E>      the event type
     * @return whether the call returned normally
     */
    public static <L, E> boolean tell(L listener, E event, BiConsumer<? super L, ? super E> call,
                                      CallbackFailures failures) {
        Throwable t = call(listener, event, call);
        if (t != null) {
            failures.failed(t);
        }
        return t == null;
    }

    /**
     * As {@link #tellAll(Object[], Object, BiConsumer, LongAdder)}, with failures logged.
     *
     * @param listeners the listeners
     * @param event     what they are told
     * @param call      how each is told
     * @param failures  counts and logs each call that threw
     * @param <L>       the listener type
     * @param <E>       the event type
     */
    public static <L, E> void tellAll(L[] listeners, E event, BiConsumer<? super L, ? super E> call,
                                      CallbackFailures failures) {
        for (L l : listeners) {
            tell(l, event, call, failures);
        }
    }

    /**
     * As {@link #tellAll(Iterable, Object, BiConsumer, LongAdder)}, with failures logged.
     *
     * @param listeners the listeners
     * @param event     what they are told
     * @param call      how each is told
     * @param failures  counts and logs each call that threw
     * @param <L>       the listener type
     * @param <E>       the event type
     */
    public static <L, E> void tellAll(Iterable<? extends L> listeners, E event,
                                      BiConsumer<? super L, ? super E> call, CallbackFailures failures) {
        for (L l : listeners) {
            tell(l, event, call, failures);
        }
    }

    /**
     * As {@link #each(Object[], Consumer, LongAdder)}, with failures logged.
     *
     * @param listeners the listeners
     * @param call      what each is told
     * @param failures  counts and logs each call that threw
     * @param <L>       the listener type
     */
    public static <L> void each(L[] listeners, Consumer<? super L> call, CallbackFailures failures) {
        tellAll(listeners, call, Listeners::accept, failures);
    }

    private static <L> void accept(L listener, Consumer<? super L> call) {
        call.accept(listener);
    }

    /**
     * Removes one registration of {@code listener}, found by identity: two equal lambdas
     * registered apart must be removable one by one.
     *
     * @param listeners where it was registered
     * @param listener  the registration to remove
     * @param <L>       the listener type
     * @return whether one was removed
     */
    public static <L> boolean removeOne(List<L> listeners, L listener) {
        for (L l : listeners) {
            if (l == listener) {
                return listeners.remove(l);
            }
        }
        return false;
    }
}
