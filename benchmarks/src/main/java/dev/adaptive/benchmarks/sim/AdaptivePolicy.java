package dev.adaptive.benchmarks.sim;

import dev.adaptive.AdaptiveExecutor;
import dev.adaptive.Limiter;
import dev.adaptive.limit.FixedLimit;
import dev.adaptive.limit.Limit;

import java.util.Objects;

/**
 * The engine itself: a {@link Limiter} around a {@link Limit} and an {@link AdaptiveExecutor}
 * carrying out the signal contract (a 429 pauses the whole limiter until its Retry-After;
 * errors back off). Every item is handed to the executor at once; the limiter queues them.
 * With a {@link FixedLimit} this is the "fixed concurrency" baseline the oracle is drawn from.
 *
 * <p>Immutable; each run builds its own limiter and executor.
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
        Limiter limiter = Limiter.builder().name(name).limit(limit)
                .ticker(run.ticker()).scheduler(run.scheduler()).build();
        AdaptiveExecutor executor = AdaptiveExecutor.builder(limiter).retryPolicy(run.retryPolicy()).build();
        for (int i = 0; i < run.scenario().items(); i++) {
            executor.execute(ctx -> run.attempt()).whenComplete((value, error) -> run.itemDone(error == null));
        }
    }
}
