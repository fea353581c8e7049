package dev.adaptive.benchmarks.sim;

import dev.adaptive.limit.FixedLimit;
import dev.adaptive.limit.Limit;
import dev.adaptive.pool.ItemPool;
import dev.adaptive.pool.PoolListener;
import dev.adaptive.trace.TraceListener;

import java.util.Objects;
import java.util.stream.IntStream;

/**
 * The engine itself, as a user runs a batch: an {@link ItemPool} over the run's items with
 * the given {@link Limit} and the scenario's retry policy, in the run's time. The pool carries
 * out the signal contract (a 429 pauses the whole pool until its Retry-After; errors back off)
 * and pulls items only when a slot is free. With a {@link FixedLimit} this is the "fixed
 * concurrency" baseline the oracle is drawn from.
 *
 * <p>Immutable; each run builds its own pool.
 */
public final class AdaptivePolicy implements Policy {

    private final String name;
    private final String family;
    private final Limit limit;

    private AdaptivePolicy(String name, String family, Limit limit) {
        this.name = name;
        this.family = family;
        this.limit = Objects.requireNonNull(limit, "limit");
    }

    /**
     * @param limit the algorithm, with its defaults unless the caller chose otherwise
     * @return the policy, named after the algorithm
     */
    public static AdaptivePolicy of(Limit limit) {
        return new AdaptivePolicy("adaptive " + limit.name(), "adaptive", limit);
    }

    /**
     * @param concurrency the fixed concurrency
     * @return the engine with {@link FixedLimit#of(int)}
     */
    public static AdaptivePolicy fixed(int concurrency) {
        return new AdaptivePolicy("fixed c=" + concurrency, "fixed", FixedLimit.of(concurrency));
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String family() {
        return family;
    }

    /** @return the algorithm */
    public Limit limit() {
        return limit;
    }

    @Override
    public void start(Run run) {
        start(run, null);
    }

    /**
     * @param run   the run to drive
     * @param trace receives the engine's trace events, or {@code null}
     */
    public void start(Run run, TraceListener trace) {
        ItemPool<Integer> pool = ItemPool.of(IntStream.range(0, run.scenario().items()).boxed().toList())
                .withName(name).withAlgorithm(limit).withRetryPolicy(run.retryPolicy())
                .withTime(run.ticker(), run.scheduler());
        if (trace != null) {
            pool = pool.withTraceListener(trace);
        }
        pool.stream((item, ctx) -> run.attempt(),
                PoolListener.<Integer, String>of(result -> run.itemDone(true), error -> run.itemDone(false)));
    }
}
