package dev.adaptive.pool;

import dev.adaptive.internal.OptionChecks;
import dev.adaptive.Adapt;
import dev.adaptive.Cancellation;
import dev.adaptive.Limiter;
import dev.adaptive.OutcomeClassifier;
import dev.adaptive.config.AdaptiveConfig;
import dev.adaptive.limit.Limit;
import dev.adaptive.limit.Vegas;
import dev.adaptive.retry.RetryBudget;
import dev.adaptive.retry.RetryPolicy;
import dev.adaptive.time.Scheduler;
import dev.adaptive.time.Ticker;
import dev.adaptive.time.VirtualTime;
import dev.adaptive.trace.TraceListener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;

/**
 * Every knob of an {@link ItemPool} run, as one immutable value that can be shared between
 * runs and handed to {@link ItemPool#map}.
 *
 * <p>Defaults ({@link #defaults()}):
 * <ul>
 *   <li>limits: {@link Vegas} starting at {@value Limiter#DEFAULT_INITIAL_LIMIT}, between
 *       {@value Limiter#DEFAULT_MIN_LIMIT} and {@value Limiter#DEFAULT_MAX_LIMIT}, as every face
 *       ({@link AdaptiveConfig}); {@link Builder#algorithm(Limit)} takes precedence over
 *       {@link Builder#limits};</li>
 *   <li>adapt on everything ({@link Adapt#all()});</li>
 *   <li>retry: {@link RetryPolicy#defaults()} (3 retries, exponential backoff 100 ms to 30 s,
 *       jitter 0.2, 10 rate-limit retries, Retry-After capped at 10 min);</li>
 *   <li>no task timeout, no deadline, no cancellation;</li>
 *   <li>{@link OutcomeClassifier#defaults()};</li>
 *   <li>real time ({@link Ticker#system()}, {@link Scheduler#system()});</li>
 *   <li>no trace listener;</li>
 *   <li>blocking processors run on a pool-owned executor of daemon threads, at most
 *       {@code min(maxLimit, }{@value #MAX_DEFAULT_BLOCKING_THREADS}{@code )} of them, shut down
 *       when the run ends;</li>
 *   <li>maxPending 0: automatic, twice the current limit (see {@link Builder#maxPending});</li>
 *   <li>retry budget {@link RetryBudget#defaults()}: ratio 0.2, 10 per second, 10 s window;</li>
 *   <li>outage probes at most {@link Limiter#DEFAULT_OUTAGE_PROBE} (1 s) apart (see
 *       {@link Builder#outageProbe});</li>
 *   <li>name {@code "pool"}.</li>
 * </ul>
 *
 * <p>Immutable and thread-safe, provided the objects it holds are.
 */
public final class PoolOptions {

    /** Cap on the threads of the default blocking executor when the algorithm is unbounded: 1024. */
    public static final int MAX_DEFAULT_BLOCKING_THREADS = 1024;

    private static final PoolOptions DEFAULTS = builder().build();

    private final String name;
    private final int initialLimit;
    private final int minLimit;
    private final int maxLimit;
    private final Limit algorithm;
    private final Adapt adapt;
    private final RetryPolicy retryPolicy;
    private final Duration taskTimeout;
    private final Duration deadline;
    private final List<CompletionStage<?>> cancellations;
    private final OutcomeClassifier classifier;
    private final Ticker ticker;
    private final Scheduler scheduler;
    private final List<TraceListener> traceListeners;
    private final Executor blockingExecutor;
    private final int maxPending;
    private final RetryBudget retryBudget;
    private final Duration outageProbe;

    private PoolOptions(Builder b) {
        this.name = b.name;
        this.initialLimit = b.initialLimit;
        this.minLimit = b.minLimit;
        this.maxLimit = b.maxLimit;
        this.algorithm = b.algorithm;
        this.adapt = b.adapt;
        this.retryPolicy = b.retryPolicy;
        this.taskTimeout = b.taskTimeout;
        this.deadline = b.deadline;
        this.cancellations = List.copyOf(b.cancellations);
        this.classifier = b.classifier;
        this.ticker = b.ticker;
        this.scheduler = b.scheduler;
        this.traceListeners = List.copyOf(b.traceListeners);
        this.blockingExecutor = b.blockingExecutor;
        this.maxPending = b.maxPending;
        this.retryBudget = b.retryBudget;
        this.outageProbe = b.outageProbe;
    }

    /** @return a builder with every default; not thread-safe */
    public static Builder builder() {
        return new Builder();
    }

    /** @return the options with every default */
    public static PoolOptions defaults() {
        return DEFAULTS;
    }

    /** @return a builder holding these options, to change a few */
    public Builder toBuilder() {
        return new Builder().from(this);
    }

    /**
     * @return the algorithm a run uses: the one given to {@link Builder#algorithm}, or
     *         {@link Vegas} with the {@link Builder#limits} bounds
     */
    public Limit limit() {
        if (algorithm != null) {
            return algorithm;
        }
        return Vegas.builder().initialLimit(initialLimit).minLimit(minLimit)
                .maxLimit(maxLimit).build();
    }

    /** @return the name, used in thread names and messages */
    public String name() {
        return name;
    }

    /** @return the initial limit given to {@link Builder#limits} */
    public int initialLimit() {
        return initialLimit;
    }

    /** @return the lowest limit given to {@link Builder#limits} */
    public int minLimit() {
        return minLimit;
    }

    /** @return the highest limit given to {@link Builder#limits} */
    public int maxLimit() {
        return maxLimit;
    }

    /** @return the algorithm given to {@link Builder#algorithm}, if any */
    public Optional<Limit> algorithm() {
        return Optional.ofNullable(algorithm);
    }

    /** @return which signals move the limit */
    public Adapt adapt() {
        return adapt;
    }

    /** @return retries, backoff and the Retry-After cap */
    public RetryPolicy retryPolicy() {
        return retryPolicy;
    }

    /** @return the per-attempt timeout, if any */
    public Optional<Duration> taskTimeout() {
        return Optional.ofNullable(taskTimeout);
    }

    /** @return the pool-level deadline, counted from the start of a run, if any */
    public Optional<Duration> deadline() {
        return Optional.ofNullable(deadline);
    }

    /** @return stages whose completion cancels a run */
    public List<CompletionStage<?>> cancellations() {
        return cancellations;
    }

    /** @return the outcome classifier */
    public OutcomeClassifier classifier() {
        return classifier;
    }

    /** @return the time source */
    public Ticker ticker() {
        return ticker;
    }

    /** @return the scheduler for timeouts, backoff, pauses and the deadline */
    public Scheduler scheduler() {
        return scheduler;
    }

    /** @return the trace listeners */
    public List<TraceListener> traceListeners() {
        return traceListeners;
    }

    /** @return the executor for blocking processors, if the user supplied one */
    public Optional<Executor> blockingExecutor() {
        return Optional.ofNullable(blockingExecutor);
    }

    /** @return the bound on accepted, unsettled items; 0 for automatic */
    public int maxPending() {
        return maxPending;
    }

    /** @return the retry budget shared by every retry of the run */
    public RetryBudget retryBudget() {
        return retryBudget;
    }

    /** @return the longest wait between two probes of an outage; zero when the rule is off */
    public Duration outageProbe() {
        return outageProbe;
    }

    @Override
    public String toString() {
        return "PoolOptions[name=" + name
                + (algorithm != null ? ", algorithm=" + algorithm.name()
                : ", limits=" + initialLimit + "/" + minLimit + ".." + maxLimit)
                + ", adapt=" + adapt + ", retryPolicy=" + retryPolicy + ", taskTimeout=" + taskTimeout
                + ", deadline=" + deadline + ", maxPending=" + maxPending + "]";
    }

    /**
     * Builds {@link PoolOptions}. Each setter checks its value at once: {@code null} throws
     * {@link NullPointerException}, a value out of range {@link IllegalArgumentException} naming
     * the option and the value. Not thread-safe; may build several options.
     */
    public static final class Builder {
        private String name = "pool";
        private int initialLimit = Limiter.DEFAULT_INITIAL_LIMIT;
        private int minLimit = Limiter.DEFAULT_MIN_LIMIT;
        private int maxLimit = Limiter.DEFAULT_MAX_LIMIT;
        private Limit algorithm;
        private Adapt adapt = Adapt.all();
        private RetryPolicy retryPolicy = RetryPolicy.defaults();
        private Duration taskTimeout;
        private Duration deadline;
        private final List<CompletionStage<?>> cancellations = new ArrayList<>();
        private OutcomeClassifier classifier = OutcomeClassifier.defaults();
        private Ticker ticker = Ticker.system();
        private Scheduler scheduler = Scheduler.system();
        private final List<TraceListener> traceListeners = new ArrayList<>();
        private Executor blockingExecutor;
        private int maxPending;
        private RetryBudget retryBudget = RetryBudget.defaults();
        private Duration outageProbe = Limiter.DEFAULT_OUTAGE_PROBE;

        private Builder() {
        }

        Builder from(PoolOptions o) {
            name = o.name;
            initialLimit = o.initialLimit;
            minLimit = o.minLimit;
            maxLimit = o.maxLimit;
            algorithm = o.algorithm;
            adapt = o.adapt;
            retryPolicy = o.retryPolicy;
            taskTimeout = o.taskTimeout;
            deadline = o.deadline;
            cancellations.clear();
            cancellations.addAll(o.cancellations);
            classifier = o.classifier;
            ticker = o.ticker;
            scheduler = o.scheduler;
            traceListeners.clear();
            traceListeners.addAll(o.traceListeners);
            blockingExecutor = o.blockingExecutor;
            maxPending = o.maxPending;
            retryBudget = o.retryBudget;
            outageProbe = o.outageProbe;
            return this;
        }

        /**
         * @param name used in thread names and messages; default {@code "pool"}; not blank
         * @return this
         */
        public Builder name(String name) {
            Objects.requireNonNull(name, "name");
            if (name.isBlank()) {
                throw new IllegalArgumentException("name must not be blank: '" + name + "'");
            }
            this.name = name;
            return this;
        }

        /**
         * Bounds of the default {@link Vegas} algorithm, checked as every face checks them
         * ({@link AdaptiveConfig}). Ignored when {@link #algorithm(Limit)} is set.
         *
         * @param initialLimit the starting limit; default 5; within [minLimit, maxLimit]
         * @param minLimit     the lowest limit; default 1; at least 1
         * @param maxLimit     the highest limit; default 100; at least minLimit
         * @return this
         */
        public Builder limits(int initialLimit, int minLimit, int maxLimit) {
            AdaptiveConfig.builder().initialLimit(initialLimit).minLimit(minLimit).maxLimit(maxLimit).build();
            this.initialLimit = initialLimit;
            this.minLimit = minLimit;
            this.maxLimit = maxLimit;
            return this;
        }

        /**
         * @param algorithm the limit algorithm; takes precedence over {@link #limits}; default
         *                  none ({@link Vegas} with the {@link #limits} bounds)
         * @return this
         */
        public Builder algorithm(Limit algorithm) {
            this.algorithm = Objects.requireNonNull(algorithm, "algorithm");
            return this;
        }

        /**
         * @param adapt which signals move the limit; default {@link Adapt#all()}
         * @return this
         */
        public Builder adapt(Adapt adapt) {
            this.adapt = Objects.requireNonNull(adapt, "adapt");
            return this;
        }

        /**
         * @param policy retries, backoff, the rate-limit budget and the Retry-After cap (which also
         *               caps the pool's pauses); default {@link RetryPolicy#defaults()}; use
         *               {@link RetryPolicy#none()} to never retry
         * @return this
         */
        public Builder retryPolicy(RetryPolicy policy) {
            this.retryPolicy = Objects.requireNonNull(policy, "retryPolicy");
            return this;
        }

        /**
         * @param timeout per-attempt timeout, positive; on expiry the attempt's cancellation
         *                fires, it counts as a drop and consumes a retry; default none
         * @return this
         */
        public Builder taskTimeout(Duration timeout) {
            this.taskTimeout = positive("taskTimeout", timeout);
            return this;
        }

        /**
         * @param deadline how long a run may take, positive, from its start in the pool's ticker
         *                 time; when it passes, the run ends as by a cancellation with reason
         *                 {@link PoolAbortedException.Reason#DEADLINE} (at once, with the
         *                 refusal as the cause, if the scheduler refuses its timer); default none
         * @return this
         */
        public Builder deadline(Duration deadline) {
            this.deadline = positive("deadline", deadline);
            return this;
        }

        /**
         * @param stage when it completes, normally or not, the run is cancelled; its failure, or
         *              its value if that is a {@link Throwable}, becomes the cause; may be called
         *              several times
         * @return this
         */
        public Builder cancellation(CompletionStage<?> stage) {
            cancellations.add(Objects.requireNonNull(stage, "cancellation"));
            return this;
        }

        /**
         * @param signal when it fires, the run is cancelled with its reason as the cause; pass a
         *               task's {@link dev.adaptive.TaskContext#cancellation()} to nest a pool in
         *               a task
         * @return this
         */
        public Builder cancellation(Cancellation signal) {
            cancellations.add(Objects.requireNonNull(signal, "cancellation").asFuture());
            return this;
        }

        /**
         * @param classifier outcome classifier; default {@link OutcomeClassifier#defaults()}
         * @return this
         */
        public Builder classifier(OutcomeClassifier classifier) {
            this.classifier = Objects.requireNonNull(classifier, "classifier");
            return this;
        }

        /**
         * @param ticker the time source; default {@link Ticker#system()}
         * @return this
         */
        public Builder ticker(Ticker ticker) {
            this.ticker = Objects.requireNonNull(ticker, "ticker");
            return this;
        }

        /**
         * @param scheduler the waits; default {@link Scheduler#system()}
         * @return this
         */
        public Builder scheduler(Scheduler scheduler) {
            this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
            return this;
        }

        /**
         * Sets ticker and scheduler from one object.
         *
         * @param time both, such as a {@link VirtualTime}
         * @param <X>  a ticker that is also a scheduler
         * @return this
         */
        public <X extends Ticker & Scheduler> Builder time(X time) {
            return ticker(time).scheduler(time);
        }

        /**
         * @param listener receives every trace event of a run, with timestamps from the ticker;
         *                 may be called several times to add several
         * @return this
         */
        public Builder traceListener(TraceListener listener) {
            traceListeners.add(Objects.requireNonNull(listener, "traceListener"));
            return this;
        }

        /**
         * @param executor runs blocking processors; it is not shut down by the pool; default a
         *                 pool-owned executor (see {@link PoolOptions})
         * @return this
         */
        public Builder blockingExecutor(Executor executor) {
            this.blockingExecutor = Objects.requireNonNull(executor, "blockingExecutor");
            return this;
        }

        /**
         * Bounds how many items may be accepted and not yet settled (in flight, waiting for a
         * retry, or settled but not yet taken by the output). It is what keeps memory
         * O(concurrency) when items wait long backoffs. 0 (the default) means twice the current
         * limit.
         *
         * @param maxPending at least 0
         * @return this
         */
        public Builder maxPending(int maxPending) {
            if (maxPending < 0) {
                throw new IllegalArgumentException("maxPending must be >= 0: " + maxPending);
            }
            this.maxPending = maxPending;
            return this;
        }

        /**
         * @param retryBudget the cap on retries, shared by every retry of the run (after errors
         *                    and rate limits alike); default {@link RetryBudget#defaults()};
         *                    {@link RetryBudget#unlimited()} for none
         * @return this
         */
        public Builder retryBudget(RetryBudget retryBudget) {
            this.retryBudget = Objects.requireNonNull(retryBudget, "retryBudget");
            return this;
        }

        /**
         * How the run meets an outage of the downstream, as {@link Limiter.Builder#outageProbe}
         * says: one probe at a time, each a new item's first attempt where the input has one (the
         * run takes one item beyond {@link #maxPending} per probe), so that the items it holds
         * keep their retries for after the outage.
         *
         * @param maxInterval the longest wait between two probes, at least 0 and at most 1 hour;
         *                    0 turns the rule off; default {@link Limiter#DEFAULT_OUTAGE_PROBE} (1 s)
         * @return this
         */
        public Builder outageProbe(Duration maxInterval) {
            Objects.requireNonNull(maxInterval, "outageProbe");
            this.outageProbe = OptionChecks.between("outageProbe", maxInterval, Duration.ZERO, Limiter.MAX_OUTAGE_PROBE);
            return this;
        }

        /** @return the options */
        public PoolOptions build() {
            return new PoolOptions(this);
        }

        private static Duration positive(String option, Duration d) {
            Objects.requireNonNull(d, option);
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(option + " must be positive: " + d);
            }
            return d;
        }
    }
}
