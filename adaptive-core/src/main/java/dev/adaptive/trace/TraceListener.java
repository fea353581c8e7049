package dev.adaptive.trace;

/**
 * Receives {@link TraceEvent}s. Called synchronously on the thread that caused the event, so
 * it must be fast and thread-safe. A listener that throws loses that event and nothing else:
 * the engine catches the exception, counts it ({@code listenerFailures} in the stats) and goes
 * on.
 */
@FunctionalInterface
public interface TraceListener {

    /** @param event the event; never {@code null} */
    void onEvent(TraceEvent event);
}
