package dev.adaptive.benchmarks.sim;

import com.netflix.concurrency.limits.Limit;
import com.netflix.concurrency.limits.limit.AIMDLimit;
import com.netflix.concurrency.limits.limit.Gradient2Limit;
import com.netflix.concurrency.limits.limit.VegasLimit;
import com.netflix.concurrency.limits.limit.WindowedLimit;
import dev.adaptive.benchmarks.model.Scenario;
import dev.adaptive.benchmarks.model.ServerErrorException;
import dev.adaptive.benchmarks.model.TooManyRequestsException;

import java.util.ArrayDeque;
import java.util.List;
import java.util.Objects;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

/**
 * Netflix concurrency-limits 0.5.4: the library's {@link Limit} algorithms, fed through
 * {@link Limit#onSample(long, long, int, boolean)} exactly as its limiters feed them (start
 * time, RTT, in-flight at admission, drop flag), with the gate written here: admit while
 * in-flight is below {@link Limit#getLimit()}, queue the rest first in first out.
 *
 * <p>The library's own limiters read {@code System.nanoTime()} and block or reject when full,
 * which a virtual-time batch cannot use; the algorithms themselves take time only from their
 * arguments, so they run unchanged here. A 429 and a 500 are both reported as drops (they are
 * the overload signals of the model). Retries follow the scenario's client work per request:
 * after a 429 the request waits its own Retry-After and queues again; nothing pauses the
 * others, since the library has no such notion.
 *
 * <p>Limits use the library defaults, except {@code minLimit(1)} on AIMD and Gradient2 (their
 * default minimum of 20 is above the hard cap of S1-S3 and would make them unable to comply).
 *
 * <p>Immutable; each run builds a fresh limit.
 */
public final class NetflixPolicy implements Policy {

    private final String name;
    private final Supplier<Limit> limit;

    private NetflixPolicy(String name, Supplier<Limit> limit) {
        this.name = name;
        this.limit = limit;
    }

    /** @return the six configurations: Vegas, Gradient2, AIMD, each bare and inside a WindowedLimit */
    public static List<NetflixPolicy> all() {
        return all(Scenario.UNBOUNDED);
    }

    /**
     * @param max the largest limit, {@link Scenario#UNBOUNDED} for the library's defaults (Vegas
     *            1000, Gradient2 and AIMD 200)
     * @return the six configurations: Vegas, Gradient2, AIMD, each bare and inside a WindowedLimit
     */
    public static List<NetflixPolicy> all(int max) {
        Supplier<Limit> vegas = max == Scenario.UNBOUNDED ? VegasLimit::newDefault
                : () -> VegasLimit.newBuilder().maxConcurrency(max).build();
        Supplier<Limit> gradient2 = max == Scenario.UNBOUNDED ? () -> Gradient2Limit.newBuilder().minLimit(1).build()
                : () -> Gradient2Limit.newBuilder().minLimit(1).maxConcurrency(max).build();
        Supplier<Limit> aimd = max == Scenario.UNBOUNDED ? () -> AIMDLimit.newBuilder().minLimit(1).build()
                : () -> AIMDLimit.newBuilder().minLimit(1).maxLimit(max).build();
        return List.of(
                new NetflixPolicy("netflix vegas", vegas),
                new NetflixPolicy("netflix gradient2", gradient2),
                new NetflixPolicy("netflix aimd", aimd),
                new NetflixPolicy("netflix windowed vegas", () -> WindowedLimit.newBuilder().build(vegas.get())),
                new NetflixPolicy("netflix windowed gradient2", () -> WindowedLimit.newBuilder().build(gradient2.get())),
                new NetflixPolicy("netflix windowed aimd", () -> WindowedLimit.newBuilder().build(aimd.get())));
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String family() {
        return "netflix";
    }

    @Override
    public void start(Run run) {
        startClient(run);
    }

    /**
     * Starts one client, as {@link #start(Run)} does, for a fleet of clients that each run their
     * own limit.
     *
     * @param run the client's run
     * @return reads the client's limit now
     */
    public IntSupplier startClient(Run run) {
        Gate gate = new Gate(run, Objects.requireNonNull(limit.get(), "limit"));
        for (int i = 0; i < run.scenario().items(); i++) {
            gate.submit(new Item());
        }
        return gate.limit::getLimit;
    }

    /** One item's retry bookkeeping. */
    private static final class Item {
        int retries;
        int rateLimitRetries;
    }

    /** The admission gate around the limit; confined to the run's scheduler thread. */
    private static final class Gate {
        private final Run run;
        private final Limit limit;
        private final ArrayDeque<Item> queue = new ArrayDeque<>();
        private int inflight;

        Gate(Run run, Limit limit) {
            this.run = run;
            this.limit = limit;
        }

        void submit(Item item) {
            queue.add(item);
            dispatch();
        }

        private void dispatch() {
            while (!queue.isEmpty() && inflight < limit.getLimit()) {
                Item item = queue.poll();
                int admittedAt = ++inflight;
                long start = run.ticker().nanoTime();
                run.attempt().whenComplete((value, error) -> onEnd(item, start, admittedAt, error));
            }
        }

        private void onEnd(Item item, long start, int admittedAt, Throwable error) {
            Throwable cause = error instanceof java.util.concurrent.CompletionException && error.getCause() != null
                    ? error.getCause() : error;
            long rtt = run.ticker().nanoTime() - start;
            limit.onSample(start, rtt, admittedAt, cause != null);
            inflight--;
            if (cause == null) {
                run.itemDone(true);
            } else if (cause instanceof TooManyRequestsException tooMany) {
                if (item.rateLimitRetries++ < Run.RATE_LIMIT_RETRIES) {
                    // Without a Retry-After, the same backoff as after an error.
                    run.scheduler().schedule(() -> submit(item), tooMany.announced()
                            ? tooMany.retryAfterMillis() * 1_000_000L : run.backoff(item.rateLimitRetries).toNanos());
                } else {
                    run.itemDone(false);
                }
            } else if (cause instanceof ServerErrorException && item.retries < run.scenario().retries()) {
                item.retries++;
                run.scheduler().schedule(() -> submit(item), run.backoff(item.retries));
            } else {
                run.itemDone(false);
            }
            dispatch();
        }
    }
}
