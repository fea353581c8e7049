package dev.adaptive.camel;

import dev.adaptive.limit.Outcome;
import dev.adaptive.guard.ConcurrencyGuard;
import dev.adaptive.guard.GuardGradient;
import dev.adaptive.time.VirtualTime;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.Route;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.ServiceStatus;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.model.RouteDefinition;
import org.apache.camel.support.DefaultExchange;
import org.apache.camel.support.service.ServiceSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The route policy's decisions, in virtual time: the test plays the route's exchanges (begin,
 * some latency, done) against a real started route, whose consumer the policy suspends and
 * resumes.
 */
class AdaptiveRoutePolicyTest {

    private final VirtualTime time = new VirtualTime();
    private final CamelContext camel = new DefaultCamelContext();
    private Route route;

    @BeforeEach
    void startRoute() throws Exception {
        camel.start();
        route = sedaRoute("jobs");
    }

    /** @return a route {@code id} consuming {@code seda:id}, added to the started context */
    private Route sedaRoute(String id) throws Exception {
        return sedaRoute(id, null);
    }

    /** @return a route {@code id} consuming {@code seda:id} with {@code policy} (none if null), added to the started context */
    private Route sedaRoute(String id, AdaptiveRoutePolicy policy) throws Exception {
        camel.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                RouteDefinition r = from("seda:" + id + "?pollTimeout=20").routeId(id);
                if (policy != null) {
                    r.routePolicy(policy);
                }
                r.log("${body}");
            }
        });
        return camel.getRoute(id);
    }

    @AfterEach
    void stop() {
        camel.stop();
        assertThat(time.uncaught()).isEmpty();
    }

    private AdaptiveRoutePolicy policy(int min, int initial, ExchangeClassifier classifier) {
        ConcurrencyGuard guard = ConcurrencyGuard.builder().time(time)
                .limit(GuardGradient.builder().minLimit(min).initialLimit(initial).maxLimit(64).build()).build();
        return AdaptiveRoutePolicy.builder().guard(guard).classifier(classifier).build();
    }

    private boolean consumerSuspended() {
        return ((ServiceSupport) route.getConsumer()).isSuspended();
    }

    private List<Exchange> begin(AdaptiveRoutePolicy policy, int n) {
        List<Exchange> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Exchange e = new DefaultExchange(camel);
            policy.onExchangeBegin(route, e);
            out.add(e);
        }
        return out;
    }

    @Test
    void theConsumerIsSuspendedAtTheLimitAndResumedBelowSeventyPercentOfIt() {
        AdaptiveRoutePolicy policy = policy(10, 10, null);
        List<Exchange> running = begin(policy, 9);
        assertThat(consumerSuspended()).isFalse();
        running.addAll(begin(policy, 1));
        assertThat(consumerSuspended()).as("10 in flight, limit 10").isTrue();
        assertThat(policy.isSuspended(route)).isTrue();

        time.advance(Duration.ofMillis(10));
        for (int i = 0; i < 2; i++) {
            policy.onExchangeDone(route, running.remove(0));
        }
        assertThat(consumerSuspended()).as("8 in flight: above 7").isTrue();
        policy.onExchangeDone(route, running.remove(0));
        assertThat(consumerSuspended()).as("7 in flight: resumed").isFalse();
        assertThat(policy.suspensions()).isEqualTo(1);
        running.forEach(e -> policy.onExchangeDone(route, e));
        assertThat(policy.stats().inflight()).isZero();
    }

    @Test
    void aPolicySharedByTwoRoutesResumesEveryConsumerItSuspendedOnceInFlightFalls() throws Exception {
        Route other = sedaRoute("more");
        AdaptiveRoutePolicy policy = AdaptiveRoutePolicy.builder().guard(ConcurrencyGuard.builder().time(time)
                .limit(GuardGradient.builder().minLimit(10).initialLimit(10).maxLimit(10).build()).build()).build();
        List<Exchange> inOther = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            Exchange e = new DefaultExchange(camel);
            policy.onExchangeBegin(other, e);
            inOther.add(e);
        }
        List<Exchange> inJobs = begin(policy, 2);
        assertThat(consumerSuspended()).as("10 in flight, limit 10").isTrue();
        time.advance(Duration.ofMillis(10));
        inJobs.forEach(e -> policy.onExchangeDone(route, e));      // 8 left, above 7: no resume yet
        assertThat(consumerSuspended()).isTrue();
        inOther.forEach(e -> policy.onExchangeDone(other, e));     // the other route's end the drop
        assertThat(policy.stats().inflight()).isZero();
        assertThat(consumerSuspended()).as("resumed by the other route's exchanges ending").isFalse();
        assertThat(policy.isSuspended(route)).isFalse();
    }

    @Test
    void aRouteItsUserSuspendedStaysSuspendedWhenTheSharedPolicyResumesTheConsumersItHolds() throws Exception {
        AdaptiveRoutePolicy policy = AdaptiveRoutePolicy.builder().guard(ConcurrencyGuard.builder().time(time)
                .limit(GuardGradient.builder().minLimit(4).initialLimit(4).maxLimit(4).build()).build()).build();
        Route held = sedaRoute("held", policy);
        Route other = sedaRoute("other", policy);
        List<Exchange> inOther = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Exchange e = new DefaultExchange(camel);
            policy.onExchangeBegin(other, e);
            inOther.add(e);
        }
        Exchange inHeld = new DefaultExchange(camel);
        policy.onExchangeBegin(held, inHeld);
        assertThat(policy.isSuspended(held)).as("4 in flight, limit 4: the policy suspends the route").isTrue();
        time.advance(Duration.ofMillis(10));
        policy.onExchangeDone(held, inHeld);                        // 3 left, above 2: still held

        camel.getRouteController().suspendRoute("held");           // its own exchanges have ended
        assertThat(camel.getRouteController().getRouteStatus("held")).isEqualTo(ServiceStatus.Suspended);
        inOther.forEach(e -> policy.onExchangeDone(other, e));     // in-flight falls: the policy resumes what it holds

        assertThat(((ServiceSupport) held.getConsumer()).isSuspended())
                .as("the user suspended the route: the policy's resume must not take it back").isTrue();
        assertThat(policy.isSuspended(held)).isFalse();
        camel.getRouteController().resumeRoute("held");
        assertThat(((ServiceSupport) held.getConsumer()).isSuspended()).isFalse();
    }

    @Test
    void theCeilingIsLearnedFromLatency() {
        AdaptiveRoutePolicy policy = policy(2, 4, null);
        // The route's backend, as in the flaky model: an exchange that finds k in flight takes
        // 10 ms up to k = 16, then longer with the square of the excess. They end in order of k.
        List<Integer> limits = new ArrayList<>();
        for (int round = 0; round < 400; round++) {
            List<Exchange> wave = begin(policy, policy.stats().limit());
            long done = 0;
            for (int k = 1; k <= wave.size(); k++) {
                double over = Math.max(0, k - 16) / 8.0;
                long latencyMicros = Math.round(10_000 * (1 + over * over));
                time.advance(Duration.ofNanos((latencyMicros - done) * 1_000));
                done = latencyMicros;
                policy.onExchangeDone(route, wave.get(k - 1));
            }
            limits.add(policy.stats().limit());
        }
        List<Integer> settled = limits.subList(300, 400);
        // Above the knee (past it each exchange is slower than the last) and below maxLimit 64,
        // in a narrow band: the route no longer runs as many as its consumer could take.
        assertThat(settled).allSatisfy(l -> assertThat(l).isBetween(17, 56));
        int spread = settled.stream().mapToInt(Integer::intValue).max().getAsInt()
                - settled.stream().mapToInt(Integer::intValue).min().getAsInt();
        assertThat(spread).as("settled").isLessThanOrEqualTo(4);
        assertThat(policy.suspensions()).as("every wave filled the limit").isPositive();
        assertThat(consumerSuspended()).isFalse();
    }

    @Test
    void failuresCutTheLimitAndIgnoredOnesTeachNothing() {
        AdaptiveRoutePolicy policy = policy(2, 20, e -> "ignore".equals(e.getIn().getBody()) ? Outcome.IGNORED : null);
        Exchange ignored = begin(policy, 1).get(0);
        ignored.getIn().setBody("ignore");
        ignored.setException(new IllegalArgumentException("invalid order"));
        time.advance(Duration.ofMillis(5));
        policy.onExchangeDone(route, ignored);
        assertThat(policy.stats().limit()).isEqualTo(20);

        Exchange failed = begin(policy, 1).get(0);
        failed.setException(new IllegalStateException("backend timed out"));
        time.advance(Duration.ofMillis(5));
        policy.onExchangeDone(route, failed);
        assertThat(policy.stats().limit()).as("a drop cuts at once").isLessThan(20);
    }

    @Test
    void anExchangeThroughTwoRoutesWithPoliciesHoldsOneLeaseInEach() {
        AdaptiveRoutePolicy first = policy(4, 4, null);
        AdaptiveRoutePolicy second = policy(4, 4, null);
        Exchange e = new DefaultExchange(camel);
        first.onExchangeBegin(route, e);
        second.onExchangeBegin(route, e);
        assertThat(first.stats().inflight()).isEqualTo(1);
        assertThat(second.stats().inflight()).isEqualTo(1);
        second.onExchangeDone(route, e);
        first.onExchangeDone(route, e);
        assertThat(first.stats().inflight()).isZero();
        assertThat(second.stats().inflight()).isZero();
    }

    @Test
    void aBadResumeRatioFailsNamingIt() {
        assertThatThrownBy(() -> AdaptiveRoutePolicy.builder().resumeRatio(0))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("resumeRatio must be within (0, 1]: 0.0");
        assertThat(AdaptiveRoutePolicy.builder().build().resumeRatio()).isEqualTo(0.7);
        assertThat(AdaptiveRoutePolicy.builder().build().stats().limit()).isEqualTo(4);
    }

    @Test
    void aClassifierThrowingAnErrorFallsBackToTheDefaultReadingAndTheLeaseIsReleased() {
        AdaptiveRoutePolicy policy = policy(2, 4, e -> {
            throw new AssertionError("classifier bug");
        });
        Exchange e = begin(policy, 1).get(0);
        assertThat(policy.stats().inflight()).isEqualTo(1);
        assertThatCode(() -> policy.onExchangeDone(route, e)).doesNotThrowAnyException();
        assertThat(policy.stats().inflight()).isZero();
    }
}
