package dev.adaptive.retry;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.DoubleSupplier;

/**
 * When and after how long a failed task is retried. Two separate budgets, per task:
 * <ul>
 *   <li>{@link #retries()} for errors and timeouts, each retry waiting a {@link Backoff}
 *       delay (with jitter);</li>
 *   <li>{@link #maxRateLimitRetries()} for rate-limit answers (429, or 503 with
 *       {@code Retry-After}), which do not consume {@code retries} and wait the announced
 *       {@code Retry-After}, capped at {@link #maxRetryAfter()} and never jittered.</li>
 * </ul>
 * Whoever builds the policy may veto every retry, of either budget, with
 * {@link Builder#abortIf}: a failure it accepts ends the task at once.
 * The engine counts the budgets; this class answers the questions it asks
 * ({@link #shouldAbort}, {@link #shouldRetry}, {@link #delayBeforeRetry}, {@link #cappedRetryAfter}).
 *
 * <p>Defaults ({@link #defaults()}): 3 retries, exponential backoff from 100 ms to 30 s with
 * jitter 0.2, 10 rate-limit retries, {@code Retry-After} capped at
 * {@link RetryAfter#DEFAULT_MAX} (10 min), every error retried, no failure aborting, jitter from
 * {@link ThreadLocalRandom}.
 *
 * <p>Immutable and thread-safe, provided the classifier and random source given to the
 * builder are thread-safe.
 */
public final class RetryPolicy {

    /** The default number of retries after errors: 3. */
    public static final int DEFAULT_RETRIES = 3;
    /** The default jitter of a policy: 0.2, delays spread over ±20%. */
    public static final double DEFAULT_JITTER = 0.2;
    /** The default number of retries after rate-limit answers: 10. */
    public static final int DEFAULT_MAX_RATE_LIMIT_RETRIES = 10;

    private static final DoubleSupplier THREAD_LOCAL_RANDOM = () -> ThreadLocalRandom.current().nextDouble();
    /** The default of {@link Builder#abortIf}: no failure ends a task before its budgets do. */
    private static final RetryClassifier NEVER = new RetryClassifier() {
        @Override
        public boolean shouldRetry(Throwable error, int attempt) {
            return false;
        }

        @Override
        public String toString() {
            return "never";
        }
    };
    private static final RetryPolicy DEFAULTS = builder().build();
    private static final RetryPolicy NONE = builder().retries(0).maxRateLimitRetries(0).build();

    private final int retries;
    private final Backoff backoff;
    private final int maxRateLimitRetries;
    private final Duration maxRetryAfter;
    private final RetryClassifier retryOn;
    private final RetryClassifier abortIf;
    private final DoubleSupplier random;

    private RetryPolicy(Builder b, Backoff backoff) {
        this.retries = b.retries;
        this.backoff = backoff;
        this.maxRateLimitRetries = b.maxRateLimitRetries;
        this.maxRetryAfter = b.maxRetryAfter;
        this.retryOn = b.retryOn;
        this.abortIf = b.abortIf;
        this.random = b.random;
    }

    /** @return a new builder with every option at its default; not thread-safe */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * @return a new builder with every option of this policy, to build one that differs in
     *         some; not thread-safe
     */
    public Builder toBuilder() {
        return new Builder().backoff(backoff).retries(retries).maxRateLimitRetries(maxRateLimitRetries)
                .maxRetryAfter(maxRetryAfter).retryOn(retryOn).abortIf(abortIf).random(random);
    }

    /** @return the policy with every option at its default (see the class documentation) */
    public static RetryPolicy defaults() {
        return DEFAULTS;
    }

    /**
     * @return a policy that never retries: 0 retries after errors and 0 after rate-limit
     *         answers. A rate-limit answer still pauses the limiter; the task just fails.
     */
    public static RetryPolicy none() {
        return NONE;
    }

    /** @return the retries allowed per task after errors and timeouts, {@code >= 0} */
    public int retries() {
        return retries;
    }

    /** @return the backoff between retries after errors: kind, min and max delay, jitter */
    public Backoff backoff() {
        return backoff;
    }

    /** @return the retries allowed per task after rate-limit answers, {@code >= 0} */
    public int maxRateLimitRetries() {
        return maxRateLimitRetries;
    }

    /** @return the cap on any {@code Retry-After} wait, positive */
    public Duration maxRetryAfter() {
        return maxRetryAfter;
    }

    /** @return the classifier deciding which errors are worth a retry */
    public RetryClassifier retryOn() {
        return retryOn;
    }

    /**
     * @return the veto: a failure it accepts is not retried at all (see {@link Builder#abortIf});
     *         by default one that accepts none
     */
    public RetryClassifier abortIf() {
        return abortIf;
    }

    /** @return the source of jitter, uniform in [0, 1) */
    public DoubleSupplier random() {
        return random;
    }

    /**
     * Asks the classifier whether {@code error} is worth a retry. Does not check the budget.
     * If the classifier throws anything (an {@code Error} such as an {@link AssertionError}
     * included), the answer is {@code true}: a broken classifier then costs at most the
     * {@link #retries()} budget, whereas "never retry" would silently fail every task that a
     * working classifier would have saved.
     *
     * @param error   the failure of the attempt
     * @param attempt the number of the attempt that failed, 1 for the first
     * @return whether to retry, budget permitting
     * @throws NullPointerException if {@code error} is null
     */
    public boolean shouldRetry(Throwable error, int attempt) {
        Objects.requireNonNull(error, "error");
        try {
            return retryOn.shouldRetry(error, attempt);
        } catch (Throwable brokenClassifier) {
            // An Error too: propagating it would unwind the engine's settlement of the attempt
            // and lose the task.
            return true;
        }
    }

    /**
     * Asks the veto ({@link Builder#abortIf}) whether {@code error} ends the task with no retry
     * of any kind. Asked before every retry decision, rate-limited attempts included. If the
     * veto throws anything (an {@code Error} included), the answer is {@code false}, as a
     * broken {@link #retryOn()} means "retry": a broken veto then costs at most the budgets,
     * whereas "abort" would fail every task that a retry would have saved.
     *
     * @param error   the failure of the attempt
     * @param attempt the number of the attempt that failed, 1 for the first
     * @return whether the task ends now with {@code error}
     * @throws NullPointerException if {@code error} is null
     */
    public boolean shouldAbort(Throwable error, int attempt) {
        Objects.requireNonNull(error, "error");
        if (abortIf == NEVER) {
            return false; // the default: no call per failed attempt
        }
        try {
            return abortIf.shouldRetry(error, attempt);
        } catch (Throwable brokenVeto) {
            // An Error too: propagating it would unwind the engine's settlement of the attempt
            // and lose the task.
            return false;
        }
    }

    /**
     * @param retry 1 for the first retry
     * @return the backoff delay before that retry, with jitter drawn from {@link #random()}
     * @throws IllegalArgumentException if {@code retry < 1}
     * @see Backoff#delay(int, DoubleSupplier)
     */
    public Duration delayBeforeRetry(int retry) {
        return backoff.delay(retry, random);
    }

    /**
     * The wait before retrying after a rate-limit answer. Never jittered: jitter could only
     * shorten a wait the server asked for, or lengthen it beyond the cap.
     *
     * @param announced the parsed {@code Retry-After}
     * @return {@code min(announced, maxRetryAfter)}, and {@link Duration#ZERO} if
     *         {@code announced} is negative
     * @throws NullPointerException if {@code announced} is null
     */
    public Duration cappedRetryAfter(Duration announced) {
        Objects.requireNonNull(announced, "announced");
        if (announced.isNegative()) {
            return Duration.ZERO;
        }
        return announced.compareTo(maxRetryAfter) > 0 ? maxRetryAfter : announced;
    }

    @Override
    public String toString() {
        return "RetryPolicy[retries=" + retries
                + ", backoff=" + backoff.kind()
                + ", minDelay=" + backoff.minDelay()
                + ", maxDelay=" + backoff.maxDelay()
                + ", jitter=" + backoff.jitter()
                + ", maxRateLimitRetries=" + maxRateLimitRetries
                + ", maxRetryAfter=" + maxRetryAfter
                + ", retryOn=" + retryOn
                + ", abortIf=" + abortIf
                + ", random=" + (random == THREAD_LOCAL_RANDOM ? "ThreadLocalRandom" : "custom")
                + "]";
    }

    /**
     * Builds a {@link RetryPolicy}. Setters reject {@code null} at once with a
     * {@link NullPointerException}; ranges are checked by {@link #build()}. Not thread-safe;
     * may build several policies.
     */
    public static final class Builder {
        private int retries = DEFAULT_RETRIES;
        private Backoff.Kind kind = Backoff.Kind.EXPONENTIAL;
        private Duration minDelay = Backoff.DEFAULT_MIN_DELAY;
        private Duration maxDelay = Backoff.DEFAULT_MAX_DELAY;
        private double jitter = DEFAULT_JITTER;
        private int maxRateLimitRetries = DEFAULT_MAX_RATE_LIMIT_RETRIES;
        private Duration maxRetryAfter = RetryAfter.DEFAULT_MAX;
        private RetryClassifier retryOn = RetryClassifier.all();
        private RetryClassifier abortIf = NEVER;
        private DoubleSupplier random = THREAD_LOCAL_RANDOM;

        private Builder() {
        }

        /**
         * @param retries retries per task after errors and timeouts; default 3, must be {@code >= 0}
         * @return this builder
         */
        public Builder retries(int retries) {
            this.retries = retries;
            return this;
        }

        /** @return this builder, with every retry waiting {@code minDelay} */
        public Builder constant() {
            this.kind = Backoff.Kind.CONSTANT;
            return this;
        }

        /** @return this builder, with the {@code n}-th retry waiting {@code minDelay * n} */
        public Builder linear() {
            this.kind = Backoff.Kind.LINEAR;
            return this;
        }

        /** @return this builder, with the {@code n}-th retry waiting {@code minDelay * 2^(n-1)}; the default */
        public Builder exponential() {
            this.kind = Backoff.Kind.EXPONENTIAL;
            return this;
        }

        /**
         * @param minDelay the base delay; default 100 ms, must be {@code >= 0}
         * @return this builder
         * @throws NullPointerException if {@code minDelay} is null
         */
        public Builder minDelay(Duration minDelay) {
            this.minDelay = Objects.requireNonNull(minDelay, "minDelay");
            return this;
        }

        /**
         * @param maxDelay the cap on a backoff delay, jitter included; default 30 s, must be
         *                 {@code >= minDelay}
         * @return this builder
         * @throws NullPointerException if {@code maxDelay} is null
         */
        public Builder maxDelay(Duration maxDelay) {
            this.maxDelay = Objects.requireNonNull(maxDelay, "maxDelay");
            return this;
        }

        /**
         * @param jitter the fraction by which a delay is spread either way; default 0.2, must
         *               be in [0, 1]
         * @return this builder
         */
        public Builder jitter(double jitter) {
            this.jitter = jitter;
            return this;
        }

        /** @return this builder, with jitter 0.5 */
        public Builder jitter() {
            return jitter(0.5);
        }

        /** @return this builder, with jitter 0 */
        public Builder noJitter() {
            return jitter(0);
        }

        /**
         * Replaces the kind, min and max delay and jitter at once.
         *
         * @param backoff the backoff, already validated
         * @return this builder
         * @throws NullPointerException if {@code backoff} is null
         */
        public Builder backoff(Backoff backoff) {
            Objects.requireNonNull(backoff, "backoff");
            this.kind = backoff.kind();
            this.minDelay = backoff.minDelay();
            this.maxDelay = backoff.maxDelay();
            this.jitter = backoff.jitter();
            return this;
        }

        /**
         * @param maxRateLimitRetries retries per task after rate-limit answers; they do not
         *                            consume {@link #retries(int)}; default 10, must be {@code >= 0}
         * @return this builder
         */
        public Builder maxRateLimitRetries(int maxRateLimitRetries) {
            this.maxRateLimitRetries = maxRateLimitRetries;
            return this;
        }

        /**
         * @param maxRetryAfter the cap on any {@code Retry-After} wait; default
         *                      {@link RetryAfter#DEFAULT_MAX} (10 min), must be positive
         * @return this builder
         * @throws NullPointerException if {@code maxRetryAfter} is null
         */
        public Builder maxRetryAfter(Duration maxRetryAfter) {
            this.maxRetryAfter = Objects.requireNonNull(maxRetryAfter, "maxRetryAfter");
            return this;
        }

        /**
         * @param retryOn which errors are worth a retry; default {@link RetryClassifier#all()}
         * @return this builder
         * @throws NullPointerException if {@code retryOn} is null
         */
        public Builder retryOn(RetryClassifier retryOn) {
            this.retryOn = Objects.requireNonNull(retryOn, "retryOn");
            return this;
        }

        /**
         * A veto on every retry: an attempt whose failure {@code abortIf} accepts ({@code true}) ends the task with that failure,
         * with no retry of any kind, rate-limited attempts included (whose retries
         * {@link #retryOn} does not decide); the attempt is still released with its own
         * outcome, so a rate limit still pauses the limiter for its {@code Retry-After}.
         * Asked before {@code retryOn} and before any budget. For the code that builds the
         * policy, to end its tasks early: once it is stopping, say, or on errors no retry can
         * mend ({@code abortIf(RetryClassifier.on(SecurityException.class))}). One that
         * throws (anything) means "do not abort" (see {@link RetryPolicy#shouldAbort}).
         *
         * @param abortIf which failures end the task at once; default: none
         * @return this builder
         * @throws NullPointerException if {@code abortIf} is null
         */
        public Builder abortIf(RetryClassifier abortIf) {
            this.abortIf = Objects.requireNonNull(abortIf, "abortIf");
            return this;
        }

        /**
         * @param random the source of jitter, uniform in [0, 1) and thread-safe; default
         *               {@link ThreadLocalRandom}; inject a seeded one for reproducible
         *               simulations; one that throws (anything) or answers outside [0, 1)
         *               means "no jitter" for that delay
         * @return this builder
         * @throws NullPointerException if {@code random} is null
         */
        public Builder random(DoubleSupplier random) {
            this.random = Objects.requireNonNull(random, "random");
            return this;
        }

        /**
         * @return a new immutable policy
         * @throws IllegalArgumentException naming the first option out of range and its value
         */
        public RetryPolicy build() {
            if (retries < 0) {
                throw new IllegalArgumentException("retries must be >= 0: " + retries);
            }
            if (maxRateLimitRetries < 0) {
                throw new IllegalArgumentException("maxRateLimitRetries must be >= 0: " + maxRateLimitRetries);
            }
            if (maxRetryAfter.isNegative() || maxRetryAfter.isZero()) {
                throw new IllegalArgumentException("maxRetryAfter must be positive: " + maxRetryAfter);
            }
            // Backoff validates minDelay, maxDelay and jitter with messages naming them.
            return new RetryPolicy(this, new Backoff(kind, minDelay, maxDelay, jitter));
        }
    }
}
