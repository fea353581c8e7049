package dev.adaptive.vertx;

import dev.adaptive.RateLimitedException;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RateLimitReplyTest {

    private static final Instant NOW = Instant.parse("2030-01-01T00:00:00Z");
    private static final Clock CLOCK = Clock.fixed(NOW, ZoneOffset.UTC);

    private static Optional<RateLimitedException> read(int code, String message) {
        return RateLimitReply.rateLimited(new ReplyException(ReplyFailure.RECIPIENT_FAILURE, code, message), CLOCK);
    }

    @Test
    void failureMessagesUseSecondsWhenWholeAndMillisecondsRoundedUpOtherwise() {
        assertThat(RateLimitReply.failureMessage(Duration.ofSeconds(2))).isEqualTo("retry-after=2");
        assertThat(RateLimitReply.failureMessage(Duration.ofMillis(1500))).isEqualTo("retry-after-ms=1500");
        assertThat(RateLimitReply.failureMessage(Duration.ofNanos(1_000_001))).isEqualTo("retry-after-ms=2");
        assertThat(RateLimitReply.failureMessage(Duration.ZERO)).isEqualTo("retry-after=0");
        assertThatThrownBy(() -> RateLimitReply.failureMessage(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("retryAfter");
        ReplyException e = RateLimitReply.exception(Duration.ofMillis(250));
        assertThat(e.failureCode()).isEqualTo(429);
        assertThat(e.getMessage()).isEqualTo("retry-after-ms=250");
    }

    @Test
    void code429WithDeltaSecondsMillisecondsOrAnHttpDateIsARateLimitWithThatWait() {
        assertThat(read(429, "retry-after=2")).get().satisfies(rl -> {
            assertThat(rl.retryAfter()).contains(Duration.ofSeconds(2));
            assertThat(rl.getCause()).isInstanceOf(ReplyException.class);
        });
        assertThat(read(429, "retry-after-ms=1500; tenant quota").flatMap(RateLimitedException::retryAfter))
                .contains(Duration.ofMillis(1500));
        assertThat(read(429, "Retry-After=3 ; slow down").flatMap(RateLimitedException::retryAfter))
                .contains(Duration.ofSeconds(3));
        String date = DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US)
                .format(ZonedDateTime.ofInstant(NOW.plusSeconds(7), ZoneOffset.UTC));
        assertThat(read(429, "retry-after=" + date).flatMap(RateLimitedException::retryAfter))
                .contains(Duration.ofSeconds(7));
    }

    @Test
    void code429WithoutAReadableWaitIsStillARateLimitButWithoutAPause() {
        assertThat(read(429, "too many")).get().satisfies(rl -> assertThat(rl.retryAfter()).isEmpty());
        assertThat(read(429, "retry-after=soon")).get().satisfies(rl -> assertThat(rl.retryAfter()).isEmpty());
        assertThat(read(429, "retry-after-ms=-5")).get().satisfies(rl -> assertThat(rl.retryAfter()).isEmpty());
        assertThat(read(429, null)).get().satisfies(rl -> assertThat(rl.retryAfter()).isEmpty());
        assertThat(read(429, "retry-after=Thu, 01 Jan 1970 00:00:00 GMT")).get()
                .satisfies(rl -> assertThat(rl.retryAfter()).as("a date in the past is no wait").isEmpty());
    }

    @Test
    void hostileWaitsAreCapped() {
        assertThat(read(429, "retry-after=1000000000000").flatMap(RateLimitedException::retryAfter))
                .contains(Duration.ofMinutes(10));
        assertThat(read(429, "retry-after-ms=99999999999999999999999").flatMap(RateLimitedException::retryAfter))
                .contains(Duration.ofMinutes(10));
    }

    @Test
    void code503IsARateLimitOnlyWithAWaitAndOtherFailuresNever() {
        assertThat(read(503, "retry-after=1")).isPresent();
        assertThat(read(503, "maintenance")).isEmpty();
        assertThat(read(500, "retry-after=1")).isEmpty();
        assertThat(RateLimitReply.rateLimited(new ReplyException(ReplyFailure.TIMEOUT, 429, "retry-after=1"), CLOCK)).isEmpty();
        assertThat(RateLimitReply.rateLimited(new IllegalStateException("retry-after=1"), CLOCK)).isEmpty();
        RateLimitedException own = new RateLimitedException(Duration.ofSeconds(1));
        assertThat(RateLimitReply.rateLimited(own, CLOCK)).containsSame(own);
    }

    @Test
    void textThatChangesLengthWhenLowerCasedDoesNotMoveTheWait() {
        // "İ" (U+0130) lower-cases to two chars: a search in lower-cased text lands one char
        // late in the original per "İ" before the key.
        assertThat(read(429, "quota of tenant İSTANBUL exhausted; retry-after=30").flatMap(RateLimitedException::retryAfter))
                .contains(Duration.ofSeconds(30));
        assertThat(read(429, "İZMİR: retry-after-ms=1500; then İSTANBUL").flatMap(RateLimitedException::retryAfter))
                .contains(Duration.ofMillis(1500));
        String many = "İ".repeat(20);
        assertThat(read(429, many + " retry-after=2").flatMap(RateLimitedException::retryAfter))
                .as("more \"İ\" than the value is long used to cut past the end")
                .contains(Duration.ofSeconds(2));
        assertThat(read(503, many + " RETRY-AFTER-MS=250; " + many).flatMap(RateLimitedException::retryAfter))
                .contains(Duration.ofMillis(250));
        assertThat(RateLimitReply.retryAfter(many, CLOCK)).isEmpty();
    }

    @Test
    void keysAreAsciiInAnyCaseAndNoLookAlikeStandsForThem() {
        assertThat(RateLimitReply.retryAfter("ReTrY-aFtEr-Ms=7", CLOCK)).contains(Duration.ofMillis(7));
        // The long s (U+017F) upper-cases to S, and the Kelvin sign (U+212A) lower-cases to k.
        assertThat(RateLimitReply.retryAfter("retry-after-m\u017F=7", CLOCK)).isEmpty();
        assertThat(RateLimitReply.retryAfter("retry-after-m\u017F=7; retry-after=3", CLOCK))
                .contains(Duration.ofSeconds(3));
        // Digits of other scripts are not a wait in milliseconds.
        assertThat(RateLimitReply.retryAfter("retry-after-ms=\u0661\u0662\u0663", CLOCK)).isEmpty();
    }
}
