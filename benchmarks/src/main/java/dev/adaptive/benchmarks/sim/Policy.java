package dev.adaptive.benchmarks.sim;

/**
 * A client strategy under test: Adaptive with one of its limits, a fixed concurrency, or a
 * peer library. {@link #start(Run)} submits every item of the run at once, as a batch job
 * would, and reports each item's end through {@link Run#itemDone(boolean)}; it must not block.
 *
 * <p>Implementations are immutable descriptions; all per-run state lives in what
 * {@link #start(Run)} creates, so one policy may be run many times, one run at a time or
 * concurrently.
 */
public interface Policy {

    /** @return the row label, for example {@code "adaptive vegas"} or {@code "fixed c=12"} */
    String name();

    /** @return the family the policy belongs to: adaptive, fixed, netflix, resilience4j or failsafe */
    String family();

    /** @param run the run to drive; its server, time and client random are fresh */
    void start(Run run);
}
