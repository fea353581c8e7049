package dev.adaptive.camel;

import dev.adaptive.trace.TraceEvent;
import dev.adaptive.trace.TraceListener;

import java.util.ArrayList;
import java.util.List;

/**
 * A trace listener bean that records when the pool opened each Retry-After pause, on the
 * pool's ticker (the system nano clock). Thread-safe.
 */
final class PauseRecorder implements TraceListener {

    private final List<Long> pauses = new ArrayList<>();

    @Override
    public void onEvent(TraceEvent event) {
        if (event instanceof TraceEvent.RatePause p) {
            synchronized (pauses) {
                pauses.add(p.timeNanos());
            }
        }
    }

    /**
     * @param windowStart when the server announced a window
     * @return when the pool first paused at or after it, or {@link Long#MAX_VALUE}
     */
    long pausedAfter(long windowStart) {
        synchronized (pauses) {
            return pauses.stream().filter(t -> t - windowStart >= 0).min(Long::compare).orElse(Long.MAX_VALUE);
        }
    }

    int count() {
        synchronized (pauses) {
            return pauses.size();
        }
    }
}
