package dev.adaptive.camel;

import dev.adaptive.AdaptiveExecutor;
import dev.adaptive.Limiter;
import dev.adaptive.LimiterStats;
import dev.adaptive.limit.Outcome;
import dev.adaptive.RejectedException;
import dev.adaptive.fleet.FleetMember;
import dev.adaptive.internal.LiveSet;
import dev.adaptive.time.Scheduler;
import dev.adaptive.time.Ticker;
import org.apache.camel.AsyncCallback;
import org.apache.camel.AsyncProcessor;
import org.apache.camel.Exchange;
import org.apache.camel.StreamCache;
import org.apache.camel.spi.StreamCachingStrategy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.InputStream;
import java.io.Reader;
import java.time.Clock;
import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

/**
 * The running side of one named pool: the {@link Limiter} and {@link AdaptiveExecutor} every
 * attempt passes, the consumer route the attempts go to, the exchanges on their way, and the
 * counters behind {@link AdaptiveStats}.
 *
 * <p>Waiting holds no thread: an exchange waits as a {@link Submission} in the limiter's queue,
 * in a scheduled backoff or behind a Retry-After pause, and only an admitted attempt takes a
 * thread from {@code workers}. So the threads busy with attempts never exceed the limit. A
 * transacted exchange is the exception: its caller's thread waits and runs its attempts
 * ({@link #submitOnThisThread}), since its transaction is bound to that thread.
 *
 * <p>The engine (limiter, executor, classifier) is built at the first exchange, from the options
 * the component then fixes for good; until then endpoints may still bring options.
 *
 * <p>Thread-safe. Lives from the first start of one of its endpoints to the component's stop.
 */
final class ExchangePool {

    private static final Logger LOG = LoggerFactory.getLogger(ExchangePool.class);

    /** The parts built from the options, at the first exchange. */
    private record Engine(PoolConfig config, Limiter limiter, AdaptiveExecutor executor,
                          ExchangeClassifier defaultClassifier, FleetMember fleet) {
    }

    private final String name;
    private final Supplier<PoolConfig> configSource;
    private final Ticker ticker;
    private final Executor workers;
    private final Scheduler scheduler;
    private final Clock clock;
    private volatile Engine engine;
    private boolean paused; // guarded by this
    /** Told of the engine once it is built (the meters bind there); {@code null} for none. */
    private volatile EngineListener engineListener;
    /** What {@link #engineListener} returned, closed with the pool; guarded by this. */
    private AutoCloseable engineBinding;
    private final AtomicBoolean classifierWarned = new AtomicBoolean();

    private volatile AsyncProcessor target;
    private volatile Object targetOwner;
    private volatile boolean closed;
    /** Why the pool is stopping, once a shutdown ran out of time or it closed; else null. */
    private volatile String stopping;
    /** The exchanges accepted and not yet ended; a stop fails them with the words it gives. */
    private final LiveSet<Submission, String> active = new LiveSet<>((s, why) -> s.fail(stopped(why)));
    private final Queue<Submission> awaitingConsumer = new ConcurrentLinkedQueue<>();
    /**
     * Numbers the accepted exchanges, and so counts them: the stats' {@code accepted}. Less
     * {@link #completed} and {@link #failed}, it is the count of exchanges pending: no counter of
     * its own, which cost every exchange two atomic writes more.
     */
    private final AtomicLong sequence = new AtomicLong();
    private final LongAdder completed = new LongAdder();
    private final LongAdder failed = new LongAdder();
    private final LongAdder rejected = new LongAdder();
    private final LongAdder attempts = new LongAdder();
    private final LongAdder retries = new LongAdder();
    private final LongAdder classifierFailures = new LongAdder();

    /**
     * @param name      the pool's name
     * @param config    its options, asked for once, at the first exchange (which fixes them)
     * @param ticker    the time source of the limiter
     * @param scheduler every wait: backoff, Retry-After, task timeout, waiting for a consumer
     * @param workers   runs admitted attempts; must not run them on the calling thread in
     *                  production (a same-thread executor serves deterministic tests)
     * @param clock     the wall clock HTTP-date Retry-After values are relative to
     */
    ExchangePool(String name, Supplier<PoolConfig> config, Ticker ticker, Scheduler scheduler, Executor workers,
                 Clock clock) {
        this.name = name;
        this.configSource = config;
        this.ticker = ticker;
        this.scheduler = scheduler;
        this.workers = workers;
        this.clock = clock;
    }

    private Engine engine() {
        Engine e = engine;
        if (e != null) {
            return e;
        }
        // Fixes the options under the component's monitor: never while holding this one, which
        // the component's stop (holding its own) takes to close the pool.
        PoolConfig config = configSource.get();
        synchronized (this) {
            if (closed) {
                throw stopped("it is stopped");
            }
            if (engine == null) {
                engine = build(config);
                if (paused) {
                    engine.limiter().pause();
                }
                bindEngine(engine);
            }
            return engine;
        }
    }

    /**
     * Told once of a pool's engine when its first exchange builds it: how the component binds
     * the pool's meters without this class knowing Micrometer.
     */
    @FunctionalInterface
    interface EngineListener {
        /**
         * @param limiter the pool's limiter
         * @param fleet   its fleet membership, or {@code null}
         * @return what to close when the pool closes, or {@code null}
         */
        AutoCloseable built(Limiter limiter, FleetMember fleet);
    }

    /** @param listener told of the engine when it is built; set before the first exchange */
    void engineListener(EngineListener listener) {
        this.engineListener = listener;
    }

    private void bindEngine(Engine e) {
        EngineListener l = engineListener;
        if (l == null) {
            return;
        }
        try {
            engineBinding = l.built(e.limiter(), e.fleet());
        } catch (Throwable broken) {
            // Meters are an observer: the pool runs without them rather than fail the exchange.
            LOG.warn("Adaptive pool '{}' runs without its meters: binding them failed", name, broken);
        }
    }

    private Engine build(PoolConfig config) {
        // The core's options (limit, adapt, queue bound, wait timeout, Retry-After cap, trace) as every face applies them.
        Limiter limiter = config.core().limiterBuilder()
                .name("adaptive:" + name)
                .ticker(ticker)
                .scheduler(scheduler)
                .build();
        // The fleet options as every face applies them; joining sets the limiter's ceiling to 0
        // until the fleet grants a share.
        FleetMember fleet = config.core().fleetMemberBuilder(limiter, name)
                .map(member -> member.clock(clock).join())
                .orElse(null);
        ExchangeClassifier defaults = new HttpStatusClassifier(config.rateLimitStatusCodes(), config.maxRetryAfter(),
                clock, config.core().quotaHeaders());
        AdaptiveExecutor executor = AdaptiveExecutor.builder(limiter)
                .retryPolicy(config.retryPolicy((error, attempt) -> !isPoolFailure(error)).toBuilder()
                        // Once the pool is stopping a retry could only be refused (no consumer, or a
                        // paused limiter after a suspend that timed out, where it would wait for
                        // good): no retry of any kind, a rate limit's included. The attempt's own
                        // failure ends the exchange, as a stop, with that failure as its cause, and
                        // its slot is released with its own outcome: a Retry-After still pauses the
                        // pool, for the route's next start.
                        .abortIf((error, attempt) -> stopping != null)
                        .build())
                .taskTimeout(config.taskTimeout())
                .classifier((result, error) -> classify(config.classifier(), defaults, result, error))
                .build();
        return new Engine(config, limiter, executor, defaults, fleet);
    }

    private static boolean isPoolFailure(Throwable error) {
        return error instanceof AdaptiveConsumerNotAvailableException || error instanceof AdaptivePoolStoppedException;
    }

    // ---- the caller's side ---------------------------------------------------------------

    /**
     * Accepts an exchange. Never blocks (a transacted one goes through {@link #submitOnThisThread}).
     *
     * @param exchange the caller's exchange
     * @param callback completed when the exchange ends
     * @param consumerTimeout how long to wait for a consumer route if none is started; zero fails at once
     * @param onCaller whether the first attempt runs on this thread when a slot is free at once
     * @return {@code true} if it ended before this returned (refused, or done on this thread) and
     *         the callback was already called, with {@code doneSync}
     */
    boolean submit(Exchange exchange, AsyncCallback callback, Duration consumerTimeout, boolean onCaller) {
        return submit(exchange, callback, consumerTimeout, onCaller, null);
    }

    /**
     * Accepts a transacted exchange and runs every attempt of it on this thread, which waits
     * until the exchange ends ({@link CallerThread}): its transaction is bound to the thread.
     *
     * @param exchange the caller's exchange, transacted
     * @param callback completed, with {@code doneSync}, before this returns
     * @param consumerTimeout how long to wait for a consumer route if none is started
     * @return {@code true}: the exchange has ended
     */
    boolean submitOnThisThread(Exchange exchange, AsyncCallback callback, Duration consumerTimeout) {
        CallerThread thread = new CallerThread(
                exchange.getContext().getCamelContextExtension().getReactiveExecutor());
        submit(exchange, thread, consumerTimeout, true, thread);
        thread.runUntilEnded();
        callback.done(true);
        return true;
    }

    private boolean submit(Exchange exchange, AsyncCallback callback, Duration consumerTimeout, boolean onCaller,
                           CallerThread attemptsOn) {
        if (closed) {
            return refuse(exchange, callback, stopped("it is stopped"));
        }
        Engine e;
        try {
            e = engine();
        } catch (Throwable cannotStart) {
            // A coordinator that refuses the join (with anything, an Error included), say: the
            // exchange fails, the next one tries again.
            return refuse(exchange, callback, cannotStart);
        }
        Limiter limiter = e.limiter();
        int max = e.config().maxQueueSize();
        if (limiter.inflight() >= limiter.limit() && queued(limiter) >= max) {
            return refuse(exchange, callback, new RejectedException("adaptive pool '" + name + "' is full: "
                    + queued(limiter) + " exchanges queued (maxQueueSize=" + max + ")"));
        }
        AsyncProcessor t = target;
        if (t == null && consumerTimeout.isZero()) {
            return refuse(exchange, callback, notAvailable(exchange, "and timeout=0 does not wait for one"));
        }
        cacheStream(exchange);
        Submission s = new Submission(this, exchange, callback, sequence.getAndIncrement(), onCaller, attemptsOn);
        if (attemptsOn != null) {
            attemptsOn.attach(s);
        }
        if (t == null) {
            active.add(s);
            if (!awaitConsumer(s, consumerTimeout)) {
                return false;
            }
            // The consumer arrived between the check above and the wait: still on the caller's
            // thread, in its process(), so it starts as if it had been there all along.
            active.remove(s);
        }
        if (s.start(true)) {
            // It ended on this thread (a first attempt on it, whose route was synchronous): Camel
            // goes on without waiting, and a stop had nothing to find.
            return true;
        }
        // It goes on elsewhere (a worker, a queue, a backoff): from here a stop must find it. Not
        // added before the start, which costs every exchange that ends in it a put and a
        // remove; a stop meanwhile still ends it, through the closed limiter or this add.
        track(s);
        return false;
    }

    /**
     * Adds a started exchange to the live set. It may have ended on another thread since its
     * start returned, before the add: then it is taken out again, as its own end could not.
     * The add writes the set and then reads the end's flag, the end writes its flag and then
     * takes the exchange out of the set: one of the two sees the other.
     */
    private void track(Submission s) {
        active.add(s);
        if (s.hasEnded()) {
            active.remove(s);
        }
    }

    /**
     * A body that can be read only once (an {@link InputStream}, a {@link Reader}) is made
     * re-readable before the first attempt, as a route's start does with stream caching on:
     * sent straight to the endpoint (a template's send, a caller without stream caching), the
     * first attempt's route would drain it, and a retry would send an empty body and succeed.
     * Without stream caching nothing can make it re-readable (camel.md says so).
     */
    private static void cacheStream(Exchange exchange) {
        Object body = exchange.getMessage().getBody();
        if (!(body instanceof InputStream) && !(body instanceof Reader) || body instanceof StreamCache) {
            return;
        }
        StreamCachingStrategy scs = exchange.getContext().getStreamCachingStrategy();
        if (scs != null && scs.isEnabled()) {
            StreamCache sc = scs.cache(exchange);
            if (sc != null) {
                exchange.getMessage().setBody(sc);
            }
        }
    }

    private int queued(Limiter limiter) {
        return Math.max(0, pending() - limiter.inflight());
    }

    private boolean refuse(Exchange exchange, AsyncCallback callback, Throwable reason) {
        rejected.increment();
        exchange.setException(reason);
        callback.done(true);
        return true;
    }

    /**
     * @return {@code true} if the consumer arrived between the check in submit() and this wait,
     *         and the exchange was taken back for the caller to start; {@code false} if it waits
     *         (the consumer's attach, or the timeout, takes it from here)
     */
    private boolean awaitConsumer(Submission s, Duration timeout) {
        scheduler.schedule(() -> {
            if (awaitingConsumer.remove(s)) {
                s.fail(notAvailable(s.original(), "none started within timeout=" + timeout));
            }
        }, timeout);
        awaitingConsumer.add(s);
        // A consumer that attached before the add did not see this exchange: take it back.
        return target != null && awaitingConsumer.remove(s);
    }

    // ---- the consumer's side -------------------------------------------------------------

    /**
     * Makes {@code processor} the route that attempts go to.
     *
     * @param owner     the consumer, for the identity check
     * @param processor its processor
     * @throws IllegalStateException if another consumer is attached
     */
    synchronized void attach(Object owner, AsyncProcessor processor) {
        if (target != null && targetOwner != owner) {
            throw new IllegalStateException("adaptive pool '" + name + "' already has a consumer: "
                    + targetOwner + "; only one route may consume from adaptive:" + name);
        }
        targetOwner = owner;
        target = processor;
        if (!closed) {
            // A consumer route that is started again after a forced stop runs as before.
            stopping = null;
        }
        Submission s;
        while ((s = awaitingConsumer.poll()) != null) {
            s.start(false);
        }
    }

    /** @param owner the consumer leaving; ignored if another consumer is attached */
    synchronized void detach(Object owner) {
        if (targetOwner == owner) {
            target = null;
            targetOwner = null;
        }
    }

    /** Pauses dispatch, for a suspended consumer route; queued exchanges stay queued. */
    synchronized void pause() {
        paused = true;
        Engine e = engine;
        if (e != null) {
            e.limiter().pause();
        }
    }

    /** @return whether dispatch is paused by {@link #pause()} */
    synchronized boolean isPaused() {
        return paused;
    }

    /** Resumes after {@link #pause()}. */
    synchronized void resume() {
        paused = false;
        Engine e = engine;
        if (e != null) {
            e.limiter().resume();
        }
    }

    /**
     * Fails every exchange that is not in an attempt now, for a shutdown that ran out of time.
     * Running attempts finish, and are not retried (a rate-limited one neither). An
     * attempt granted to a transacted caller's thread that has not begun it yet is not running:
     * it is withdrawn, never begins, and its exchange fails as a queued one, freeing the slot.
     *
     * @param why the end of the message
     * @return how many were failed
     */
    int failQueued(String why) {
        stopping = why;
        return active.cancelIf(s -> !s.attemptRunningOrWithdraw(), why);
    }

    /** Stops for good: every exchange still on its way fails with {@link AdaptivePoolStoppedException}. */
    void close() {
        Engine e;
        synchronized (this) {
            // After an engine being built (whose meters and fleet this closes), before any other.
            if (stopping == null) {
                stopping = "the Camel context or component stopped";
            }
            closed = true;
            e = engine;
        }
        awaitingConsumer.clear();
        // An exchange accepted while this runs is failed by its own add: none slips past.
        active.close("the Camel context or component stopped before the exchange completed");
        if (e != null) {
            if (e.fleet() != null) {
                e.fleet().close();
            }
            e.limiter().abort();
        }
        closeBinding();
    }

    private synchronized void closeBinding() {
        AutoCloseable b = engineBinding;
        engineBinding = null;
        if (b != null) {
            try {
                b.close();
            } catch (Throwable broken) {
                LOG.debug("Closing the meters of adaptive pool '{}' failed", name, broken);
            }
        }
    }

    // ---- used by Submission --------------------------------------------------------------

    void checkOpen() {
        if (closed) {
            throw stopped("it is stopped");
        }
    }

    /** A retry or a late grant after the consumer left during a stop fails as stopped, not as "no consumer". */
    void checkNotStopping() {
        String why = stopping;
        if (why != null) {
            throw stopped(why);
        }
    }

    AsyncProcessor target() {
        return target;
    }

    AdaptiveExecutor executor() {
        return engine().executor();
    }

    Executor workers() {
        return workers;
    }

    Limiter limiter() {
        return engine().limiter();
    }

    void onAttempt(int attempt) {
        attempts.increment();
        if (attempt > 1) {
            retries.increment();
        }
    }

    /**
     * @param s       the exchange, once, at its end
     * @param success whether it ended without an exception
     * @param tracked whether it may be in the live set: not if it ends inside the producer's
     *                {@code process}, which adds it only after its start returns (a synchronous
     *                exchange then pays no look into the set)
     */
    void onEnd(Submission s, boolean success, boolean tracked) {
        if (tracked) {
            active.remove(s);
        }
        (success ? completed : failed).increment();
    }

    AdaptiveConsumerNotAvailableException notAvailable(Exchange exchange, String detail) {
        return new AdaptiveConsumerNotAvailableException("No consumers available on endpoint: adaptive://" + name
                + " (" + detail + ")", exchange);
    }

    AdaptivePoolStoppedException stopped(String why) {
        return new AdaptivePoolStoppedException("adaptive pool '" + name + "' refused the exchange: " + why);
    }

    /**
     * @param attemptError the exception of an attempt that ended while the pool was stopping
     * @return the exception the caller's exchange gets instead, or {@code null} if the pool is
     *         not stopping and the attempt's own exception stands
     */
    AdaptivePoolStoppedException stoppedDuringAttempt(Throwable attemptError) {
        String why = stopping;
        if (why == null) {
            return null;
        }
        return new AdaptivePoolStoppedException("adaptive pool '" + name + "' stopped while the exchange's attempt"
                + " was running (" + why + "); the attempt failed with: " + attemptError, attemptError);
    }

    private Outcome classify(ExchangeClassifier custom, ExchangeClassifier defaults, Object result, Throwable error) {
        Exchange attempt = result instanceof Exchange e ? e : error instanceof AttemptFailure f ? f.attempt() : null;
        if (attempt == null) {
            // The pool's own refusals say nothing about the downstream's capacity.
            return isPoolFailure(error) ? Outcome.IGNORED : null;
        }
        try {
            return classifyAttempt(custom, defaults, attempt);
        } finally {
            CarriedAnswer.forget(attempt);
        }
    }

    private Outcome classifyAttempt(ExchangeClassifier custom, ExchangeClassifier defaults, Exchange attempt) {
        if (custom != null) {
            try {
                Outcome o = custom.classify(attempt);
                if (o != null) {
                    return o;
                }
            } catch (Throwable e) {
                // Anything, an Error included: rethrown, it would skip the HTTP reading below
                // and go uncounted.
                classifierFailures.increment();
                if (classifierWarned.compareAndSet(false, true)) {
                    LOG.warn("Classifier of adaptive pool '{}' threw; the default reading applies (logged once at"
                            + " WARN, later failures at DEBUG)", name, e);
                } else {
                    LOG.debug("Classifier of adaptive pool '{}' threw again; the default reading applies", name, e);
                }
            }
        }
        return defaults.classify(attempt);
    }

    // ---- views ---------------------------------------------------------------------------

    String name() {
        return name;
    }

    /** @return exchanges waiting for a consumer route to start (O(n): for views and tests) */
    int awaitingConsumer() {
        return awaitingConsumer.size();
    }

    /**
     * @return exchanges accepted and not yet ended. The ends are read before the acceptances, and
     *         each count only grows: a reading that races an end errs high, never low, so a
     *         shutdown waiting for this to reach 0 never stops waiting early.
     */
    int pending() {
        long ended = completed.sum() + failed.sum();
        return (int) Math.max(0, sequence.get() - ended);
    }

    /**
     * What Camel's shutdown strategy must wait for. While the pool dispatches, every exchange
     * it holds: each still runs before the consumer route stops, and a graceful suspend waits
     * for them all before it pauses the pool. While paused (the consumer route suspended) only
     * the attempts running, which end on their own: nothing else can end before a resume, and
     * a stop of the suspended route never brings one, so waiting for the rest would only wait
     * out the strategy's timeout; the consumer's stop fails them instead.
     *
     * @return the exchanges, or attempts, a shutdown is to wait for
     */
    synchronized int pendingForShutdown() {
        if (!paused) {
            return pending();
        }
        Engine e = engine;
        return e == null ? 0 : e.limiter().inflight();
    }

    /** @return the exchanges a stop would fail now: those that went on past their start and have not ended */
    int live() {
        return active.size();
    }

    long classifierFailures() {
        return classifierFailures.sum();
    }

    /** @return the limiter's own figures, or {@code null} before the first exchange */
    LimiterStats limiterStats() {
        Engine e = engine;
        return e == null ? null : e.limiter().stats();
    }

    /** @return whether an outage holds the pool's limiter to probes; {@code false} before the first exchange */
    boolean outage() {
        Engine e = engine;
        return e != null && e.limiter().isOutage();
    }

    /** @return a snapshot, or {@code null} before the first exchange */
    AdaptiveStats stats() {
        Engine e = engine;
        if (e == null) {
            return null;
        }
        LimiterStats l = e.limiter().stats();
        // Ends before acceptances, as pending() reads them; the snapshot's pending is the
        // difference of its own figures.
        long done = completed.sum();
        long notDone = failed.sum();
        long accepted = sequence.get();
        int pending = (int) Math.max(0, accepted - done - notDone);
        return new AdaptiveStats(name, l.limit(), l.inflight(), l.waiting(), pending, l.maxLimitReached(),
                l.ratePaused(), e.limiter().isOutage(), l.state(), accepted, done, notDone,
                rejected.sum(), attempts.sum(), retries.sum(), l.congestionEvents(), l.rateLimitEvents(), l.outages(),
                e.fleet() == null ? null : e.fleet().stats());
    }

    @Override
    public String toString() {
        return "ExchangePool[" + name + ", " + stats() + "]";
    }
}
