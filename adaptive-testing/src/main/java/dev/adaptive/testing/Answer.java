package dev.adaptive.testing;

import java.time.Duration;
import java.util.Objects;

/** What the flaky model answered one request. Immutable values. */
public sealed interface Answer permits Answer.Ok, Answer.TooManyRequests, Answer.ServerError, Answer.Scripted {

    /** @return the HTTP status of this answer */
    int status();

    /**
     * The quota a server announces with an answer: what remains of the current window and when
     * the next one begins.
     *
     * @param remaining requests the current window still accepts, at least 0
     * @param reset     the time until the next window, not negative
     */
    record Quota(int remaining, Duration reset) {
        /**
         * Validates.
         *
         * @param remaining requests the current window still accepts
         * @param reset     the time until the next window
         */
        public Quota {
            Objects.requireNonNull(reset, "reset");
            if (remaining < 0 || reset.isNegative()) {
                throw new IllegalArgumentException("need remaining >= 0 and reset >= 0: " + remaining + ", " + reset);
            }
        }
    }

    /**
     * A 200.
     *
     * @param quota the quota the server announces with it, or {@code null} if it keeps none
     */
    record Ok(Quota quota) implements Answer {
        /** A 200 without a quota. */
        public Ok() {
            this(null);
        }

        @Override
        public int status() {
            return 200;
        }
    }

    /**
     * A 429, with {@code Retry-After} or without
     * ({@link FlakyDownstream#withoutRetryAfter()}).
     *
     * @param retryAfter the announced wait, or {@code null} if the server announces none
     * @param quota      the quota the server announces with it, or {@code null} if it keeps none
     */
    record TooManyRequests(Duration retryAfter, Quota quota) implements Answer {
        /** @param retryAfter the announced wait, or {@code null} for none */
        public TooManyRequests(Duration retryAfter) {
            this(retryAfter, null);
        }

        /**
         * Validates.
         *
         * @param retryAfter the announced wait, or {@code null} for none
         * @param quota      the announced quota, or {@code null}
         */
        public TooManyRequests {
            if (retryAfter != null && retryAfter.isNegative()) {
                throw new IllegalArgumentException("retryAfter must not be negative: " + retryAfter);
            }
        }

        @Override
        public int status() {
            return 429;
        }
    }

    /**
     * A 500.
     *
     * @param overCap {@code true} for a refusal past the hard cap, {@code false} for a transient
     *                error or an outage
     */
    record ServerError(boolean overCap) implements Answer {
        @Override
        public int status() {
            return 500;
        }
    }

    /**
     * An answer a test scripted instead of the model's: any status, with a {@code Retry-After}
     * header as written. A 429 whose header is a whole number of seconds opens a Retry-After
     * window like the model's own; an HTTP-date opens none.
     *
     * @param status     the HTTP status, 100 to 599
     * @param retryAfter the {@code Retry-After} header, or {@code null} for none
     */
    record Scripted(int status, String retryAfter) implements Answer {
        /**
         * Validates.
         *
         * @param status     the HTTP status, 100 to 599
         * @param retryAfter the {@code Retry-After} header, or {@code null} for none
         */
        public Scripted {
            if (status < 100 || status > 599) {
                throw new IllegalArgumentException("status must be in [100, 599]: " + status);
            }
        }
    }
}
