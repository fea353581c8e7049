package dev.adaptive.camel;

import dev.adaptive.limit.Outcome;
import dev.adaptive.guard.ConcurrencyGuard;
import dev.adaptive.guard.GuardLease;
import dev.adaptive.guard.GuardStats;
import dev.adaptive.retry.RetryAfter;
import org.apache.camel.Consumer;
import org.apache.camel.Exchange;
import org.apache.camel.Route;
import org.apache.camel.api.management.ManagedAttribute;
import org.apache.camel.api.management.ManagedResource;
import org.apache.camel.support.RoutePolicySupport;

import java.time.Clock;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Throttles a consumer route (one that reads a queue, say) adaptively: a
 * {@link ConcurrencyGuard} infers from each exchange's latency how many may be in flight in the
 * route, and the policy suspends the route's consumer when that many are, and resumes it when
 * in-flight falls to {@code resumeRatio} of the limit. Like Camel's
 * {@code ThrottlingInflightRoutePolicy}, but the ceiling is learned, not configured.
 *
 * <pre>{@code
 * from("jms:queue:orders?concurrentConsumers=50")
 *     .routePolicy(AdaptiveRoutePolicy.builder().build())
 *     .to("http://inventory/reserve");
 * }</pre>
 *
 * <p>Each exchange takes a {@link GuardLease} when it enters the route and releases it when it
 * is done, read by the {@code classifier}: success is a latency sample; dropped or rate-limited
 * (by default: any exception, read as {@link ExchangeClassifier} reads an attempt) cuts the
 * limit; ignored feeds nothing. Exchanges a consumer already took while it was being suspended
 * still run, without a lease (counted in {@link #overflow()}).
 *
 * <p>Defaults: {@link ConcurrencyGuard#create()} ({@code GuardGradient} from 4 to 512,
 * starting at 4), {@code resumeRatio} 0.7, the pool's default reading (429 and 503 with
 * Retry-After are rate limits, any other exception a drop). Consumers that are not
 * {@link org.apache.camel.Suspendable} are stopped and started instead. A seda consumer notices
 * a resume only after its {@code pollTimeout}.
 *
 * <p>With JMX on, Camel manages the policy as one of its routes' services
 * ({@code type=services}); its attributes are the guard's limit, load and counters.
 *
 * <p>A route suspended or stopped from outside (the route controller, JMX) stays so until it is
 * resumed or started: the policy resumes only the consumers it suspended itself.
 *
 * <p>Thread-safe. One instance per route; an instance shared by several routes counts their
 * exchanges against one limit.
 */
@ManagedResource(description = "Adaptive route policy: the learned in-flight ceiling of its routes and its counters")
public final class AdaptiveRoutePolicy extends RoutePolicySupport {

    /** Default fraction of the limit at which a suspended consumer resumes: 0.7. */
    public static final double DEFAULT_RESUME_RATIO = 0.7;

    private final ConcurrencyGuard guard;
    private final double resumeRatio;
    private final ExchangeClassifier classifier;
    private final ExchangeClassifier defaultReading;
    private final String leaseKey;
    private final Set<Consumer> suspended = ConcurrentHashMap.newKeySet();
    private final Object lock = new Object();
    private final LongAdder suspensions = new LongAdder();
    private final LongAdder overflow = new LongAdder();

    private AdaptiveRoutePolicy(Builder b) {
        this.guard = b.guard != null ? b.guard : ConcurrencyGuard.create();
        this.resumeRatio = b.resumeRatio;
        this.classifier = b.classifier;
        this.defaultReading = new HttpStatusClassifier(Set.of(429, 503), RetryAfter.DEFAULT_MAX, Clock.systemUTC(), false);
        // Per instance: an exchange may pass through several routes that each have a policy.
        this.leaseKey = "AdaptiveRoutePolicyLease@" + Integer.toHexString(System.identityHashCode(this));
    }

    /** @return a builder with every default */
    public static Builder builder() {
        return new Builder();
    }

    @Override
    public void onExchangeBegin(Route route, Exchange exchange) {
        GuardLease lease = guard.acquire();
        if (lease.admitted()) {
            exchange.setProperty(key(route), lease);
        } else {
            overflow.increment();
        }
        if (guard.inflight() >= guard.limit()) {
            suspend(route.getConsumer());
        }
    }

    @Override
    public void onExchangeDone(Route route, Exchange exchange) {
        GuardLease lease = exchange.getProperty(key(route), GuardLease.class);
        if (lease != null) {
            exchange.removeProperty(key(route));
            release(lease, exchange);
        }
        if (!suspended.isEmpty() && guard.inflight() <= resumeAt()) {
            // Every consumer this policy holds, not only this route's: routes that share the
            // policy share its in-flight count, and a route whose own exchanges have all ended
            // while the others' kept the count up hears of the drop only from theirs.
            for (Consumer consumer : suspended) {
                resume(consumer);
            }
        }
    }

    @Override
    public void onStop(Route route) {
        // Stopped from outside: whoever starts it again decides, not a stale suspension.
        suspended.remove(route.getConsumer());
    }

    @Override
    public void onSuspend(Route route) {
        // Suspended from outside (the route controller, JMX): it stays so until whoever suspended
        // it resumes it. Kept in the set, the next drop of in-flight below the resume level (in a
        // route sharing this policy) would resume its consumer under a route reported Suspended.
        suspended.remove(route.getConsumer());
    }

    @Override
    public void onResume(Route route) {
        suspended.remove(route.getConsumer());
    }

    private String key(Route route) {
        return leaseKey + "/" + route.getRouteId();
    }

    private int resumeAt() {
        return (int) Math.floor(guard.limit() * resumeRatio);
    }

    private void release(GuardLease lease, Exchange exchange) {
        Outcome outcome = null;
        if (classifier != null) {
            try {
                outcome = classifier.classify(exchange);
            } catch (Throwable e) {
                // Anything, an Error included: the lease must still be released below.
                outcome = null;
            }
        }
        if (outcome == null) {
            outcome = defaultReading.classify(exchange);
        }
        if (outcome instanceof Outcome.Ignored) {
            lease.releaseIgnored();
        } else {
            lease.release(outcome instanceof Outcome.Dropped || outcome instanceof Outcome.RateLimited);
        }
    }

    private void suspend(Consumer consumer) {
        synchronized (lock) {
            if (consumer == null || !suspended.add(consumer)) {
                return;
            }
            try {
                suspendOrStopConsumer(consumer);
                suspensions.increment();
            } catch (Exception e) {
                suspended.remove(consumer);
                handleException(e);
            }
        }
    }

    private void resume(Consumer consumer) {
        synchronized (lock) {
            if (consumer == null || !suspended.remove(consumer)) {
                return;
            }
            try {
                resumeOrStartConsumer(consumer);
            } catch (Exception e) {
                handleException(e);
            }
        }
    }

    /** @return the guard's limit, in-flight count and counters */
    public GuardStats stats() {
        return guard.stats();
    }

    /** @return the guard that infers the ceiling */
    public ConcurrencyGuard guard() {
        return guard;
    }

    /**
     * @param route a route using this policy
     * @return whether this policy holds its consumer suspended now
     */
    public boolean isSuspended(Route route) {
        return suspended.contains(route.getConsumer());
    }

    /** @return how many times this policy suspended a consumer */
    public long suspensions() {
        return suspensions.sum();
    }

    /** @return exchanges that entered while the limit was reached, run without a lease */
    public long overflow() {
        return overflow.sum();
    }

    /** @return the fraction of the limit at which a suspended consumer resumes */
    public double resumeRatio() {
        return resumeRatio;
    }

    // ---- JMX -----------------------------------------------------------------------------

    /** @return the guard's limit now */
    @ManagedAttribute(description = "The in-flight ceiling learned now")
    public int getLimit() {
        return guard.limit();
    }

    /** @return exchanges holding a lease now */
    @ManagedAttribute(description = "Exchanges in the routes holding a lease now")
    public int getInflight() {
        return guard.inflight();
    }

    /** @return exchanges admitted so far */
    @ManagedAttribute(description = "Exchanges admitted with a lease so far")
    public long getAdmitted() {
        return guard.stats().admitted();
    }

    /** @return the latency baseline, in milliseconds; 0 until known */
    @ManagedAttribute(description = "The no-load latency the gradient compares with, in milliseconds; 0 until known")
    public long getRttNoLoadMillis() {
        return guard.stats().rttNoLoad().toMillis();
    }

    /** @return how many times this policy suspended a consumer */
    @ManagedAttribute(description = "Times this policy suspended a route's consumer")
    public long getSuspensions() {
        return suspensions();
    }

    /** @return exchanges that entered while the limit was reached */
    @ManagedAttribute(description = "Exchanges that entered while the ceiling was reached, run without a lease")
    public long getOverflow() {
        return overflow();
    }

    /** @return consumers this policy holds suspended now */
    @ManagedAttribute(description = "Route consumers this policy holds suspended now")
    public int getSuspendedConsumers() {
        return suspended.size();
    }

    /** @return the fraction of the limit at which a suspended consumer resumes */
    @ManagedAttribute(description = "The fraction of the ceiling at which a suspended consumer resumes")
    public double getResumeRatio() {
        return resumeRatio;
    }

    @Override
    public String toString() {
        return "AdaptiveRoutePolicy[" + guard.stats() + ", suspended=" + suspended.size() + "]";
    }

    /** Builds an {@link AdaptiveRoutePolicy}. Not thread-safe. */
    public static final class Builder {
        private ConcurrencyGuard guard;
        private double resumeRatio = DEFAULT_RESUME_RATIO;
        private ExchangeClassifier classifier;

        private Builder() {
        }

        /**
         * @param guard infers the ceiling; default {@link ConcurrencyGuard#create()}; give each
         *              policy its own unless routes should share one limit
         * @return this builder
         */
        public Builder guard(ConcurrencyGuard guard) {
            this.guard = Objects.requireNonNull(guard, "guard");
            return this;
        }

        /**
         * @param resumeRatio the fraction of the limit in flight at which a suspended consumer
         *                    resumes, greater than 0 and at most 1; default 0.7
         * @return this builder
         */
        public Builder resumeRatio(double resumeRatio) {
            if (!(resumeRatio > 0 && resumeRatio <= 1)) {
                throw new IllegalArgumentException("resumeRatio must be within (0, 1]: " + resumeRatio);
            }
            this.resumeRatio = resumeRatio;
            return this;
        }

        /**
         * @param classifier reads each finished exchange first; {@code null} or a throw falls back
         *                   to the default reading; default none
         * @return this builder
         */
        public Builder classifier(ExchangeClassifier classifier) {
            this.classifier = classifier;
            return this;
        }

        /** @return the policy */
        public AdaptiveRoutePolicy build() {
            return new AdaptiveRoutePolicy(this);
        }
    }
}
