package dev.adaptive.vertx;

import dev.adaptive.trace.TraceEvent;
import dev.adaptive.trace.TraceListener;

import java.util.ArrayList;
import java.util.List;

/** Records a limiter's limit over time, to tell where it settled. */
final class LimitRecorder implements TraceListener {

    private final List<long[]> changes = new ArrayList<>(); // {time, limit from then on}

    LimitRecorder(long startNanos, int initialLimit) {
        changes.add(new long[] {startNanos, initialLimit});
    }

    @Override
    public synchronized void onEvent(TraceEvent event) {
        if (event instanceof TraceEvent.ConcurrencyChange c) {
            changes.add(new long[] {c.timeNanos(), c.to()});
        }
    }

    /** @return the time-weighted mean limit over [from, to] */
    synchronized double meanLimit(long from, long to) {
        double weighted = 0;
        for (int i = 0; i < changes.size(); i++) {
            long start = Math.max(from, changes.get(i)[0]);
            long end = Math.min(to, i + 1 < changes.size() ? changes.get(i + 1)[0] : to);
            if (end > start) {
                weighted += (double) (end - start) * changes.get(i)[1];
            }
        }
        return weighted / Math.max(1, to - from);
    }
}
