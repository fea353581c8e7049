package dev.adaptive.retry;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.time.Duration;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

import static java.time.Duration.ofMillis;
import static java.time.Duration.ofSeconds;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.params.provider.Arguments.arguments;

class RetryPolicyTest {

    @Test
    void defaults() {
        RetryPolicy p = RetryPolicy.defaults();

        assertThat(p.retries()).isEqualTo(3);
        assertThat(p.backoff()).isEqualTo(new Backoff(Backoff.Kind.EXPONENTIAL, ofMillis(100), ofSeconds(30), 0.2));
        assertThat(p.maxRateLimitRetries()).isEqualTo(10);
        assertThat(p.maxRetryAfter()).isEqualTo(Duration.ofMinutes(10));
        assertThat(p.retryOn()).isSameAs(RetryClassifier.all());
        assertThat(p.abortIf()).hasToString("never");
        assertThat(p.shouldAbort(new IllegalStateException("down"), 1)).isFalse();
        assertThat(p.random().getAsDouble()).isGreaterThanOrEqualTo(0).isLessThan(1);
        assertThat(RetryPolicy.builder().build()).hasToString(p.toString());
    }

    @Test
    void noneNeverRetries() {
        assertThat(RetryPolicy.none().retries()).isZero();
        assertThat(RetryPolicy.none().maxRateLimitRetries()).isZero();
    }

    @Test
    void toStringListsEveryOption() {
        assertThat(RetryPolicy.defaults().toString()).contains("retries=3", "backoff=EXPONENTIAL", "minDelay=PT0.1S",
                "maxDelay=PT30S", "jitter=0.2", "maxRateLimitRetries=10", "maxRetryAfter=PT10M", "retryOn=all",
                "abortIf=never", "random=ThreadLocalRandom");
    }

    static Stream<Arguments> badOptions() {
        return Stream.of(
                bad(b -> b.retries(-1), "retries must be >= 0: -1"),
                bad(b -> b.maxRateLimitRetries(-1), "maxRateLimitRetries must be >= 0: -1"),
                bad(b -> b.maxRetryAfter(Duration.ZERO), "maxRetryAfter must be positive: PT0S"),
                bad(b -> b.maxRetryAfter(ofSeconds(-1)), "maxRetryAfter must be positive: PT-1S"),
                bad(b -> b.minDelay(ofMillis(-1)), "minDelay must be >= 0: PT-0.001S"),
                bad(b -> b.maxDelay(ofMillis(50)), "maxDelay must be >= minDelay (PT0.1S): PT0.05S"),
                bad(b -> b.minDelay(ofMinutes(1)), "maxDelay must be >= minDelay (PT1M): PT30S"),
                bad(b -> b.jitter(-0.5), "jitter must be in [0, 1]: -0.5"),
                bad(b -> b.jitter(1.5), "jitter must be in [0, 1]: 1.5"),
                bad(b -> b.jitter(Double.NaN), "jitter must be in [0, 1]: NaN"));
    }

    private static Duration ofMinutes(long minutes) {
        return Duration.ofMinutes(minutes);
    }

    private static Arguments bad(UnaryOperator<RetryPolicy.Builder> option, String message) {
        return arguments(option, message);
    }

    @ParameterizedTest(name = "{1}")
    @MethodSource("badOptions")
    void buildRejectsBadOptionsNamingOptionAndValue(UnaryOperator<RetryPolicy.Builder> option, String message) {
        RetryPolicy.Builder builder = option.apply(RetryPolicy.builder());
        assertThatThrownBy(builder::build).isInstanceOf(IllegalArgumentException.class).hasMessage(message);
    }

    @Test
    void nullOptionsAreRejectedAtOnceNamingTheOption() {
        RetryPolicy.Builder b = RetryPolicy.builder();
        assertNpe(() -> b.minDelay(null), "minDelay");
        assertNpe(() -> b.maxDelay(null), "maxDelay");
        assertNpe(() -> b.maxRetryAfter(null), "maxRetryAfter");
        assertNpe(() -> b.retryOn(null), "retryOn");
        assertNpe(() -> b.abortIf(null), "abortIf");
        assertNpe(() -> b.random(null), "random");
        assertNpe(() -> b.backoff(null), "backoff");
    }

    private static void assertNpe(Executable call, String option) {
        assertThatThrownBy(call::execute).isInstanceOf(NullPointerException.class).hasMessage(option);
    }

    @Test
    void kindsAndDelaysFromTheBuilder() {
        RetryPolicy.Builder b = RetryPolicy.builder().noJitter().minDelay(ofMillis(10)).maxDelay(ofSeconds(1));

        assertThat(b.constant().build().delayBeforeRetry(3)).isEqualTo(ofMillis(10));
        assertThat(b.linear().build().delayBeforeRetry(3)).isEqualTo(ofMillis(30));
        assertThat(b.exponential().build().delayBeforeRetry(3)).isEqualTo(ofMillis(40));
        assertThat(b.exponential().build().delayBeforeRetry(1000)).isEqualTo(ofSeconds(1));
    }

    @Test
    void jitterComesFromTheInjectedRandom() {
        RetryPolicy p = RetryPolicy.builder().constant().minDelay(ofSeconds(1)).jitter().random(() -> 0.0).build();

        assertThat(p.backoff().jitter()).isEqualTo(0.5);
        assertThat(p.delayBeforeRetry(1)).isEqualTo(ofMillis(500));
        assertThat(p.toString()).contains("random=custom");
    }

    @Test
    void backoffReplacesKindDelaysAndJitterAtOnce() {
        Backoff linear = Backoff.linear(ofMillis(5), ofMillis(50)).withJitter(0.1);

        assertThat(RetryPolicy.builder().backoff(linear).build().backoff()).isEqualTo(linear);
        assertThat(RetryPolicy.builder().backoff(linear).noJitter().build().backoff()).isEqualTo(linear.withJitter(0));
    }

    @Test
    void aBuilderKeepsBuildingIndependentPolicies() {
        RetryPolicy.Builder b = RetryPolicy.builder().retries(1);
        RetryPolicy first = b.build();
        RetryPolicy second = b.retries(7).build();

        assertThat(first.retries()).isEqualTo(1);
        assertThat(second.retries()).isEqualTo(7);
    }

    @Test
    void shouldRetryAsksTheClassifier() {
        RetryPolicy onIo = RetryPolicy.builder().retryOn(RetryClassifier.on(IOException.class)).build();

        assertThat(onIo.shouldRetry(new IOException(), 1)).isTrue();
        assertThat(onIo.shouldRetry(new IllegalStateException(), 1)).isFalse();
    }

    @Test
    void aThrowingClassifierMeansRetry() {
        RetryPolicy p = RetryPolicy.builder().retryOn((error, attempt) -> {
            throw new IllegalStateException("broken classifier");
        }).build();

        assertThat(p.shouldRetry(new IOException(), 1)).isTrue();
    }

    @Test
    void retryAfterIsCappedNeverNegativeAndNeverJittered() {
        RetryPolicy p = RetryPolicy.builder().maxRetryAfter(ofSeconds(60)).jitter(1).random(() -> 0.0).build();

        assertThat(p.cappedRetryAfter(ofSeconds(5))).isEqualTo(ofSeconds(5));
        assertThat(p.cappedRetryAfter(ofSeconds(60))).isEqualTo(ofSeconds(60));
        assertThat(p.cappedRetryAfter(Duration.ofHours(3))).isEqualTo(ofSeconds(60));
        assertThat(p.cappedRetryAfter(ofSeconds(-5))).isZero();
        assertThat(p.cappedRetryAfter(Duration.ZERO)).isZero();
    }

    @Test
    void shouldAbortAsksTheVeto() {
        RetryPolicy p = RetryPolicy.builder().abortIf(RetryClassifier.on(SecurityException.class)).build();

        assertThat(p.shouldAbort(new SecurityException(), 1)).isTrue();
        assertThat(p.shouldAbort(new IOException(), 1)).isFalse();
        assertThatThrownBy(() -> p.shouldAbort(null, 1)).isInstanceOf(NullPointerException.class).hasMessage("error");
    }

    @Test
    void aThrowingVetoMeansDoNotAbort() {
        for (Throwable t : new Throwable[] {new IllegalStateException("broken veto"), new AssertionError("broken veto")}) {
            RetryPolicy p = RetryPolicy.builder().abortIf((error, attempt) -> {
                if (t instanceof Error e) {
                    throw e;
                }
                throw (RuntimeException) t;
            }).build();

            assertThat(p.shouldAbort(new IOException(), 1)).as("veto throwing %s", t).isFalse();
        }
    }

    @Test
    void toBuilderKeepsEveryOption() {
        RetryClassifier retryOn = RetryClassifier.on(IOException.class);
        RetryClassifier abortIf = RetryClassifier.on(SecurityException.class);
        java.util.function.DoubleSupplier random = () -> 0.25;
        RetryPolicy p = RetryPolicy.builder().retries(5).linear().minDelay(ofMillis(20)).maxDelay(ofSeconds(2)).jitter(0.3)
                .maxRateLimitRetries(4).maxRetryAfter(ofSeconds(90)).retryOn(retryOn).abortIf(abortIf).random(random)
                .build();

        RetryPolicy copy = p.toBuilder().build();

        assertThat(copy).hasToString(p.toString());
        assertThat(copy.backoff()).isEqualTo(p.backoff());
        assertThat(copy.retryOn()).isSameAs(retryOn);
        assertThat(copy.abortIf()).isSameAs(abortIf);
        assertThat(copy.random()).isSameAs(random);
        assertThat(p.toBuilder().retries(0).build().retries()).isZero();
        assertThat(p.retries()).isEqualTo(5);
    }
}
