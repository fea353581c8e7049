package dev.adaptive.fleet;

/**
 * Receives {@link FleetEvent}s. Called synchronously on the thread that caused the event (the
 * limiter's scheduler, the coordinator's completion thread, or a releasing thread), so it must
 * be fast and thread-safe. A listener that throws loses that event and nothing else; the
 * failure is counted in {@link FleetStats#listenerFailures()}.
 */
@FunctionalInterface
public interface FleetListener {

    /** @param event the event; never {@code null} */
    void onEvent(FleetEvent event);
}
