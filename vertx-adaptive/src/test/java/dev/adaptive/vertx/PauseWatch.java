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
    /** The grant time of the attempt this thread is starting: its task runs right after the event. */
    private final ThreadLocal<Long> starting = new ThreadLocal<>();

    @Override
    public synchronized void onEvent(TraceEvent event) {
        if (event instanceof TraceEvent.RatePause p) {
            pauses.add(p);
        } else if (event instanceof TraceEvent.TaskStart s) {
            starts.add(s.timeNanos());
            starting.set(s.timeNanos());
        }
    }

    /**
     * For a task's body, which runs on the thread that emitted its start: the pauses the
     * limiter had opened when it granted this attempt's slot. A pause opened after the grant
     * (one relayed from another node, say) cannot hold back an attempt already admitted.
     */
    synchronized int pausesBeforeThisAttempt() {
        Long grant = starting.get();
        if (grant == null) {
            throw new IllegalStateException("not inside a task started by the watched limiter");
        }
        int n = 0;
        for (TraceEvent.RatePause p : pauses) {
            if (p.timeNanos() - grant <= 0) {
                n++;
            }
        }
        return n;
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
