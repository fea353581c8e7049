/**
 * Retries: {@link dev.adaptive.retry.RetryPolicy} (the two budgets, for errors and for rate
 * limits, and the cap on an obeyed Retry-After), {@link dev.adaptive.retry.Backoff} (the delay
 * before each retry), {@link dev.adaptive.retry.RetryClassifier} (what is worth retrying) and
 * {@link dev.adaptive.retry.RetryAfter} (the header's parser). All immutable.
 *
 * <p>Status: public API.
 */
package dev.adaptive.retry;
