package dev.adaptive.benchmarks.model;

import dev.adaptive.retry.Quota;
import dev.adaptive.time.Scheduler;
import dev.adaptive.time.Ticker;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;

/**
 * The flaky API model of docs/benchmarks.md, answering in the time of a {@link Ticker} and a
 * {@link Scheduler}: in {@link dev.adaptive.time.VirtualTime} for the simulations, on real
 * time for the real-time mode and behind the loopback HTTP server.
 *
 * <p>A request that arrives when {@code n} requests are in flight (counting itself) is
 * refused after 2 ms if {@code n > hard} (429 with Retry-After, or a 500 for the over-cap
 * share); otherwise it is answered after {@code base * (1 + (max(0, n - soft) / soft)^2)},
 * times a uniform jitter factor, times the tail factor with the tail probability, and with the
 * transient probability that answer is a 500. Refused requests count as in flight for their
 * 2 ms, as on a real server that spends a little work on each refusal.
 *
 * <p>It records what the scenarios report: arrivals, 429s, 500s, the peak in-flight count, the
 * number of rate-limit episodes (429s answered outside every window announced before them), and
 * arrivals strictly inside a Retry-After window {@code [t429, t429 + retryAfter]} it has already
 * announced (the ideal is 0), and of those the ones a client sent after it had read the 429
 * that opened the window, when the client says ({@link #call(long)}). Optionally it records
 * in-flight over time, for charts.
 *
 * <p>Two shapes can be added to the model before the first call: a <b>quota</b>
 * ({@link #withQuota(int, Duration)}), a fixed window of {@code q} accepted requests per
 * {@code window} from the server's start, announced with every answer as what remains and the
 * time to the window's end, and past it a 429 with a {@code Retry-After} of that time; and an
 * <b>outage</b> ({@link #withOutage(Duration, Duration)}), a span of time in which every request
 * is answered 500 after the model's latency. Arrivals in the outage are counted, and of them
 * first attempts when the client says so ({@link #call(long, int)}).
 *
 * <p>Thread-safe: the model's state is guarded by this object's monitor; answers are delivered
 * outside it. The random source is seeded, so a single-threaded virtual-time run is
 * reproducible.
 */
public final class FlakyServer {

    private static final long REFUSAL_NANOS = Scenario.REFUSAL_LATENCY.toNanos();

    private final Scenario scenario;
    private final Ticker ticker;
    private final Scheduler scheduler;
    private final SplittableRandom random;
    private final long retryAfterNanos;
    private final long startNanos;
    private final boolean traceConcurrency;

    private int inflight;
    private int peak;
    private long arrivals;
    private long ok;
    private long tooMany;
    private long serverErrors;
    private long rateLimitEpisodes;
    private long arrivalsDuringRetryAfter;
    private long arrivalsAfterClientKnew;
    private boolean clientCounts;
    // Starts of announced windows, oldest first; all windows have the same length.
    private final List<Long> windowStarts = new ArrayList<>();
    private final List<long[]> concurrency = new ArrayList<>();
    private int quotaLimit;
    private long quotaWindowNanos;
    private long quotaWindowIndex = -1;
    private int quotaUsed;
    private long outageFromNanos;
    private long outageUntilNanos;
    private long outageArrivals;
    private long outageFirstAttempts;

    /**
     * @param scenario         the model's parameters
     * @param ticker           the clock arrivals are stamped with
     * @param scheduler        where answers wait for their latency
     * @param seed             seed of the server's random choices
     * @param traceConcurrency whether to record in-flight over time
     */
    public FlakyServer(Scenario scenario, Ticker ticker, Scheduler scheduler, long seed, boolean traceConcurrency) {
        this.scenario = scenario;
        this.ticker = ticker;
        this.scheduler = scheduler;
        this.random = new SplittableRandom(seed);
        this.retryAfterNanos = scenario.retryAfter().toNanos();
        this.startNanos = ticker.nanoTime();
        this.traceConcurrency = traceConcurrency;
    }

    /**
     * Adds a quota: {@code q} accepted requests per fixed {@code window} from the server's start.
     *
     * @param q      requests accepted per window, at least 1
     * @param window the window, positive
     * @return this
     */
    public synchronized FlakyServer withQuota(int q, Duration window) {
        if (q < 1 || window.isNegative() || window.isZero()) {
            throw new IllegalArgumentException("need q >= 1 and a positive window: " + q + ", " + window);
        }
        this.quotaLimit = q;
        this.quotaWindowNanos = window.toNanos();
        return this;
    }

    /**
     * Adds an outage: every request arriving in {@code [from, from + length)} after the server's
     * start is answered 500 after the model's latency.
     *
     * @param from   when it begins, after the server's start
     * @param length how long it lasts
     * @return this
     */
    public synchronized FlakyServer withOutage(Duration from, Duration length) {
        this.outageFromNanos = startNanos + from.toNanos();
        this.outageUntilNanos = outageFromNanos + length.toNanos();
        return this;
    }

    /** @return arrivals during the outage and, of them, first attempts (as clients said) */
    public synchronized long[] outageArrivals() {
        return new long[] {outageArrivals, outageFirstAttempts};
    }

    /** @return the answer to one request, completed after the model's latency */
    public CompletableFuture<Response> call() {
        return call(-1);
    }

    /**
     * @param clientRead429s as for {@link #call(long)}
     * @param attempt        the client's attempt number for this item, 1 for the first; 0 if unknown
     * @return the answer, completed after the model's latency
     */
    public CompletableFuture<Response> call(long clientRead429s, int attempt) {
        synchronized (this) {
            long now = ticker.nanoTime();
            if (outageUntilNanos != 0 && now - outageFromNanos >= 0 && now - outageUntilNanos < 0) {
                outageArrivals++;
                if (attempt == 1) {
                    outageFirstAttempts++;
                }
            }
        }
        return call(clientRead429s);
    }

    /**
     * A request from a client that says how many 429s it had read when it sent it, so that an
     * arrival during Retry-After can be told apart: sent before the client could know of the
     * window (already on its way when the 429 left), or after it had read the 429 that opened it.
     * The n-th 429 answered opens the n-th window; a client that has read n 429s knows of
     * windows 1..n (clients read 429s in about the order they were sent).
     *
     * @param clientRead429s 429s the client had read when it sent this request; negative if unknown
     * @return the answer, completed after the model's latency
     */
    public CompletableFuture<Response> call(long clientRead429s) {
        CompletableFuture<Response> answer = new CompletableFuture<>();
        Response response;
        long delayNanos;
        synchronized (this) {
            long now = ticker.nanoTime();
            arrivals++;
            int window = earliestOpenWindow(now, false);
            if (window >= 0) {
                arrivalsDuringRetryAfter++;
            }
            if (clientRead429s >= 0) {
                clientCounts = true;
                if (window >= 0 && window < clientRead429s) {
                    arrivalsAfterClientKnew++;
                }
            }
            int n = ++inflight;
            peak = Math.max(peak, n);
            trace(now);
            Quota quota = null;
            boolean overQuota = false;
            if (quotaLimit > 0) {
                long elapsed = now - startNanos;
                long quotaWindow = elapsed / quotaWindowNanos;
                if (quotaWindow != quotaWindowIndex) {
                    quotaWindowIndex = quotaWindow;
                    quotaUsed = 0;
                }
                Duration reset = Duration.ofNanos((quotaWindow + 1) * quotaWindowNanos - elapsed);
                overQuota = quotaUsed >= quotaLimit;
                if (!overQuota) {
                    quotaUsed++;
                }
                quota = new Quota(quotaLimit - quotaUsed, reset);
            }
            boolean outage = outageUntilNanos != 0 && now - outageFromNanos >= 0 && now - outageUntilNanos < 0;
            if (overQuota) {
                delayNanos = REFUSAL_NANOS;
                response = new Response.TooManyRequests(quota.reset(), quota);
            } else if (n > scenario.hard() && !outage) {
                delayNanos = REFUSAL_NANOS;
                response = random.nextDouble() < scenario.overCapErrorShare()
                        ? new Response.ServerError(true)
                        : new Response.TooManyRequests(scenario.retryAfter());
            } else {
                double millis = scenario.congestedMillis(n);
                if (scenario.jitter() > 0) {
                    millis *= 1 + scenario.jitter() * (2 * random.nextDouble() - 1);
                }
                if (scenario.tailProbability() > 0 && random.nextDouble() < scenario.tailProbability()) {
                    millis *= scenario.tailFactor();
                }
                boolean transientError = scenario.transientProbability() > 0
                        && random.nextDouble() < scenario.transientProbability();
                response = transientError || outage ? new Response.ServerError(false) : new Response.Ok(quota);
                delayNanos = Math.max(1, Math.round(millis * 1_000_000));
            }
        }
        scheduler.schedule(() -> answer(answer, response), delayNanos);
        return answer;
    }

    private void answer(CompletableFuture<Response> answer, Response response) {
        synchronized (this) {
            long now = ticker.nanoTime();
            inflight--;
            trace(now);
            if (response instanceof Response.TooManyRequests) {
                tooMany++;
                if (earliestOpenWindow(now, true) < 0) {
                    rateLimitEpisodes++;
                }
                windowStarts.add(now);
            } else if (response instanceof Response.ServerError) {
                serverErrors++;
            } else {
                ok++;
            }
        }
        answer.complete(response);
    }

    /**
     * @param sameInstant whether a window announced at {@code now} itself counts as open (for a
     *                    429 joining a burst answered at one instant; an arrival at that instant
     *                    was already on its way)
     * @return the 0-based index of the earliest announced window open at {@code now}, or -1
     */
    private int earliestOpenWindow(long now, boolean sameInstant) {
        // Windows start in time order and have one length: the ones open now are the latest few
        // that started before now, and they end in the order they started.
        int earliest = -1;
        for (int i = windowStarts.size() - 1; i >= 0; i--) {
            long start = windowStarts.get(i);
            if (start - now > 0 || (!sameInstant && start == now)) {
                continue;
            }
            if (now - (start + retryAfterNanos) >= 0) {
                break;
            }
            earliest = i;
        }
        return earliest;
    }

    private void trace(long now) {
        if (traceConcurrency) {
            concurrency.add(new long[] {now - startNanos, inflight});
        }
    }

    /** @return a snapshot of the counters */
    public synchronized ServerStats stats() {
        return new ServerStats(arrivals, ok, tooMany, serverErrors, peak, rateLimitEpisodes, arrivalsDuringRetryAfter,
                inflight,
                clientCounts ? arrivalsAfterClientKnew : -1);
    }

    /** @return (nanos since start, in flight) at every change, if tracing was asked for */
    public synchronized List<long[]> concurrencyTrace() {
        return List.copyOf(concurrency);
    }

    /** @return the model's parameters */
    public Scenario scenario() {
        return scenario;
    }
}
