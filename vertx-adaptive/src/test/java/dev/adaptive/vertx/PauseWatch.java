package dev.adaptive.vertx;

import dev.adaptive.trace.TraceEvent;
import dev.adaptive.trace.TraceListener;

import java.util.ArrayList;
import java.util.List;

/**
 * Watches a limiter's trace for invariant 4 as the client sees it: no attempt is dispatched
 * (a {@link TraceEvent.TaskStart}) strictly inside a Retry-After pause the limiter had already
 * opened ({@link TraceEvent.RatePause}, from its opening to its end).
 */
final class PauseWatch implements TraceListener {

    private final List<TraceEvent.RatePause> pauses = new ArrayList<>();
    private final List<Long> starts = new ArrayList<>();

    @Override
    public synchronized void onEvent(TraceEvent event) {
        if (event instanceof TraceEvent.RatePause p) {
            pauses.add(p);
        } else if (event instanceof TraceEvent.TaskStart s) {
            starts.add(s.timeNanos());
        }
    }

    synchronized int pauses() {
        return pauses.size();
    }

    synchronized int starts() {
        return starts.size();
    }

    synchronized int dispatchesInsidePauses() {
        int n = 0;
        for (long t : starts) {
            for (TraceEvent.RatePause p : pauses) {
                if (t > p.timeNanos() && t < p.untilNanos()) {
                    n++;
                    break;
                }
            }
        }
        return n;
    }
}
