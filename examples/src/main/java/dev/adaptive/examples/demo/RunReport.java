package dev.adaptive.examples.demo;

import dev.adaptive.trace.TraceEvent;

import java.util.List;
import java.util.OptionalLong;

/**
 * Everything known about one finished run: its counts, what the server saw, and its trace.
 * Immutable.
 *
 * @param name                     the run's name
 * @param description              what the run did
 * @param wallNanos                wall time, first dispatch to last item
 * @param counts                   items ok and failed, final concurrency
 * @param rateLimited              429 answers the client received
 * @param arrivalsDuringRetryAfter requests that reached the embedded server inside an
 *                                 announced Retry-After window; empty against a real URL
 * @param startNanos               when the run started, on the trace's clock
 * @param events                   the trace, in the order received
 * @param error                    why the run could not be carried out, or {@code null}
 */
public record RunReport(String name, String description, long wallNanos, DemoRun.RunCounts counts,
                        long rateLimited, OptionalLong arrivalsDuringRetryAfter, long startNanos,
                        List<TraceEvent> events, String error) {

    /** Copies the trace. */
    public RunReport {
        events = List.copyOf(events);
    }

    /** @return wall time in milliseconds */
    public long wallMillis() {
        return wallNanos / 1_000_000;
    }
}
