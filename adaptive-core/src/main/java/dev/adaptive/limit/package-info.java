/**
 * The algorithms that say how many calls may be in flight, and the signals they fold: a
 * {@link dev.adaptive.limit.Limit} is a pure function {@code (LimitState, Sample) -> LimitState}
 * with no clock, threads or I/O; a {@link dev.adaptive.limit.Sample} is one finished attempt
 * and its {@link dev.adaptive.limit.Outcome} (success, dropped, rate-limited, ignored).
 * {@link dev.adaptive.limit.Vegas} is the default; {@link dev.adaptive.limit.Aimd},
 * {@link dev.adaptive.limit.Gradient2} and {@link dev.adaptive.limit.FixedLimit} are the others,
 * each built by its builder ({@link dev.adaptive.limit.LimitBuilder} holds the bounds).
 *
 * <p>Status: public API. {@code Limit} is also an extension point: a user's own algorithm
 * plugs into {@link dev.adaptive.Limiter.Builder#limit}.
 */
package dev.adaptive.limit;
