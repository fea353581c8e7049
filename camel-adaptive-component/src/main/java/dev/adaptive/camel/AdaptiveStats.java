package dev.adaptive.camel;

import dev.adaptive.LimiterState;
import dev.adaptive.fleet.FleetStats;

/**
 * A snapshot of one {@code adaptive:} pool, from
 * {@link AdaptiveComponent#stats(String)} or {@link AdaptiveEndpoint#stats()}; the same
 * figures are JMX attributes of the pool's one MBean ({@code type=adaptive-pools},
 * {@link ManagedAdaptivePool}), not of its endpoints, whose MBeans only name the pool. Counters
 * run from the pool's start. Immutable.
 *
 * @param name             the pool's name
 * @param limit            the concurrency limit now
 * @param inflight         attempts holding a slot now
 * @param waiting          exchanges queued for a slot now
 * @param pending          exchanges accepted and not yet ended (in flight, queued, in backoff):
 *                         {@code accepted - completed - failed} of the same snapshot
 * @param maxLimitReached  the highest limit so far
 * @param ratePaused       whether a Retry-After pause is open now
 * @param outage           whether an outage holds dispatch to one probe at a time now
 *                         (option {@code outageProbe})
 * @param state            the limiter's lifecycle state
 * @param accepted         exchanges accepted
 * @param completed        exchanges that ended with the consumer route's success
 * @param failed           exchanges that ended with an exception
 * @param rejected         exchanges refused at once (queue full, pool stopped, no consumer)
 * @param attempts         attempts started
 * @param retries          attempts after the first, of any exchange
 * @param congestionEvents drops: failed or timed-out attempts
 * @param rateLimitEvents  rate-limited attempts
 * @param outages          outages the pool met (each a run of failures that held it to probes)
 * @param fleet            the pool's view of its fleet, or {@code null} without a {@code coordinator}
 */
public record AdaptiveStats(String name, int limit, int inflight, int waiting, int pending, int maxLimitReached,
                        boolean ratePaused, boolean outage, LimiterState state, long accepted, long completed,
                        long failed, long rejected, long attempts, long retries, long congestionEvents,
                        long rateLimitEvents, long outages, FleetStats fleet) {
}
