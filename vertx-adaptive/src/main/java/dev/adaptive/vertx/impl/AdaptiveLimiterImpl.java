package dev.adaptive.vertx.impl;

import dev.adaptive.AdaptiveExecutor;
import dev.adaptive.AsyncTask;
import dev.adaptive.spi.Execution;
import dev.adaptive.spi.ExecutionHooks;
import dev.adaptive.Lease;
import dev.adaptive.LimitChangeListener;
import dev.adaptive.Limiter;
import dev.adaptive.config.AdaptiveConfig;
import dev.adaptive.LimiterClosedException;
import dev.adaptive.limit.Outcome;
import dev.adaptive.OutcomeClassifier;
import dev.adaptive.TaskContext;
import dev.adaptive.internal.LiveSet;
import dev.adaptive.limit.Limit;
import dev.adaptive.retry.Quota;
import dev.adaptive.retry.RetryPolicy;
import dev.adaptive.trace.TraceListener;
import dev.adaptive.vertx.AdaptiveLimiter;
import dev.adaptive.vertx.AdaptiveLimiterStats;
import dev.adaptive.vertx.AdaptiveOptions;
import dev.adaptive.vertx.VertxTime;
import io.vertx.core.Closeable;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.internal.VertxInternal;
import io.vertx.core.json.JsonObject;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The {@link AdaptiveLimiter}: the core {@link Limiter} and {@link AdaptiveExecutor} on
 * {@link VertxTime}, with completions hopped to the caller's context. Internal; thread-safe.
 */
public final class AdaptiveLimiterImpl implements AdaptiveLimiter {

    private final Vertx vertx;
    private final Context context;
    private final AdaptiveOptions options;
    private final String name;
    private final Limiter limiter;
    private final AdaptiveExecutor executor;
    private final OutcomeClassifier classifier;
    private final StatsPublisher publisher;
    /** The limiter's meters, or {@code null} without Micrometer metrics. */
    private final AutoCloseable meters;
    /** The calls not yet ended; the close ends each on its own context (see {@link #cancel}). */
    private final LiveSet<Call, Sweep> live = new LiveSet<>(AdaptiveLimiterImpl::cancel);
    private final List<LimitChangeListener> limitListeners = new CopyOnWriteArrayList<>();
    private final AtomicLong sequence = new AtomicLong();
    /**
     * Set once, by the close that runs the shutdown: a compare-and-set, so that of two closes at
     * once (the Vert.x close hook's and the user's, say) one shuts down and the other waits for
     * it; completes once that shutdown has.
     */
    private final AtomicReference<Promise<Void>> closing = new AtomicReference<>();
    /** What every call the close ends fails with; set before the limiter is aborted. */
    private volatile LimiterClosedException closeReason;
    /**
     * Closes this limiter when its Vert.x closes: Vert.x then drops every timer, so a call waiting
     * for a retry's backoff or inside a Retry-After pause, and those queued behind it, would never
     * end. A hook of the Vert.x instance, not of the verticle that created the limiter (an
     * undeploy leaves it open, as documented); {@link #close()} removes it.
     */
    private final Closeable closeWithVertx = completion -> {
        Future<Void> closed;
        try {
            closed = close();
        } catch (Throwable t) {
            closed = Future.failedFuture(t);
        }
        // A close already under way on another thread: Vert.x goes on once it is over.
        closed.onComplete(completion);
    };

    /**
     * @param vertx          the Vert.x instance
     * @param context        the limiter's own context
     * @param options        options, already copied
     * @param classifier     the outcome classifier
     * @param limit          the algorithm, or {@code null} for the options' one
     * @param retryPolicy    the retry policy, or {@code null} for the options' one
     * @param traceListeners user trace listeners
     */
    public AdaptiveLimiterImpl(Vertx vertx, Context context, AdaptiveOptions options, OutcomeClassifier classifier,
                               Limit limit, RetryPolicy retryPolicy, List<TraceListener> traceListeners) {
        this.vertx = vertx;
        this.context = context;
        this.options = options;
        this.name = options.getName();
        this.classifier = classifier;
        VertxTime time = VertxTime.on(context);
        String address = options.getStatsAddress();
        this.publisher = address == null ? null : new StatsPublisher(vertx, context, address,
                options.isStatsLocalOnly(), options.getStatsInterval(), this::stats);
        AdaptiveConfig config = options.toConfig();
        Limiter.Builder b = config.limiterBuilder()
                .name(name)
                .time(time)
                .limitChangeListener(this::onLimitChange);
        if (limit != null) {
            b.limit(limit);
        }
        traceListeners.forEach(b::traceListener);
        this.limiter = b.build();
        if (publisher != null && options.isStatsOnChange()) {
            // The narrow pause hook, not a trace listener: any trace listener makes the core build
            // a trace event for every call, which cost execute() a third to a half of its time.
            limiter.addRatePauseListener(pause -> publisher.changed());
        }
        this.executor = config.executorBuilder(limiter)
                .classifier(ignoring(classifier))
                .retryPolicy(notRetryingIgnored(retryPolicy != null ? retryPolicy : config.retryPolicy()))
                .build();
        this.meters = LimiterMeters.bind(vertx, limiter);
        // Hooked before anything starts: a Vert.x instance whose close has begun has run its close
        // hooks and takes no more (its CloseFuture's add answers false), so none would close this
        // limiter, and its context runs nothing, or soon will not. Built open there, a call's
        // future was bound to that context and threw its refusal from onComplete, and the stats
        // publication's start threw it out of create(). It is built closed, as the close of its
        // Vert.x instance would have closed it, and starts nothing.
        if (vertx instanceof VertxInternal internal && !internal.closeFuture().add(closeWithVertx)) {
            close();
            return;
        }
        try {
            // Vert.x tells of no context whether it still runs anything; a task does. The
            // publication's start asks too, but not every limiter publishes, and one that does
            // not would be built on that context all the same, its timers all refused.
            context.runOnContext(v -> { });
            if (publisher != null) {
                publisher.start();
            }
        } catch (Throwable refused) {
            discard(refused);
        }
    }

    /**
     * Undoes a build whose context refused a task: it runs nothing any more, and never will
     * again. Thrown as it came, the refusal left the meters bound and the Vert.x close hook
     * holding a limiter nobody had; built, the limiter's every timer would be refused.
     *
     * @throws IllegalArgumentException naming the context, the refusal its cause; not when the
     *         close of the Vert.x instance closed this limiter meanwhile (its event loops shut
     *         down once its close hooks have run), which leaves it built closed
     */
    private void discard(Throwable refused) {
        Promise<Void> discarded = Promise.promise();
        if (closing.compareAndExchange(null, discarded) != null) {
            return;
        }
        if (vertx instanceof VertxInternal internal) {
            internal.removeCloseHook(closeWithVertx);
        }
        closeMeters();
        // A close hook that Vert.x ran as this claimed the close waits on it: it must go on.
        discarded.complete();
        throw new IllegalArgumentException("adaptive limiter '" + name + "': its context runs nothing any more"
                + " (its worker pool or event loop shut down, as a worker verticle's with a pool of its own after"
                + " its undeploy); give it a context that runs", refused);
    }

    @Override
    public <T> Future<T> execute(Supplier<Future<T>> task) {
        Objects.requireNonNull(task, "task");
        return executeWithContext(ctx -> task.get());
    }

    @Override
    public <T> Future<T> executeWithContext(Function<TaskContext, Future<T>> task) {
        return execute(executor, task);
    }

    /**
     * Runs a task with an executor of this limiter other than its own, such as one from
     * {@link #executor(OutcomeClassifier)}.
     *
     * @param exec the executor; its limiter must be this limiter's
     * @param task called once per attempt
     * @param <T>  the result type
     * @return as {@link #executeWithContext(Function)}
     */
    public <T> Future<T> execute(AdaptiveExecutor exec, Function<TaskContext, Future<T>> task) {
        Objects.requireNonNull(task, "task");
        Call call = new Call(callerContext());
        Context caller = call.caller;
        // One lambda per call: the adapting one is made only when the attempt must hop.
        AsyncTask<T> attempt = tc -> Vertx.currentContext() == caller ? invoke(task, tc)
                : hop(name, call, t -> invoke(task, t), tc);
        Execution<T> e = exec.start(sequence.getAndIncrement(), attempt, null);
        track(call, e);
        CompletionStage<T> result = sameCloseError(e.result());
        // A caller's context that refused the call a task as it was made (its first attempt, or,
        // after a close, its cancel as it is tracked) runs nothing any more: a future bound to it
        // would throw that refusal from onComplete instead of calling the handler. The call has
        // ended (its attempt failed with the refusal, or it was cancelled here); its failure is a
        // future of no context.
        return call.refused ? Future.fromCompletionStage(result) : Future.fromCompletionStage(result, caller);
    }

    /**
     * An executor on this limiter, with its retry policy and task timeout, whose classifier asks
     * {@code first} before this limiter's own classifier. For faces that know their results
     * better (an HTTP response's status) while sharing the limiter with other callers.
     *
     * @param first asked first; {@code null} (or throwing) falls back to the limiter's classifier
     * @return the executor
     */
    public AdaptiveExecutor executor(OutcomeClassifier first) {
        return executor(first, null);
    }

    /**
     * As {@link #executor(OutcomeClassifier)}, and the outcome then carries the quota
     * {@code quota} reads from the attempt's result or failure.
     *
     * @param first read first; {@code null} or a throw falls back to the limiter's classifier
     * @param quota what the answer announced of the server's quota, {@code null} when nothing;
     *              {@code null} for none; one that throws adds nothing
     * @return an executor on this limiter
     */
    public AdaptiveExecutor executor(OutcomeClassifier first, BiFunction<Object, Throwable, Quota> quota) {
        Objects.requireNonNull(first, "first");
        OutcomeClassifier base = classifier;
        RetryPolicy policy = executor.retryPolicy();
        return AdaptiveExecutor.builder(limiter)
                // The limiter's policy whole: its veto (notRetryingIgnored) already ends the call of
                // an ignored failure, which would only come back.
                .retryPolicy(policy)
                .taskTimeout(executor.taskTimeout())
                .classifier((result, error) -> {
                    Outcome o = null;
                    try {
                        o = IgnoredFailure.isIgnored(error) ? Outcome.IGNORED : first.classify(result, error);
                    } catch (Throwable broken) {
                        // Anything, an Error included: falls back to the limiter's own
                        // classifier, as the engine does for its own. Rethrown, it would skip it.
                    }
                    o = o != null ? o : base.classify(result, error);
                    Quota q = null;
                    try {
                        q = quota == null ? null : quota.apply(result, error);
                    } catch (Throwable broken) {
                        // The outcome stands without it.
                    }
                    if (q == null) {
                        return o;
                    }
                    return (o != null ? o : OutcomeClassifier.defaults().classify(result, error)).withQuota(q);
                })
                .build();
    }

    /**
     * Starts one call through the executor, its attempts run on {@code caller}: the pool's runs
     * start their items here, so that {@link #close()} ends them with every other call.
     *
     * @param index      the item's index
     * @param task       called once per attempt, on {@code caller}
     * @param firstLease a lease already held, or {@code null}
     * @param caller     the context attempts run on
     * @param <T>        the result type
     * @return the running execution; its result completes on any thread
     */
    public <T> Execution<T> start(long index, AsyncTask<T> task, Lease firstLease, Context caller) {
        return start(index, task, firstLease, caller, ExecutionHooks.NONE);
    }

    /**
     * {@link #start(long, AsyncTask, Lease, Context)} for a runner that follows its executions
     * through {@code hooks} (a pool's run finishes once every execution is over).
     *
     * @param index      the item's index
     * @param task       called once per attempt, on {@code caller}
     * @param firstLease a lease already held, or {@code null}
     * @param caller     the context attempts run on
     * @param hooks      what the execution reports to
     * @param <T>        the result type
     * @return the running execution; its result completes on any thread
     */
    public <T> Execution<T> start(long index, AsyncTask<T> task, Lease firstLease, Context caller,
                                  ExecutionHooks hooks) {
        Call call = new Call(caller);
        Execution<T> e = executor.start(index, tc -> callOn(name, call, task, tc), firstLease, hooks);
        track(call, e);
        return e;
    }

    private void track(Call call, Execution<?> e) {
        call.execution = e;
        // A close that swept the set before this add cancels the execution in the add.
        live.add(call);
        // handle, not whenComplete: the dropped stage of whenComplete would wrap every failure in
        // a new CompletionException, which a close failing thousands of calls pays per call.
        e.result().handle((v, err) -> live.remove(call));
    }

    /** A call not yet ended, and the context its attempts run on and its future completes on. */
    private static final class Call {
        private final Context caller;
        /** Set as the call is tracked, before the live set (a concurrent set) publishes it. */
        private Execution<?> execution;
        /**
         * Set once {@link #caller} refused the call a task (an attempt, or its cancel): it runs
         * nothing any more.
         */
        private volatile boolean refused;

        Call(Context caller) {
            this.caller = caller;
        }
    }

    /**
     * What the close hands each call it ends: the failure, and the calls it sent to their own
     * contexts to end there, so that the close completes once they have ended.
     */
    private static final class Sweep {
        private final LimiterClosedException reason;
        /** {@code null} once the close has taken them: a call added later is not waited for. */
        private List<Future<Void>> sent = new ArrayList<>();

        Sweep(LimiterClosedException reason) {
            this.reason = reason;
        }

        synchronized void sent(Future<Void> ended) {
            if (sent != null) {
                sent.add(ended);
            }
        }

        synchronized List<Future<Void>> takeSent() {
            List<Future<Void>> all = sent;
            sent = null;
            return all;
        }
    }

    /**
     * Ends a call the close ends, on the call's own context: cancelling its running attempt runs
     * the attempt's cancel callbacks, user code, which belongs where the task ran, not on the
     * closing thread, and may block. The closing thread (an event loop, maybe, or the one closing
     * the Vert.x instance) so runs none and waits for none; the close's future completes once
     * each has run. At once when the close runs on that context already, as Vert.x emits. A
     * context that refuses the cancel (its event loop or worker pool shut down: its Vert.x
     * closed, or its worker verticle, on a pool of its own, undeployed) runs nothing any more:
     * the call is cancelled here, the only place left to run its callbacks, and marked refused.
     */
    private static void cancel(Call call, Sweep sweep) {
        Execution<?> e = call.execution;
        if (Vertx.currentContext() != call.caller) {
            Promise<Void> ended = Promise.promise();
            try {
                call.caller.runOnContext(v -> {
                    try {
                        e.cancel(sweep.reason);
                    } finally {
                        ended.complete();
                    }
                });
                sweep.sent(ended.future());
                return;
            } catch (Throwable refused) {
                // Thrown out of the sweep, the refusal made close() throw, with the calls after
                // this one never cancelled; out of the add of a call made after the close, it
                // made execute() throw. Left uncancelled, the call would never end.
                call.refused = true;
            }
        }
        e.cancel(sweep.reason);
    }

    /**
     * A queued call that the close ends fails inside the core limiter, with its own wording;
     * this gives every call the close ends the one error the close documents.
     */
    private <T> CompletionStage<T> sameCloseError(CompletableFuture<T> result) {
        // Completed by hand, not by a composing stage, which would wrap every error it relays.
        CompletableFuture<T> out = new CompletableFuture<>();
        result.handle((value, error) -> {
            if (error == null) {
                return out.complete(value);
            }
            LimiterClosedException reason = closeReason;
            boolean endedByClose = reason != null && OutcomeClassifier.unwrap(error) instanceof LimiterClosedException;
            return out.completeExceptionally(endedByClose ? reason : error);
        });
        return out;
    }

    private static <T> CompletionStage<T> callOn(String name, Call call, AsyncTask<T> task, TaskContext tc)
            throws Exception {
        return Vertx.currentContext() == call.caller ? task.call(tc) : hop(name, call, task, tc);
    }

    /**
     * Runs an attempt on the call's context from another thread; its stage completes when the
     * attempt's does. A context that refuses it runs nothing any more: the attempt fails with a
     * {@link ContextGoneException} (the refusal its cause), which ends the call without a sample
     * or a retry (see {@link #ignoring}, {@link #notRetryingIgnored}), and the call is
     * marked refused.
     */
    private static <T> CompletionStage<T> hop(String name, Call call, AsyncTask<T> task, TaskContext tc) {
        CompletableFuture<T> hopped = new CompletableFuture<>();
        try {
            call.caller.runOnContext(v -> {
                if (tc.cancellation().isCancelled()) {
                    // Timed out or closed while waiting for the context: do not start the work.
                    hopped.completeExceptionally(tc.cancellation().reason());
                    return;
                }
                try {
                    CompletionStage<T> stage = task.call(tc);
                    if (stage == null) {
                        throw new NullPointerException("task returned a null CompletionStage");
                    }
                    stage.whenComplete((r, err) -> {
                        if (err != null) {
                            hopped.completeExceptionally(err);
                        } else {
                            hopped.complete(r);
                        }
                    });
                } catch (Throwable t) {
                    hopped.completeExceptionally(t);
                }
            });
        } catch (Throwable refused) {
            // The context runs nothing any more (its event loop or worker pool shut down): the
            // call learns it, so that execute() returns no future bound to that context. Wrapped,
            // so that the executors know it: as it came, it read as a drop that lowered the
            // limit, and was retried, each retry refused alike until the retries ran out.
            call.refused = true;
            throw new ContextGoneException(name, tc.attempt(), refused);
        }
        return hopped;
    }

    /**
     * @param classifier the limiter's classifier
     * @return it, but for an ignored failure ({@link IgnoredFailure#isIgnored}: an attempt its
     *         call's context refused, say): {@link Outcome#IGNORED}, without asking it. Such an
     *         attempt never reached the downstream: a drop would lower the limit (and feed an
     *         outage) for a verticle's undeploy.
     */
    private static OutcomeClassifier ignoring(OutcomeClassifier classifier) {
        return (result, error) -> IgnoredFailure.isIgnored(error) ? Outcome.IGNORED : classifier.classify(result, error);
    }

    /**
     * @param policy the limiter's retry policy
     * @return it, with a veto first: an ignored failure ({@link IgnoredFailure#isIgnored}) ends the
     *         call. It would only come back: every retry of a call whose context runs nothing any
     *         more is refused the same way, and waiting its backoffs would only hold the call.
     *         Every executor of this limiter ({@link #executor(OutcomeClassifier, BiFunction)})
     *         takes this policy whole.
     */
    private static RetryPolicy notRetryingIgnored(RetryPolicy policy) {
        return policy.toBuilder()
                .abortIf((error, attempt) -> IgnoredFailure.isIgnored(error) || policy.shouldAbort(error, attempt))
                .build();
    }

    private static <T> CompletionStage<T> invoke(Function<TaskContext, Future<T>> task, TaskContext tc) {
        Future<T> f = task.apply(tc);
        if (f == null) {
            throw new NullPointerException("task returned a null Future");
        }
        return f.toCompletionStage();
    }

    /** @return the context the caller is on, or the limiter's own outside any context */
    public Context callerContext() {
        Context current = Vertx.currentContext();
        return current != null && current.owner() == vertx ? current : context;
    }

    private void onLimitChange(int from, int to) {
        for (LimitChangeListener l : limitListeners) {
            l.onChange(from, to);
        }
        if (publisher != null && options.isStatsOnChange()) {
            publisher.changed();
        }
    }

    /**
     * @param listener told of every change of the effective limit, on the thread that caused it
     * @return removes the listener
     */
    public Runnable addLimitListener(LimitChangeListener listener) {
        limitListeners.add(listener);
        return () -> limitListeners.remove(listener);
    }

    @Override
    public JsonObject stats() {
        return AdaptiveLimiterStats.of(name, limiter).toJson();
    }

    @Override
    public Limiter limiter() {
        return limiter;
    }

    @Override
    public AdaptiveOptions options() {
        return new AdaptiveOptions(options);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Vertx vertx() {
        return vertx;
    }

    @Override
    public Context context() {
        return context;
    }

    @Override
    public Future<Void> close() {
        Promise<Void> done = Promise.promise();
        Promise<Void> earlier = closing.compareAndExchange(null, done);
        if (earlier != null) {
            // Closed, or closing on another thread: what that close returns, complete once its
            // shutdown is over, not before.
            return earlier.future();
        }
        Future<Void> callsEnded;
        try {
            callsEnded = shutdown();
        } catch (Throwable t) {
            // Nothing here is meant to throw; if it does, later closes must not wait for good.
            done.fail(t);
            throw t;
        }
        callsEnded.onComplete(done);
        return done.future();
    }

    /**
     * Run once, by the close that claimed {@link #closing}.
     *
     * @return completes once every call it ended on another context has ended there
     */
    private Future<Void> shutdown() {
        LimiterClosedException reason = closedException();
        closeReason = reason;
        if (vertx instanceof VertxInternal internal) {
            internal.removeCloseHook(closeWithVertx);
        }
        // Abort first: cancelling a running call frees its slot, and a still-open limiter would
        // hand that slot to a queued call, which could then run and succeed before its own
        // cancel arrives (seen in a clean-clone CI run).
        limiter.abort();
        Sweep sweep = new Sweep(reason);
        live.close(sweep);
        if (publisher != null) {
            publisher.stop();
        }
        closeMeters();
        return Future.all(sweep.takeSent()).mapEmpty();
    }

    private void closeMeters() {
        if (meters != null) {
            try {
                meters.close();
            } catch (Exception neverThrown) {
                // LimiterMetrics.close() throws nothing checked.
            }
        }
    }

    @Override
    public boolean isClosed() {
        return closing.get() != null;
    }

    private LimiterClosedException closedException() {
        return new LimiterClosedException("adaptive limiter '" + name + "' was closed before the call completed");
    }

    @Override
    public String toString() {
        return "AdaptiveLimiter[" + name + ", " + limiter.stats() + "]";
    }
}
