package dev.adaptive.vertx;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import io.vertx.junit5.VertxExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

@ExtendWith(VertxExtension.class)
class AdaptiveEventBusTest {

    @Test
    void requestsHonourTheRateLimitConventionAndAllComplete(Vertx vertx) {
        CappedConsumer target = new CappedConsumer(vertx, "capped", 3, 10, Duration.ofMillis(200));
        PauseWatch watch = new PauseWatch();
        AdaptiveLimiter limiter = AdaptiveLimiter.builder(vertx, new AdaptiveOptions().setInitialLimit(8)
                .setStatsAddress(null)).traceListener(watch).build();
        AdaptiveEventBus bus = AdaptiveEventBus.create(limiter);
        List<Future<Message<String>>> replies = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            replies.add(bus.request("capped", "m" + i, new DeliveryOptions().addHeader("x-id", "" + i)));
        }
        for (int i = 0; i < 40; i++) {
            Message<String> reply = Await.result(replies.get(i));
            assertThat(reply.body()).isEqualTo("echo:m" + i);
            assertThat(reply.headers().get("x-id")).isEqualTo("" + i);
        }
        assertThat(target.rateLimited()).as("the first burst went past the cap").isPositive();
        assertThat(limiter.limiter().stats().rateLimitEvents()).isEqualTo(target.rateLimited());
        assertThat(watch.pauses()).isPositive();
        assertThat(watch.dispatchesInsidePauses()).isZero();
        assertThat(target.maxInflight()).isLessThanOrEqualTo(3);
    }

    /** A type the event bus has no codec for: its codec is registered by name only. */
    /**
     * A request the event bus refuses before sending anything (a body no codec sends without
     * naming one) says nothing of the consumer: it fails at once with the event bus's own
     * exception, after one attempt, with no sample. Before, it was a drop: retried on the error
     * budget (four attempts with the defaults), each lowering the limit. Named, the codec sends it.
     */
    @Test
    void aRequestTheEventBusRefusesBeforeSendingIsNeitherADropNorRetried(Vertx vertx) {
        vertx.eventBus().registerCodec(Parcel.codec("bus-parcel"));
        AtomicInteger arrivals = new AtomicInteger();
        Await.result(vertx.eventBus().<Parcel>consumer("parcels.bus", m -> {
            arrivals.incrementAndGet();
            m.reply("got:" + m.body().text());
        }).completion());
        List<dev.adaptive.limit.Outcome> outcomes = new CopyOnWriteArrayList<>();
        AdaptiveLimiter limiter = AdaptiveLimiter.builder(vertx, new AdaptiveOptions().setStatsAddress(null))
                .traceListener(e -> {
                    if (e instanceof dev.adaptive.trace.TraceEvent.TaskEnd end) {
                        outcomes.add(end.outcome());
                    }
                }).build();
        AdaptiveEventBus bus = AdaptiveEventBus.create(limiter);
        assertThat(Await.failure(bus.request("parcels.bus", new Parcel("a"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("No message codec");
        assertThat(outcomes).as("one attempt, no sample").containsExactly(dev.adaptive.limit.Outcome.IGNORED);
        assertThat(limiter.limiter().stats().congestionEvents()).isZero();
        assertThat(arrivals).hasValue(0);
        assertThat(Await.result(bus.<String>request("parcels.bus", new Parcel("b"),
                new DeliveryOptions().setCodecName("bus-parcel"))).body()).isEqualTo("got:b");
        assertThat(outcomes).containsExactly(dev.adaptive.limit.Outcome.IGNORED, dev.adaptive.limit.Outcome.SUCCESS);
    }

    /**
     * The event bus's codec selector is user code that runs inside {@code request}, before
     * anything is sent: whatever it throws, an Error included, is that same refusal to send.
     */
    @Test
    void anErrorThrownInsideTheEventBusBeforeSendingIsARefusalNeitherADropNorRetried(Vertx vertx) {
        vertx.eventBus().registerCodec(Parcel.codec("selected-parcel"));
        AssertionError broken = new AssertionError("codec selector broke");
        AtomicInteger selections = new AtomicInteger();
        vertx.eventBus().codecSelector(body -> {
            if (body instanceof Parcel) {
                selections.incrementAndGet();
                throw broken;
            }
            return null;
        });
        AtomicInteger arrivals = new AtomicInteger();
        Await.result(vertx.eventBus().<Parcel>consumer("parcels.selected", m -> {
            arrivals.incrementAndGet();
            m.reply("got");
        }).completion());
        List<dev.adaptive.limit.Outcome> outcomes = new CopyOnWriteArrayList<>();
        AdaptiveLimiter limiter = AdaptiveLimiter.builder(vertx, new AdaptiveOptions().setStatsAddress(null)
                        .setRetries(3).setMinDelay(1).setMaxDelay(5).setRetryBudget(false))
                .traceListener(e -> {
                    if (e instanceof dev.adaptive.trace.TraceEvent.TaskEnd end) {
                        outcomes.add(end.outcome());
                    }
                }).build();
        AdaptiveEventBus bus = AdaptiveEventBus.create(limiter);

        assertThat(Await.failure(bus.request("parcels.selected", new Parcel("a")))).isSameAs(broken);

        assertThat(selections).as("one attempt").hasValue(1);
        assertThat(outcomes).as("no sample").containsExactly(dev.adaptive.limit.Outcome.IGNORED);
        assertThat(limiter.limiter().stats().congestionEvents()).isZero();
        assertThat(limiter.limiter().inflight()).isZero();
        assertThat(arrivals).hasValue(0);
        assertThat(Await.result(bus.<String>request("parcels.selected", "plain")).body())
                .as("the limiter still serves").isEqualTo("got");
    }

    /**
     * An outbound interceptor's throw never reaches {@code request}: Vert.x reports it to the
     * context and the request, never sent, fails at its send timeout, which is a drop and retried.
     */
    @Test
    void anOutboundInterceptorsThrowIsASendTimeoutRetriedAsADrop(Vertx vertx) {
        AtomicInteger intercepted = new AtomicInteger();
        vertx.eventBus().addOutboundInterceptor(ctx -> {
            if ("intercepted".equals(ctx.message().address())) {
                intercepted.incrementAndGet();
                throw new AssertionError("interceptor broke");
            }
            ctx.next();
        });
        AtomicInteger arrivals = new AtomicInteger();
        Await.result(vertx.eventBus().<String>consumer("intercepted", m -> {
            arrivals.incrementAndGet();
            m.reply("got");
        }).completion());
        AdaptiveLimiter limiter = AdaptiveLimiter.create(vertx, new AdaptiveOptions().setStatsAddress(null)
                .setRetries(1).setMinDelay(1).setMaxDelay(5).setRetryBudget(false));

        Throwable failure = Await.failure(AdaptiveEventBus.create(limiter).request("intercepted", "x",
                new DeliveryOptions().setSendTimeout(100)));

        assertThat(failure).isInstanceOf(ReplyException.class);
        assertThat(((ReplyException) failure).failureType()).isEqualTo(ReplyFailure.TIMEOUT);
        assertThat(intercepted).as("sent again after the first timeout").hasValue(2);
        assertThat(limiter.limiter().stats().congestionEvents()).isEqualTo(2);
        assertThat(arrivals).hasValue(0);
        assertThat(limiter.limiter().inflight()).isZero();
    }

    /** @return the requests that reached a consumer at {@code address} that refuses each with a 10 ms wait */
    private static AtomicInteger alwaysRateLimited(Vertx vertx, String address) {
        AtomicInteger arrivals = new AtomicInteger();
        Await.result(vertx.eventBus().consumer(address, m -> {
            arrivals.incrementAndGet();
            RateLimitReply.fail(m, Duration.ofMillis(10));
        }).completion());
        return arrivals;
    }

    /**
     * {@code maxRetryAfter} is the cap on one Retry-After pause, above its default of 10 minutes
     * too, as the web client reads a header: a consumer asking for 20 minutes, in either form,
     * from a limiter allowed an hour pauses 20 minutes, not 10.
     */
    @ParameterizedTest
    @ValueSource(strings = {"retry-after=1200", "retry-after-ms=1200000"})
    void aWaitPastTenMinutesIsCappedByMaxRetryAfterAlone(String failure, Vertx vertx) {
        Await.result(vertx.eventBus().consumer("quota-20m", m -> m.fail(RateLimitReply.RATE_LIMITED, failure))
                .completion());
        List<dev.adaptive.limit.Outcome> outcomes = new CopyOnWriteArrayList<>();
        AdaptiveLimiter limiter = AdaptiveLimiter.builder(vertx, new AdaptiveOptions().setStatsAddress(null)
                        .setMaxRetryAfter(Duration.ofHours(1).toMillis()))
                .traceListener(e -> {
                    if (e instanceof dev.adaptive.trace.TraceEvent.TaskEnd end) {
                        outcomes.add(end.outcome());
                    }
                }).build();
        Future<Message<Object>> call = AdaptiveEventBus.create(limiter).request("quota-20m", "x");
        dev.adaptive.testing.Until.met("the rate limit was read", Duration.ofSeconds(30), () -> !outcomes.isEmpty());
        assertThat(outcomes.get(0)).isEqualTo(dev.adaptive.limit.Outcome.rateLimited(Duration.ofMinutes(20)));
        assertThat(new AdaptiveLimiterStats(limiter.stats()).getPausedForMs()).as("what is left of the pause")
                .isGreaterThan(Duration.ofMinutes(19).toMillis());
        limiter.close();
        assertThat(Await.failure(call)).isInstanceOf(dev.adaptive.LimiterClosedException.class);
    }

    @Test
    void whenTheRateLimitBudgetRunsOutTheConsumersOwnFailureIsReported(Vertx vertx) {
        AtomicInteger arrivals = alwaysRateLimited(vertx, "always-429");
        AdaptiveEventBus bus = AdaptiveEventBus.create(AdaptiveLimiter.create(vertx,
                new AdaptiveOptions().setMaxRateLimitRetries(2).setStatsAddress(null)));
        Throwable t = Await.failure(bus.request("always-429", "x"));
        assertThat(t).isInstanceOfSatisfying(ReplyException.class, re -> {
            assertThat(re.failureCode()).isEqualTo(429);
            assertThat(re.failureType()).isEqualTo(ReplyFailure.RECIPIENT_FAILURE);
            assertThat(re.getMessage()).isEqualTo("retry-after-ms=10");
        });
        assertThat(arrivals).hasValue(3);
    }

    @Test
    void whenTheRetryBudgetRefusesARetryTheConsumersOwnFailureIsReportedToo(Vertx vertx) {
        AtomicInteger arrivals = alwaysRateLimited(vertx, "budget-429");
        // The retry budget on (the default) but empty: the first retry is refused.
        AdaptiveLimiter limiter = AdaptiveLimiter.create(vertx, new AdaptiveOptions().setRetryBudgetRatio(0)
                .setRetryBudgetMinPerSecond(0).setStatsAddress(null));
        Throwable t = Await.failure(AdaptiveEventBus.create(limiter).request("budget-429", "x"));
        assertThat(t).isInstanceOfSatisfying(ReplyException.class, re -> {
            assertThat(re.failureCode()).isEqualTo(429);
            assertThat(re.getMessage()).isEqualTo("retry-after-ms=10");
        });
        assertThat(arrivals).hasValue(1);
        assertThat(limiter.limiter().stats().retriesRefused()).isEqualTo(1);
    }

    /**
     * A consumer that says "retry after longer than a long of nanoseconds holds" (292 years and
     * more: "not before further notice") is answered: RateLimitReply writes the wait, which every
     * reader caps. Before, writing it overflowed, the consumer's handler threw, and the requester
     * waited for its own timeout.
     */
    @Test
    void aConsumerAskingForAWaitPastWhatNanosecondsHoldIsStillARateLimitAnswered(Vertx vertx) {
        assertThat(RateLimitReply.failureMessage(Duration.ofSeconds(Long.MAX_VALUE)))
                .isEqualTo("retry-after=" + Long.MAX_VALUE);
        assertThat(RateLimitReply.failureMessage(Duration.ofSeconds(Long.MAX_VALUE / 1000, 1)))
                .as("rounded up, never shortened").isEqualTo("retry-after=" + (Long.MAX_VALUE / 1000 + 1));
        assertThat(RateLimitReply.failureMessage(Duration.ofMillis(Long.MAX_VALUE)))
                .isEqualTo("retry-after=" + (Long.MAX_VALUE / 1000 + 1));
        assertThat(RateLimitReply.failureMessage(Duration.ofMillis(Long.MAX_VALUE / 2)))
                .isEqualTo("retry-after-ms=" + Long.MAX_VALUE / 2);
        Await.result(vertx.eventBus().consumer("forever", m -> RateLimitReply.fail(m, Duration.ofMillis(Long.MAX_VALUE)))
                .completion());
        AdaptiveLimiter limiter = AdaptiveLimiter.create(vertx, new AdaptiveOptions().setMaxRateLimitRetries(0)
                .setStatsAddress(null));
        // Far longer than Await waits: only the consumer's answer can end the request in time.
        Throwable t = Await.failure(AdaptiveEventBus.create(limiter).request("forever", "x",
                new DeliveryOptions().setSendTimeout(Duration.ofMinutes(5).toMillis())));
        assertThat(t).isInstanceOfSatisfying(ReplyException.class, re -> assertThat(re.failureCode()).isEqualTo(429));
        assertThat(limiter.limiter().stats().rateLimitEvents()).isEqualTo(1);
        assertThat(limiter.limiter().inflight()).isZero();
    }

    /**
     * The longest wait a Duration holds (Long.MAX_VALUE seconds and a fraction) is written as a
     * wait too, rounded up no further than a long holds: its text reads back as the longest wait
     * a reader keeps, and a 503 carrying it is a rate limit, not an error for want of a
     * readable wait.
     */
    @Test
    void theLongestDurationIsWrittenAsAWaitAReaderKeeps(Vertx vertx) {
        Duration longest = Duration.ofSeconds(Long.MAX_VALUE, 999_999_999);
        String message = RateLimitReply.failureMessage(longest);
        assertThat(RateLimitReply.retryAfter(message, java.time.Clock.fixed(java.time.Instant.EPOCH, java.time.ZoneOffset.UTC)))
                .as(message).contains(dev.adaptive.retry.RetryAfter.DEFAULT_MAX);
        assertThat(RateLimitReply.rateLimited(new ReplyException(ReplyFailure.RECIPIENT_FAILURE, 503, message),
                java.time.Clock.fixed(java.time.Instant.EPOCH, java.time.ZoneOffset.UTC))).as("a 503 with a wait is a rate limit").isPresent();
    }

    @Test
    void ordinaryFailuresAreRetriedOnTheErrorBudget(Vertx vertx) {
        AtomicInteger arrivals = new AtomicInteger();
        Await.result(vertx.eventBus().consumer("flaky", m -> {
            if (arrivals.incrementAndGet() < 3) {
                m.fail(500, "transient");
            } else {
                m.reply("ok");
            }
        }).completion());
        AdaptiveEventBus bus = AdaptiveEventBus.create(AdaptiveLimiter.create(vertx,
                new AdaptiveOptions().setMinDelay(1).setMaxDelay(5).setStatsAddress(null)));
        assertThat(Await.result(bus.<String>request("flaky", "x")).body()).isEqualTo("ok");
        assertThat(bus.limiter().limiter().stats().congestionEvents()).isEqualTo(2);
        Throwable none = Await.failure(AdaptiveEventBus.create(AdaptiveLimiter.create(vertx,
                new AdaptiveOptions().setRetries(1).setMinDelay(1).setMaxDelay(5).setStatsAddress(null)))
                .request("nobody-here", "x"));
        assertThat(none).isInstanceOfSatisfying(ReplyException.class,
                re -> assertThat(re.failureType()).isEqualTo(ReplyFailure.NO_HANDLERS));
    }

    /**
     * The limiter's retry policy reaches the event bus's executor whole: its veto
     * ({@code abortIf}) ends a rate-limited request after its one attempt, and an ordinary
     * failure too, though both budgets have retries left; the rate limit still pauses the
     * limiter. Before, the executor rebuilt the policy from its parts and lost the veto.
     */
    @Test
    void theRetryPolicysVetoEndsARequestAfterItsFirstAttempt(Vertx vertx) {
        AtomicInteger limitedArrivals = alwaysRateLimited(vertx, "vetoed-limited");
        AtomicInteger failedArrivals = new AtomicInteger();
        Await.result(vertx.eventBus().consumer("vetoed-failing", m -> {
            failedArrivals.incrementAndGet();
            m.fail(500, "down");
        }).completion());
        AdaptiveLimiter limiter = AdaptiveLimiter.builder(vertx, new AdaptiveOptions().setStatsAddress(null))
                .retryPolicy(dev.adaptive.retry.RetryPolicy.builder().retries(3).constant()
                        .minDelay(Duration.ofMillis(1)).noJitter().abortIf((error, attempt) -> true).build())
                .build();
        AdaptiveEventBus bus = AdaptiveEventBus.create(limiter);

        assertThat(Await.failure(bus.request("vetoed-limited", "x"))).isInstanceOf(ReplyException.class);
        assertThat(limitedArrivals).as("rate-limited, not retried").hasValue(1);
        assertThat(limiter.limiter().stats().rateLimitEvents()).isEqualTo(1);
        assertThat(limiter.limiter().stats().pausesOpened()).isEqualTo(1);
        Throwable down = Await.failure(bus.request("vetoed-failing", "x"));
        assertThat(down).isInstanceOfSatisfying(ReplyException.class, re -> assertThat(re.failureCode()).isEqualTo(500));
        assertThat(failedArrivals).as("failed, not retried").hasValue(1);
        assertThat(limiter.limiter().stats().retries()).isZero();
    }

    /** Text whose lower-cased form is longer than itself must not move or lose the wait. */
    @ParameterizedTest
    @ValueSource(strings = {
            "quota of tenant İSTANBUL exhausted; retry-after=1",
            "İİİİİİİİİİİİİİİİ quota of tenant İSTANBUL exhausted; retry-after-ms=600"})
    void aWaitAfterTextWithTheDottedCapitalIPausesTheRequestAndItIsSentAgainAfterIt(String failure, Vertx vertx) {
        Duration wait = failure.endsWith("=1") ? Duration.ofSeconds(1) : Duration.ofMillis(600);
        List<Long> arrivals = new CopyOnWriteArrayList<>();
        Await.result(vertx.eventBus().<String>consumer("tenant-quota", m -> {
            arrivals.add(System.nanoTime());
            if (arrivals.size() == 1) {
                m.fail(RateLimitReply.RATE_LIMITED, failure);
            } else {
                m.reply("ok:" + m.body());
            }
        }).completion());
        PauseWatch watch = new PauseWatch();
        AdaptiveLimiter limiter = AdaptiveLimiter.builder(vertx, new AdaptiveOptions().setStatsAddress(null))
                .traceListener(watch).build();
        AdaptiveEventBus bus = AdaptiveEventBus.create(limiter);

        assertThat(Await.result(bus.<String>request("tenant-quota", "x")).body()).isEqualTo("ok:x");
        assertThat(limiter.limiter().stats().rateLimitEvents()).as("read as a rate limit").isEqualTo(1);
        assertThat(limiter.limiter().stats().congestionEvents()).as("not as an error").isZero();
        assertThat(watch.pauses()).as("the wait opened a pause").isEqualTo(1);
        assertThat(watch.dispatchesInsidePauses()).isZero();
        assertThat(arrivals).hasSize(2);
        assertThat(Duration.ofNanos(arrivals.get(1) - arrivals.get(0)))
                .as("the request is sent again only after the announced wait")
                .isGreaterThanOrEqualTo(wait);
    }
}
