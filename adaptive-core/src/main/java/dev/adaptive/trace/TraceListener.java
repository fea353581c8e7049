package dev.adaptive.trace;

/**
 * Receives {@link TraceEvent}s. Called synchronously on the thread that caused the event, so
 * it must be fast and thread-safe. A listener that throws loses that event and nothing else:
 * the engine catches the exception, counts it ({@code listenerFailures} in the stats) and goes
 * on.
 *
 * <p>The engine builds an event only if some listener of the limiter {@linkplain #accepts wants}
 * its kind: a listener that wants only {@link TraceEvent.TaskEnd} (a metrics timer) spares every
 * attempt the other events, the per-sample {@link TraceEvent.Decision} above all. A listener may
 * still be given kinds it does not want, when another listener of the same limiter wants them.
 */
@FunctionalInterface
public interface TraceListener {

    /** @param event the event; never {@code null} */
    void onEvent(TraceEvent event);

    /**
     * Asked once per kind when the listener is registered (so an answer that changes later is
     * not seen). One that throws counts as {@code true}.
     *
     * @param kind one of the records of {@link TraceEvent}
     * @return whether this listener wants events of that kind; default {@code true}, every kind
     */
    default boolean accepts(Class<? extends TraceEvent> kind) {
        return true;
    }
}
