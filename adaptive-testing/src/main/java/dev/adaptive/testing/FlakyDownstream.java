package dev.adaptive.testing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.ObjLongConsumer;

/**
 * The flaky API of a {@link FlakyModel}, answering in the time of a clock and a scheduler given
 * as plain functions: a virtual clock for the simulations, the wall clock behind the loopback
 * {@link FlakyHttpServer}. One request is one {@link #call(Request)}; its answer completes after
 * the model's latency, when the scheduler runs it.
 *
 * <p>Three shapes can be added before the first call: a <b>quota</b>
 * ({@link #withQuota(int, Duration)}), a fixed window of {@code q} requests counted per
 * {@code window} from the start (refused ones included), announced with every 200 and every 429
 * of its own as what remains and the time to the window's end, and past it a 429 with a
 * {@code Retry-After} of that time; a <b>rate</b>
 * ({@link #withRate(double, int)}), a token bucket that refuses requests beyond a rate per second
 * once a burst is spent, with a 429 whose {@code Retry-After} is the time to the next token in
 * whole seconds rounded up, as an HTTP header says it (at least 1 s), and announces nothing on
 * its answers; <b>silent 429s</b> ({@link #withoutRetryAfter()}), the model's, the quota's and the
 * rate's refusals without a {@code Retry-After}, as many APIs answer, opening no window; and an
 * <b>outage</b>
 * ({@link #withOutage(Duration, Duration)}), a span in which every request is answered 500 after
 * the model's latency, whatever the load. An outage can also begin at any moment
 * ({@link #withOutageFromNow(Duration)}): a run that must meet it in its middle, whatever the
 * machine's speed, starts it on an event (the n-th arrival, say) instead of at a set time.
 * Refused requests count as in flight for their {@link FlakyModel#REFUSAL_LATENCY}.
 *
 * <p>It records what the benchmarks and the tests report ({@link #stats()}): arrivals, answers by
 * kind, the peak in flight, rate-limit episodes, and arrivals strictly inside a Retry-After window
 * {@code [t429, t429 + retryAfter]} it had already announced: to the same client (the ideal is 0),
 * to any client ({@link #rawArrivalsDuringRetryAfter()}), and of those the ones whose client had
 * read the 429 that opened the window when it sent them (the client says what it had read,
 * {@link Request#read429s()}; the n-th 429 answered opens the n-th window). A window lasts the
 * model's {@code retryAfter} after each of its 429s, a scripted 429 the seconds it announces.
 * With {@code record} it also keeps every {@link Arrival} and the in-flight count at every change.
 *
 * <p>Thread-safe: the state is guarded by this object's monitor and answers are completed outside
 * it. The random choices come from one seeded source, so a single-threaded virtual-time run is
 * reproducible.
 */
public final class FlakyDownstream {

    private static final long REFUSAL_NANOS = FlakyModel.REFUSAL_LATENCY.toNanos();

    private final FlakyModel model;
    private final LongSupplier clock;
    private final ObjLongConsumer<Runnable> scheduler;
    private final SplittableRandom random;
    private final long retryAfterNanos;
    private final long startNanos;
    private final boolean record;

    private int inflight;
    private int peak;
    private long arrivals;
    private long ok;
    private long tooMany;
    private long serverErrors;
    private long rateLimitEpisodes;
    private long arrivalsDuringRetryAfter;
    private long rawArrivalsDuringRetryAfter;
    private long arrivalsAfterClientKnew;
    private boolean clientCounts;
    /** Announced windows in the order of their 429s. */
    private final List<Window> windows = new ArrayList<>();
    /** The longest window so far: every window that started before {@code now - longest} is over. */
    private long longestWindowNanos;
    private final List<Arrival> arrivalLog = new ArrayList<>();
    /** (nanos since start, in flight from then on), at every change. */
    private final List<long[]> concurrency = new ArrayList<>();
    /** Tokens added per nanosecond; 0 without a rate. */
    private double ratePerNano;
    private int rateBurst;
    private double tokens;
    private long tokensAtNanos;
    /** Whether a 429 says {@code Retry-After}; see {@link #withoutRetryAfter()}. */
    private boolean announceRetryAfter = true;
    private int quotaLimit;
    private long quotaWindowNanos;
    private long quotaWindowIndex = -1;
    private int quotaUsed;
    private long outageFromNanos;
    private long outageUntilNanos;
    private long outageArrivals;
    private long outageFirstAttempts;

    private record Window(String client, long start, long end) {
    }

    /**
     * @param model     the model's parameters
     * @param clock     the clock arrivals are stamped with, in nanoseconds (differences only)
     * @param scheduler runs a task after a delay in nanoseconds, on the same clock
     * @param seed      seed of the random choices
     * @param record    whether to keep every arrival and the in-flight count at every change
     */
    public FlakyDownstream(FlakyModel model, LongSupplier clock, ObjLongConsumer<Runnable> scheduler, long seed,
                           boolean record) {
        this.model = Objects.requireNonNull(model, "model");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
        this.random = new SplittableRandom(seed);
        this.retryAfterNanos = model.retryAfter().toNanos();
        this.startNanos = clock.getAsLong();
        this.record = record;
    }

    /**
     * Adds a quota: {@code q} requests per fixed {@code window} from the start, counted as they
     * arrive within the quota, whatever else then refuses them (the hard cap, the rate): a
     * gateway's counter in front of the service, not the service's own. Past {@code q} a request
     * is refused with the quota's 429 (its {@code Retry-After} the time to the window's end) and
     * counts no further.
     *
     * @param q      requests accepted per window, at least 1
     * @param window the window, positive
     * @return this
     */
    public synchronized FlakyDownstream withQuota(int q, Duration window) {
        if (q < 1 || window.isNegative() || window.isZero()) {
            throw new IllegalArgumentException("need q >= 1 and a positive window: " + q + ", " + window);
        }
        this.quotaLimit = q;
        this.quotaWindowNanos = window.toNanos();
        return this;
    }

    /**
     * Adds a rate: a token bucket of {@code burst} tokens, full at the start and refilled at
     * {@code perSecond}; a request that finds no token is refused (429 after the model's refusal
     * latency, with a {@code Retry-After} of the time to the next token in whole seconds rounded
     * up). The shape of an API gateway's or a proxy's requests-per-second limit: it refuses the
     * calls beyond a rate, whatever their concurrency. Answers carry no quota.
     *
     * @param perSecond tokens added per second, positive
     * @param burst     the bucket's size, at least 1
     * @return this
     */
    public synchronized FlakyDownstream withRate(double perSecond, int burst) {
        if (!(perSecond > 0) || Double.isInfinite(perSecond) || burst < 1) {
            throw new IllegalArgumentException("need perSecond > 0 and burst >= 1: " + perSecond + ", " + burst);
        }
        this.ratePerNano = perSecond / 1e9;
        this.rateBurst = burst;
        this.tokens = burst;
        this.tokensAtNanos = clock.getAsLong();
        return this;
    }

    /**
     * Makes every 429 silent: the model's past the cap, the quota's and the rate's are answered
     * without a {@code Retry-After} (a quota's answers still carry the quota). A silent 429 opens no
     * window, so no arrival counts as during Retry-After and no rate-limit episode is counted:
     * the client was told of no instant to wait until. The shape of the many APIs that refuse
     * without saying for how long.
     *
     * @return this
     */
    public synchronized FlakyDownstream withoutRetryAfter() {
        this.announceRetryAfter = false;
        return this;
    }

    /**
     * Adds an outage: every request arriving in {@code [from, from + length)} after the start is
     * answered 500 after the model's latency.
     *
     * @param from   when it begins, after the start
     * @param length how long it lasts, positive
     * @return this
     */
    public synchronized FlakyDownstream withOutage(Duration from, Duration length) {
        if (from.isNegative() || length.isNegative() || length.isZero()) {
            throw new IllegalArgumentException("need from >= 0 and a positive length: " + from + ", " + length);
        }
        return outage(startNanos + from.toNanos(), length);
    }

    /**
     * Begins an outage now, on this downstream's clock: every request arriving in
     * {@code [now, now + length)} is answered 500 after the model's latency. It replaces an
     * outage set before; {@link #outageArrivals()} keeps counting across both.
     *
     * @param length how long it lasts, positive
     * @return this
     */
    public synchronized FlakyDownstream withOutageFromNow(Duration length) {
        if (length.isNegative() || length.isZero()) {
            throw new IllegalArgumentException("need a positive length: " + length);
        }
        return outage(clock.getAsLong(), length);
    }

    private FlakyDownstream outage(long fromNanos, Duration length) {
        this.outageFromNanos = fromNanos;
        this.outageUntilNanos = fromNanos + length.toNanos();
        return this;
    }

    /** @return the model's parameters */
    public FlakyModel model() {
        return model;
    }

    /** @return the answer to an anonymous request, completed after the model's latency */
    public CompletableFuture<Answer> call() {
        return call(Request.plain());
    }

    /**
     * @param request what the caller says about the request
     * @return the model's answer, completed after the model's latency
     */
    public CompletableFuture<Answer> call(Request request) {
        Answer response;
        long delayNanos;
        synchronized (this) {
            long now = clock.getAsLong();
            int n = arrive(request, now);
            boolean outage = outageUntilNanos != 0 && now - outageFromNanos >= 0 && now - outageUntilNanos < 0;
            if (outage) {
                outageArrivals++;
                if (request.attempt() == 1) {
                    outageFirstAttempts++;
                }
            }
            Answer.Quota quota = null;
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
                quota = new Answer.Quota(quotaLimit - quotaUsed, reset);
            }
            Duration rateWait = ratePerNano > 0 ? takeToken(now) : null;
            if (rateWait != null) {
                delayNanos = REFUSAL_NANOS;
                response = new Answer.TooManyRequests(announceRetryAfter ? rateWait : null);
            } else if (overQuota) {
                delayNanos = REFUSAL_NANOS;
                response = new Answer.TooManyRequests(announceRetryAfter ? quota.reset() : null, quota);
            } else if (n > model.hard() && !outage) {
                delayNanos = REFUSAL_NANOS;
                response = random.nextDouble() < model.overCapErrorShare()
                        ? new Answer.ServerError(true)
                        : new Answer.TooManyRequests(announceRetryAfter ? model.retryAfter() : null);
            } else {
                double millis = model.congestedMillis(n);
                if (model.jitter() > 0) {
                    millis *= 1 + model.jitter() * (2 * random.nextDouble() - 1);
                }
                if (model.tailProbability() > 0 && random.nextDouble() < model.tailProbability()) {
                    millis *= model.tailFactor();
                }
                boolean transientError = model.transientProbability() > 0
                        && random.nextDouble() < model.transientProbability();
                response = transientError || outage ? new Answer.ServerError(false) : new Answer.Ok(quota);
                delayNanos = Math.max(1, Math.round(millis * 1_000_000));
            }
        }
        return later(request, response, delayNanos);
    }

    /**
     * Under the lock: takes a token from the rate's bucket.
     *
     * @return {@code null} if there was one, else the {@code Retry-After} to announce: the time to
     *         the next token in whole seconds, rounded up
     */
    private Duration takeToken(long now) {
        tokens = Math.min(rateBurst, tokens + (now - tokensAtNanos) * ratePerNano);
        tokensAtNanos = now;
        if (tokens >= 1) {
            tokens -= 1;
            return null;
        }
        double waitNanos = (1 - tokens) / ratePerNano;
        return Duration.ofSeconds(Math.max(1, (long) Math.ceil(waitNanos / 1e9)));
    }

    /**
     * A request that gets a scripted answer instead of the model's, counted like any other: it is
     * in flight until the answer, and a 429 opens a window.
     *
     * @param request what the caller says about the request
     * @param answer  the answer to give
     * @param delay   when to give it
     * @return the answer, completed after {@code delay}
     */
    public CompletableFuture<Answer> call(Request request, Answer answer, Duration delay) {
        Objects.requireNonNull(answer, "answer");
        synchronized (this) {
            arrive(request, clock.getAsLong());
        }
        return later(request, answer, Math.max(0, delay.toNanos()));
    }

    /** Under the lock: counts the arrival; returns the requests in flight, itself included. */
    private int arrive(Request request, long now) {
        arrivals++;
        // Windows start in the order of their 429s; every window that started before
        // now - longest is over, so the scan stops there.
        int earliest = -1;
        long clientWindow = -1;
        for (int i = windows.size() - 1; i >= 0; i--) {
            Window w = windows.get(i);
            if (w.start() - now >= 0) {
                continue;
            }
            if (now - (w.start() + longestWindowNanos) >= 0) {
                break;
            }
            if (now - w.end() < 0) {
                earliest = i;
                if (w.client().equals(request.client())) {
                    clientWindow = w.start();
                }
            }
        }
        if (earliest >= 0) {
            rawArrivalsDuringRetryAfter++;
        }
        if (clientWindow != -1) {
            arrivalsDuringRetryAfter++;
        }
        if (request.read429s() >= 0) {
            clientCounts = true;
            if (earliest >= 0 && earliest < request.read429s()) {
                arrivalsAfterClientKnew++;
            }
        }
        int n = ++inflight;
        peak = Math.max(peak, n);
        trace(now);
        if (record) {
            arrivalLog.add(new Arrival(now, n, request.client(), request.path(), request.dispatchedNanos(),
                    clientWindow, request.read429s() < 0 ? Long.MAX_VALUE : request.read429s()));
        }
        return n;
    }

    private CompletableFuture<Answer> later(Request request, Answer response, long delayNanos) {
        CompletableFuture<Answer> answer = new CompletableFuture<>();
        scheduler.accept(() -> answer(request, answer, response), delayNanos);
        return answer;
    }

    private void answer(Request request, CompletableFuture<Answer> answer, Answer response) {
        // Counted out before the caller hears it: a client that sends its next request as soon
        // as it reads this answer must not find this one still counted.
        synchronized (this) {
            long now = clock.getAsLong();
            inflight--;
            trace(now);
            int status = response.status();
            if (status == 429) {
                tooMany++;
                long length = windowLength(response);
                if (length > 0) {
                    if (earliestOpenWindow(now) < 0) {
                        rateLimitEpisodes++;
                    }
                    windows.add(new Window(request.client(), now, now + length));
                    longestWindowNanos = Math.max(longestWindowNanos, length);
                }
            } else if (status >= 500) {
                serverErrors++;
            } else if (status == 200) {
                ok++;
            }
        }
        answer.complete(response);
    }

    /**
     * The model's own 429s open a window of the model's Retry-After; a quota's or a rate's, and a
     * scripted one, what they announce; a silent one none.
     */
    private long windowLength(Answer response) {
        if (response instanceof Answer.TooManyRequests t && t.retryAfter() == null) {
            return 0;
        }
        if (response instanceof Answer.TooManyRequests t && (quotaLimit > 0 || ratePerNano > 0)) {
            return t.retryAfter().toNanos();
        }
        if (response instanceof Answer.Scripted s) {
            try {
                return TimeUnit.SECONDS.toNanos(Long.parseLong(s.retryAfter().trim()));
            } catch (NumberFormatException | NullPointerException notDeltaSeconds) {
                return 0;
            }
        }
        return retryAfterNanos;
    }

    /**
     * Under the lock: the index of the earliest window open at {@code now}, a window announced at
     * {@code now} itself included (a 429 joining a burst answered at one instant), or -1.
     */
    private int earliestOpenWindow(long now) {
        int earliest = -1;
        for (int i = windows.size() - 1; i >= 0; i--) {
            Window w = windows.get(i);
            if (w.start() - now > 0) {
                continue;
            }
            if (now - (w.start() + longestWindowNanos) >= 0) {
                break;
            }
            if (now - w.end() < 0) {
                earliest = i;
            }
        }
        return earliest;
    }

    private void trace(long now) {
        if (record) {
            concurrency.add(new long[] {now - startNanos, inflight});
        }
    }

    /** @return a snapshot of the counters */
    public synchronized DownstreamStats stats() {
        return new DownstreamStats(arrivals, ok, tooMany, serverErrors, peak, rateLimitEpisodes,
                arrivalsDuringRetryAfter, inflight, clientCounts ? arrivalsAfterClientKnew : -1);
    }

    /** @return arrivals strictly inside a window announced to any client, requests already on their way included */
    public synchronized long rawArrivalsDuringRetryAfter() {
        return rawArrivalsDuringRetryAfter;
    }

    /** @return arrivals during the outage and, of them, first attempts (as clients said) */
    public synchronized long[] outageArrivals() {
        return new long[] {outageArrivals, outageFirstAttempts};
    }

    /** @return every arrival since the start or the last reset, in order; empty unless recording */
    public synchronized List<Arrival> arrivals() {
        return List.copyOf(arrivalLog);
    }

    /** @return (nanos since start, in flight) at every change, if recording */
    public synchronized List<long[]> concurrencyTrace() {
        return List.copyOf(concurrency);
    }

    /**
     * @param from start of the span, on the model's clock
     * @param to   end of the span
     * @return the time-weighted mean of requests in flight over [from, to], counting only the time
     *         something was in flight (Retry-After pauses leave the server idle, and idle time
     *         would flatter the mean); 0 unless recording
     */
    public synchronized double meanBusyInflight(long from, long to) {
        double weighted = 0;
        long busy = 0;
        for (int i = 0; i < concurrency.size(); i++) {
            long at = startNanos + concurrency.get(i)[0];
            long start = Math.max(from, at);
            long end = Math.min(to, i + 1 < concurrency.size() ? startNanos + concurrency.get(i + 1)[0] : to);
            long n = concurrency.get(i)[1];
            if (end > start && n > 0) {
                weighted += (double) (end - start) * n;
                busy += end - start;
            }
        }
        return weighted / Math.max(1, busy);
    }

    /** @return requests in flight now */
    public synchronized int inflight() {
        return inflight;
    }

    /** Starts a new measurement of the peak from what is in flight now. */
    public synchronized void resetPeak() {
        peak = inflight;
    }

    /**
     * Zeroes the counters and forgets the arrivals, the trace and the announced windows, for the
     * next client; what is in flight stays in flight. The quota, the rate (its bucket as it is)
     * and the outage stay.
     */
    public synchronized void reset() {
        arrivals = 0;
        ok = 0;
        tooMany = 0;
        serverErrors = 0;
        rateLimitEpisodes = 0;
        arrivalsDuringRetryAfter = 0;
        rawArrivalsDuringRetryAfter = 0;
        arrivalsAfterClientKnew = 0;
        clientCounts = false;
        windows.clear();
        longestWindowNanos = 0;
        arrivalLog.clear();
        concurrency.clear();
        outageArrivals = 0;
        outageFirstAttempts = 0;
        peak = inflight;
    }
}
