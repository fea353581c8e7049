package dev.adaptive.vertx;

import dev.adaptive.Limiter;
import dev.adaptive.LimiterClosedException;
import dev.adaptive.OutcomeClassifier;
import dev.adaptive.TaskContext;
import dev.adaptive.limit.Limit;
import dev.adaptive.retry.RetryPolicy;
import dev.adaptive.trace.TraceListener;
import dev.adaptive.vertx.impl.AdaptiveLimiterImpl;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Adaptive concurrency on the event loop: calls go through a {@link Limiter} that learns how
 * many may be in flight, queue without blocking when it is full, are retried on errors with
 * backoff, and pause, all together, while a Retry-After announced by the downstream is open.
 * Every wait is a Vert.x timer ({@link VertxTime}); nothing blocks a thread.
 *
 * <pre>{@code
 * AdaptiveLimiter limiter = AdaptiveLimiter.create(vertx, new AdaptiveOptions().setMaxLimit(50));
 * limiter.execute(() -> client.get(8080, "localhost", "/items/1").send())
 *        .onSuccess(response -> ...);
 * }</pre>
 *
 * <p>Signals: a task whose future fails with a {@link dev.adaptive.RateLimitedException} (the
 * {@link AdaptiveWebClient} and {@link AdaptiveEventBus} produce them from 429 answers) pauses
 * the limiter for its Retry-After and is retried on the rate-limit budget; any other failure,
 * and a task timeout, is a drop, retried on the error budget; see {@link AdaptiveOptions}.
 *
 * <p>Completions are delivered on the caller's context: the context current when
 * {@link #execute} was called, or, outside any context, the limiter's own context (the one
 * current at creation, or a new event-loop context). Each attempt's task is also called on
 * the caller's context.
 *
 * <p>Stats: {@link #stats()} as JSON, also published on the event bus to
 * {@link AdaptiveOptions#getStatsAddress()}, periodically and on change, local-only by default.
 *
 * <p>Thread-safe.
 */
public interface AdaptiveLimiter {

    /**
     * @param vertx the Vert.x instance
     * @return a limiter with every default option
     */
    static AdaptiveLimiter create(Vertx vertx) {
        return create(vertx, new AdaptiveOptions());
    }

    /**
     * @param vertx   the Vert.x instance
     * @param options the options, copied
     * @return a new limiter; closed already when the close of its Vert.x instance has begun (as
     *         {@link Builder#build()})
     * @throws IllegalArgumentException if options do not fit together, naming the option and
     *         value; or if its context (the current one) runs nothing any more, as
     *         {@link Builder#build()}
     */
    static AdaptiveLimiter create(Vertx vertx, AdaptiveOptions options) {
        return builder(vertx, options).build();
    }

    /**
     * For what options cannot say in JSON: a custom classifier, algorithm, retry policy, trace
     * listeners or home context.
     *
     * @param vertx   the Vert.x instance
     * @param options the options, copied
     * @return a builder
     */
    static Builder builder(Vertx vertx, AdaptiveOptions options) {
        return new Builder(vertx, options);
    }

    /**
     * Runs {@code task} through the limiter, with retries, task timeout and Retry-After pauses.
     *
     * @param task called once per attempt, on the caller's context; must not block
     * @param <T>  the result type
     * @return the final result or the last failure, delivered on the caller's context; fails with
     *         {@link LimiterClosedException} if the limiter is closed before the call completes
     *         (or was before it was made), with {@link dev.adaptive.RejectedException} when
     *         {@code maxQueueSize} calls are queued. Never thrown: a call made after the close
     *         whose context runs nothing any more (made outside any context once the Vert.x
     *         instance closed) gets a future already failed with that error and bound to no
     *         context, since one bound to the closed context could not call its handlers. A
     *         call whose context refuses an attempt runs nothing any more, and ends with that
     *         attempt, not retried: it fails with a
     *         {@link java.util.concurrent.RejectedExecutionException} naming the limiter, whose
     *         cause is the context's refusal; the attempt, which never reached the downstream,
     *         gives the limit no sample (it counts as ignored). That is a call made on a worker
     *         verticle with a worker pool of its own, refused once the verticle's undeploy shut
     *         the pool down (a retry, or an attempt queued until then), or one made outside any
     *         context on a limiter whose own context is such a worker's; refused as the call is
     *         made, its future is already failed and bound to no context, whose handlers run
     */
    <T> Future<T> execute(Supplier<Future<T>> task);

    /**
     * As {@link #execute(Supplier)}, for tasks that want their attempt number, index and
     * cancellation (which fires on task timeout, on the limiter's context, and on close, on the
     * caller's context).
     *
     * @param task called once per attempt with its context
     * @param <T>  the result type
     * @return as {@link #execute(Supplier)}
     */
    <T> Future<T> executeWithContext(Function<TaskContext, Future<T>> task);

    /**
     * @return a snapshot: name, limit, localLimit, inflight, waiting, maxLimitReached,
     *         congestionEvents, rateLimitEvents, ratePaused, pausedForMs, outage (whether an
     *         outage holds dispatch to probes), outages, state,
     *         listenerFailures, algorithm and its metrics
     */
    JsonObject stats();

    /** @return the engine: for pause/resume, a fleet ceiling, or reading its state */
    Limiter limiter();

    /** @return a copy of the options it was created with */
    AdaptiveOptions options();

    /** @return the name from the options */
    String name();

    /** @return the Vert.x instance */
    Vertx vertx();

    /** @return the limiter's own context: its timers run there */
    Context context();

    /**
     * Closes: no new call is admitted, and every call not yet completed (queued, waiting for a
     * retry, or in flight) fails at once with a {@link LimiterClosedException} naming the
     * limiter. Stops stats publication. Idempotent and thread-safe: the shutdown runs once, and
     * a close called while another is under way (on another thread, or by the closing Vert.x
     * instance) runs none of it. Done by itself when the Vert.x instance closes, but not when the
     * verticle that created the limiter is undeployed: close it in the verticle's
     * {@code stop()}.
     *
     * <p>A call in flight is cancelled on its caller's context, where its task runs: its
     * cancellation's callbacks run there, at once if the close runs on that context, else in a
     * turn of it; the closing thread runs no other context's callbacks and waits for none, so a
     * callback that blocks blocks only its own call's context. A call whose context runs nothing
     * any more (its worker pool shut down by an undeploy) is cancelled on the closing thread, the
     * only one left to run its callbacks; the close does not throw for it.
     *
     * @return completes when closed: for every call, once the one shutdown is over and every
     *         call it cancelled on another context has ended there
     */
    Future<Void> close();

    /** @return whether {@link #close()} was called */
    boolean isClosed();

    /**
     * Builds an {@link AdaptiveLimiter}. Not thread-safe.
     */
    final class Builder {
        private final Vertx vertx;
        private final AdaptiveOptions options;
        private OutcomeClassifier classifier = OutcomeClassifier.defaults();
        private Limit limit;
        private RetryPolicy retryPolicy;
        private Context context;
        private final List<TraceListener> traceListeners = new ArrayList<>();

        private Builder(Vertx vertx, AdaptiveOptions options) {
            this.vertx = Objects.requireNonNull(vertx, "vertx");
            this.options = new AdaptiveOptions(Objects.requireNonNull(options, "options"));
        }

        /**
         * @param classifier decides what a result or failure means; default {@link OutcomeClassifier#defaults()}
         * @return this
         */
        public Builder classifier(OutcomeClassifier classifier) {
            this.classifier = Objects.requireNonNull(classifier, "classifier");
            return this;
        }

        /**
         * @param limit the algorithm, replacing the algorithm options; default from the options
         * @return this
         */
        public Builder limit(Limit limit) {
            this.limit = Objects.requireNonNull(limit, "limit");
            return this;
        }

        /**
         * @param retryPolicy replaces the retry options (for a retry classifier, an
         *                    {@code abortIf} veto or seeded jitter); default from the options.
         *                    The whole policy applies to {@code execute}, {@link AdaptiveEventBus}
         *                    and {@link AdaptiveWebClient} alike
         * @return this
         */
        public Builder retryPolicy(RetryPolicy retryPolicy) {
            this.retryPolicy = Objects.requireNonNull(retryPolicy, "retryPolicy");
            return this;
        }

        /**
         * @param listener receives every trace event, on the thread that caused it
         * @return this
         */
        public Builder traceListener(TraceListener listener) {
            traceListeners.add(Objects.requireNonNull(listener, "listener"));
            return this;
        }

        /**
         * @param context the limiter's own context, for its timers and for callers outside any
         *                context; default the current context, or a new one. Vert.x cancels a
         *                verticle's timers when it is undeployed, so a limiter created in a
         *                verticle should be closed with it (in its {@code stop()}), or given a
         *                context of its own. One that runs nothing any more fails
         *                {@link #build()}
         * @return this
         */
        public Builder context(Context context) {
            this.context = Objects.requireNonNull(context, "context");
            return this;
        }

        /**
         * @return a new limiter; closed already, its calls failing with its
         *         {@link LimiterClosedException}, when the close of its Vert.x instance has begun
         *         (that close, which closes every limiter on it, has run its hooks)
         * @throws IllegalArgumentException if the options do not fit together; or if the
         *         limiter's context runs nothing any more (its worker pool or event loop shut
         *         down: a worker verticle's with a worker pool of its own, after its undeploy),
         *         naming the limiter, its cause the context's refusal, with nothing left behind
         *         (no meters bound, no hook on the Vert.x instance), on a Vert.x instance whose
         *         close has not begun
         */
        public AdaptiveLimiter build() {
            Context ctx = context != null ? context
                    : Vertx.currentContext() != null && Vertx.currentContext().owner() == vertx
                    ? Vertx.currentContext() : vertx.getOrCreateContext();
            return new AdaptiveLimiterImpl(vertx, ctx, options, classifier, limit, retryPolicy,
                    List.copyOf(traceListeners));
        }
    }
}
