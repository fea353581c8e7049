package dev.adaptive.examples;

import dev.adaptive.examples.server.FlakyModel;
import dev.adaptive.examples.server.FlakyServer;
import dev.adaptive.examples.server.ServerCounters;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The embedded server follows its model: 429 past the hard cap, windows counted. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FlakyServerTest {

    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    @Test
    void aBurstPastTheHardCapIsRefusedWithRetryAfterAndLaterArrivalsAreCounted() throws Exception {
        // A slow base keeps the burst's first requests in flight while the rest arrive.
        try (FlakyServer server = FlakyServer.start(new FlakyModel(1500, 2, 4, 30, 0.0))) {
            List<CompletableFuture<HttpResponse<String>>> burst = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                burst.add(get(server.uri().resolve("/items/" + i)));
            }
            List<HttpResponse<String>> answers = burst.stream().map(CompletableFuture::join).toList();
            List<HttpResponse<String>> refused = answers.stream().filter(r -> r.statusCode() == 429).toList();
            assertThat(refused).isNotEmpty();
            assertThat(refused).allSatisfy(r -> assertThat(r.headers().firstValue("Retry-After")).hasValue("30"));
            assertThat(answers.stream().filter(r -> r.statusCode() == 200).count()).isBetween(1L, 4L);
            assertThat(answers.stream().filter(r -> r.statusCode() == 200).map(HttpResponse::body))
                    .allSatisfy(body -> assertThat(body).startsWith("item "));

            ServerCounters before = server.counters();
            get(server.uri().resolve("/items/late")).join();   // inside the 30 s window
            ServerCounters after = server.counters();

            assertThat(after.arrivals()).isEqualTo(11);
            assertThat(after.rateLimited()).isEqualTo(refused.size());
            assertThat(after.arrivalsDuringRetryAfter()).isEqualTo(before.arrivalsDuringRetryAfter() + 1);
            assertThat(after.peakInflight()).isGreaterThan(4);

            server.reset();
            get(server.uri().resolve("/items/0")).join();
            assertThat(server.counters().arrivalsDuringRetryAfter()).isZero();
            assertThat(server.counters().arrivals()).isEqualTo(1);
        }
    }

    @Test
    void latencyFollowsTheModel() {
        FlakyModel s3 = FlakyModel.s3();
        assertThat(s3.latency(1, 0.5)).isEqualTo(Duration.ofMillis(40));
        assertThat(s3.latency(6, 0.5)).isEqualTo(Duration.ofMillis(40));
        assertThat(s3.latency(12, 0.5)).isEqualTo(Duration.ofMillis(80));   // (1 + (6/6)^2)
        assertThat(s3.overHardCap(12)).isFalse();
        assertThat(s3.overHardCap(13)).isTrue();
        assertThat(new FlakyModel(40, 6, 12, 1, 0.5).latency(1, 0.0)).isEqualTo(Duration.ofMillis(20));
    }

    @Test
    void badParametersNameTheOptionAndTheValue() {
        assertThatThrownBy(() -> new FlakyModel(0, 6, 12, 1, 0)).hasMessage("base-ms must be >= 1: 0");
        assertThatThrownBy(() -> new FlakyModel(40, 6, 5, 1, 0)).hasMessage("hard must be >= soft (6): 5");
        assertThatThrownBy(() -> new FlakyModel(40, 6, 12, 0, 0)).hasMessage("retry-after must be >= 1 second: 0");
        assertThatThrownBy(() -> new FlakyModel(40, 6, 12, 1, 1.0)).hasMessage("jitter must be in [0, 1): 1.0");
    }

    private CompletableFuture<HttpResponse<String>> get(URI uri) {
        return client.sendAsync(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30)).build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
