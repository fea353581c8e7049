/**
 * A rate-paced queue: {@link dev.adaptive.queue.ThrottledQueue}, built by
 * {@link dev.adaptive.queue.ThrottledQueueBuilder}, runs tasks at a rate between a minimum and a
 * maximum per interval that a {@link dev.adaptive.queue.RateStrategy} adjusts from what the
 * attempts say, with the engine's retries and Retry-After pauses, and a full lifecycle (pause,
 * resume, stop, abort; {@link dev.adaptive.queue.QueueState}).
 *
 * <p>Status: public API; {@code RateStrategy} and {@code RateOutcomeClassifier} are also
 * extension points.
 */
package dev.adaptive.queue;
