/**
 * The engine's API: what a user of adaptive-core programs against.
 *
 * <ul>
 *   <li>{@link dev.adaptive.Limiter} (built by its builder) gates calls by an adaptive limit:
 *       {@code tryAcquire()} sheds, {@code acquire()} queues without blocking a thread; each
 *       admitted call holds a {@link dev.adaptive.Lease} and releases it with its
 *       {@link dev.adaptive.limit.Outcome}. Its figures: {@link dev.adaptive.LimiterStats},
 *       {@link dev.adaptive.LimiterState}, {@link dev.adaptive.LimitChangeListener}; which
 *       signals move the limit: {@link dev.adaptive.Adapt}.</li>
 *   <li>{@link dev.adaptive.AdaptiveExecutor} runs {@link dev.adaptive.AsyncTask}s through a
 *       limiter with retries, task timeouts and classification; each attempt sees a
 *       {@link dev.adaptive.TaskContext} and its {@link dev.adaptive.Cancellation}. An
 *       {@link dev.adaptive.OutcomeClassifier} turns a result or an error into an outcome.</li>
 *   <li>{@link dev.adaptive.AdmissionGate} is an extension point: a rule every start must also
 *       pass (the queue's rate, a quota).</li>
 *   <li>{@link dev.adaptive.AdaptiveException} is the base of every exception the library
 *       hands out; the engine's own are here ({@link dev.adaptive.RejectedException},
 *       {@link dev.adaptive.RateLimitedException}, {@link dev.adaptive.TaskTimeoutException},
 *       {@link dev.adaptive.AcquireTimeoutException}, {@link dev.adaptive.LimiterClosedException},
 *       {@link dev.adaptive.ClassifiedFailureException}, {@link dev.adaptive.StopPoolException}).</li>
 * </ul>
 *
 * <p>The concepts that need several types have packages of their own: {@code limit} (the
 * algorithms and the signals they fold), {@code retry}, {@code time}, {@code trace},
 * {@code pool}, {@code queue}, {@code guard}, {@code fleet}, {@code config}. Runners built on
 * the engine use {@code spi}; {@code internal} is nobody's API.
 *
 * <p>Status: public API.
 */
package dev.adaptive;
