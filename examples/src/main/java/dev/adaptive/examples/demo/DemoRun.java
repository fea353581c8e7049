package dev.adaptive.examples.demo;

/**
 * One way of running the demo's job: the same items against the same target, each way
 * reporting through the engine's trace events so that all runs are charted alike.
 * Implementations are used once, from one thread.
 */
public interface DemoRun {

    /** @return a short name for tables and charts, for example {@code "fixed c=2"} */
    String name();

    /** @return one sentence: what this run does */
    String description();

    /** @return the concurrency the run starts at, the first point of its chart */
    int initialConcurrency();

    /**
     * Runs the job to the end and releases everything it started. Calls
     * {@link TraceRecorder#begin()} right before sending the first item, once its framework is
     * started and warmed up, and {@link TraceRecorder#itemDone()} as each item ends.
     *
     * @param target  where the items go
     * @param items   how many items
     * @param trace   receives every attempt's events and counts the items
     * @return the counts of the run
     * @throws Exception when the run cannot be carried out at all
     */
    RunCounts run(Target target, int items, TraceRecorder trace) throws Exception;

    /**
     * @param ok               items that ended with an answer
     * @param failed           items that ended with an error
     * @param finalConcurrency the concurrency at the end
     */
    record RunCounts(long ok, long failed, int finalConcurrency) {
    }
}
