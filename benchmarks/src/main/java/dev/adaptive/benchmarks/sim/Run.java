package dev.adaptive.benchmarks.sim;

import dev.adaptive.benchmarks.model.Scenario;
import dev.adaptive.benchmarks.model.ServerErrorException;
import dev.adaptive.benchmarks.model.TooManyRequestsException;
import dev.adaptive.retry.Backoff;
import dev.adaptive.retry.RetryPolicy;
import dev.adaptive.testing.Answer;
import dev.adaptive.testing.FlakyDownstream;
import dev.adaptive.time.Scheduler;
import dev.adaptive.time.Ticker;

import java.time.Duration;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.function.DoubleSupplier;

/**
 * One policy against one scenario with one seed: the server, the time the run lives in, the
 * client's seeded randomness, and the tally of finished items.
 *
 * <p>The client's work is the same for every policy (docs/benchmarks.md): an error is retried with
 * exponential backoff from 100 ms, capped at 30 s, jitter 0.2, up to the scenario's budget; a
 * 429 is retried after its Retry-After, on a separate budget of
 * {@value #RATE_LIMIT_RETRIES} that does not consume the error budget.
 *
 * <p>Thread-safe: the tally is guarded by this object's monitor.
 */
public final class Run {

    /** Retries after 429s each item may make: the engine's default {@code maxRateLimitRetries}. */
    public static final int RATE_LIMIT_RETRIES = RetryPolicy.DEFAULT_MAX_RATE_LIMIT_RETRIES;
    /** The backoff of the scenarios' client work, jitter included. */
    public static final Backoff BACKOFF =
            Backoff.exponential(Duration.ofMillis(100), Duration.ofSeconds(30)).withJitter(0.2);

    private final Scenario scenario;
    private final long seed;
    private final Ticker ticker;
    private final Scheduler scheduler;
    private final FlakyDownstream server;
    private final DoubleSupplier clientRandom;
    private final long startNanos;
    private final CompletableFuture<Void> finished = new CompletableFuture<>();

    private int done;
    private int ok;
    private int failed;
    private long lastDoneNanos;
    private long firstAttemptNanos = -1;

    /**
     * @param scenario         the workload
     * @param seed             seeds the server and the client's jitter
     * @param ticker           the run's clock
     * @param scheduler        the run's waits
     * @param traceConcurrency whether the server records in-flight over time
     */
    public Run(Scenario scenario, long seed, Ticker ticker, Scheduler scheduler, boolean traceConcurrency) {
        this(scenario, seed, ticker, scheduler, scenario.downstream(ticker, scheduler, seed, traceConcurrency));
    }

    /**
     * One client of several calling one server (a fleet): the tally and the randomness are this
     * client's, the server is shared.
     *
     * @param scenario  the client's workload ({@link Scenario#items()} is this client's share)
     * @param seed      seeds this client's jitter
     * @param ticker    the run's clock
     * @param scheduler the run's waits
     * @param server    the server every client of the fleet calls
     */
    public Run(Scenario scenario, long seed, Ticker ticker, Scheduler scheduler, FlakyDownstream server) {
        this.scenario = scenario;
        this.seed = seed;
        this.ticker = ticker;
        this.scheduler = scheduler;
        this.server = server;
        SplittableRandom r = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + 17);
        this.clientRandom = r::nextDouble;
        this.startNanos = ticker.nanoTime();
        this.lastDoneNanos = startNanos;
    }

    /**
     * @return one request to the server, as a stage that completes with {@code "ok"} or fails
     *         with the answer's exception itself ({@link TooManyRequestsException},
     *         {@link ServerErrorException}), not wrapped, so every library sees what a real
     *         client would throw
     */
    public CompletableFuture<String> attempt() {
        CompletableFuture<String> out = new CompletableFuture<>();
        synchronized (this) {
            if (firstAttemptNanos < 0) {
                firstAttemptNanos = ticker.nanoTime();
            }
        }
        server.call().whenComplete((r, error) -> {
            if (error != null) {
                out.completeExceptionally(error);
            } else if (r instanceof Answer.TooManyRequests t) {
                out.completeExceptionally(new TooManyRequestsException(t.retryAfter()));
            } else if (r instanceof Answer.ServerError e) {
                out.completeExceptionally(new ServerErrorException(e.overCap()));
            } else {
                out.complete("ok");
            }
        });
        return out;
    }

    /** @return the client work as the engine's retry policy, jitter drawn from this run's random */
    public RetryPolicy retryPolicy() {
        return RetryPolicy.builder().retries(scenario.retries()).backoff(BACKOFF)
                .maxRateLimitRetries(RATE_LIMIT_RETRIES).random(clientRandom).build();
    }

    /**
     * @param retry 1 for the first retry after an error
     * @return the client work's backoff before it, with this run's jitter
     */
    public Duration backoff(int retry) {
        return BACKOFF.delay(retry, clientRandom);
    }

    /** @param success whether the item ended with a result (rather than its last error) */
    public void itemDone(boolean success) {
        boolean all;
        synchronized (this) {
            done++;
            if (success) {
                ok++;
            } else {
                failed++;
            }
            lastDoneNanos = ticker.nanoTime();
            all = done == scenario.items();
        }
        if (all) {
            finished.complete(null);
        }
    }

    /** @return the items that have ended so far */
    public synchronized int done() {
        return done;
    }

    /** @return completes when every item has ended */
    public CompletableFuture<Void> finished() {
        return finished;
    }

    /**
     * @param policy the policy that ran
     * @return the run's figures; items that never ended count as failed
     */
    public RunResult result(Policy policy) {
        return result(policy.name(), policy.family());
    }

    /**
     * @param policy the row label of what ran
     * @param family its family
     * @return the run's figures; items that never ended count as failed
     */
    public synchronized RunResult result(String policy, String family) {
        int unfinished = scenario.items() - done;
        return new RunResult(policy, family, scenario.id(), seed,
                (lastDoneNanos - startNanos) / 1e6, ok, failed + unfinished, unfinished, server.stats());
    }

    /** @return when this client sent its first request, in ms after the start; -1 if it sent none */
    public synchronized double firstAttemptMillis() {
        return firstAttemptNanos < 0 ? -1 : (firstAttemptNanos - startNanos) / 1e6;
    }

    /** @return the workload */
    public Scenario scenario() {
        return scenario;
    }

    /** @return the seed */
    public long seed() {
        return seed;
    }

    /** @return the run's clock */
    public Ticker ticker() {
        return ticker;
    }

    /** @return the run's waits */
    public Scheduler scheduler() {
        return scheduler;
    }

    /** @return the server */
    public FlakyDownstream server() {
        return server;
    }

    /** @return the client's seeded random, uniform in [0, 1) */
    public DoubleSupplier clientRandom() {
        return clientRandom;
    }
}
