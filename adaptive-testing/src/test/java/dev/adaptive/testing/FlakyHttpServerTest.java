package dev.adaptive.testing;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The loopback server follows its model, scripts single behaviours and survives its own outages. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FlakyHttpServerTest {

    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    @Test
    void aBurstPastTheHardCapIsRefusedWithRetryAfterAndLaterArrivalsAreCounted() {
        // A slow base keeps the burst's first requests in flight while the rest arrive.
        try (FlakyHttpServer server = FlakyHttpServer.builder(FlakyModel.of(1500, 2, 4, Duration.ofSeconds(30)))
                .okBody(path -> "item " + path.substring(path.lastIndexOf('/') + 1)).start()) {
            List<CompletableFuture<HttpResponse<String>>> burst = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                burst.add(get(server.url("/items/" + i)));
            }
            List<HttpResponse<String>> answers = burst.stream().map(CompletableFuture::join).toList();
            List<HttpResponse<String>> refused = answers.stream().filter(r -> r.statusCode() == 429).toList();
            assertThat(refused).isNotEmpty();
            assertThat(refused).allSatisfy(r -> assertThat(r.headers().firstValue("Retry-After")).hasValue("30"));
            assertThat(answers.stream().filter(r -> r.statusCode() == 200).count()).isBetween(1L, 4L);
            assertThat(answers.stream().filter(r -> r.statusCode() == 200).map(HttpResponse::body))
                    .allSatisfy(body -> assertThat(body).startsWith("item "));
            assertThat(answers).allSatisfy(r -> assertThat(r.headers().firstValue(FlakyHttpServer.PATH_HEADER))
                    .hasValueSatisfying(p -> assertThat(r.uri().getPath()).isEqualTo(p)));

            DownstreamStats before = server.stats();
            get(server.url("/items/late")).join(); // inside the 30 s window
            DownstreamStats after = server.stats();

            assertThat(after.arrivals()).isEqualTo(11);
            assertThat(after.tooMany()).isEqualTo(refused.size());
            assertThat(after.arrivalsDuringRetryAfter()).isEqualTo(before.arrivalsDuringRetryAfter() + 1);
            assertThat(after.peak()).isGreaterThan(4);
            assertThat(server.arrivals()).hasSize(11).last().satisfies(a -> {
                assertThat(a.path()).isEqualTo("/items/late");
                assertThat(a.duringRetryAfter()).isTrue();
            });

            server.reset();
            get(server.url("/items/0")).join();
            assertThat(server.stats().arrivalsDuringRetryAfter()).isZero();
            assertThat(server.stats().arrivals()).isEqualTo(1);
        }
    }

    @Test
    void silent429sCarryNoRetryAfterHeader() {
        try (FlakyHttpServer server = FlakyHttpServer.builder(FlakyModel.of(1500, 2, 4, Duration.ofSeconds(30))).start()) {
            server.downstream().withoutRetryAfter();
            List<CompletableFuture<HttpResponse<String>>> burst = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                burst.add(get(server.url("/items/" + i)));
            }
            List<HttpResponse<String>> refused = burst.stream().map(CompletableFuture::join)
                    .filter(r -> r.statusCode() == 429).toList();
            assertThat(refused).isNotEmpty();
            assertThat(refused).allSatisfy(r -> assertThat(r.headers().firstValue("Retry-After")).isEmpty());
            get(server.url("/items/late")).join();
            assertThat(server.stats().tooMany()).isEqualTo(refused.size());
            assertThat(server.downstream().rawArrivalsDuringRetryAfter()).as("no window was announced").isZero();
        }
    }

    @Test
    void windowsAreJudgedPerClientAndByWhatTheClientHadRead() {
        try (FlakyHttpServer server = FlakyHttpServer.start(FlakyModel.s3())) {
            assertThat(send(server, "/status/429?retryAfter=30", "a", 0).statusCode()).isEqualTo(429);
            send(server, "/x", "a", 0);  // a's window, sent before a read the 429
            send(server, "/x", "a", 1);  // a's window, sent after
            send(server, "/x", "b", 1);  // inside a's window, but b was never told
            assertThat(server.arrivalsDuringRetryAfter()).isEqualTo(2);
            assertThat(server.rawArrivalsInsideWindows()).isEqualTo(3);
            assertThat(server.arrivalsInsideWindows()).isEqualTo(2);
            assertThat(server.arrivals()).extracting(Arrival::client).containsExactly("a", "a", "a", "b");
        }
    }

    @Test
    void scriptedPathsAnswerOneBehaviourEach() {
        try (FlakyHttpServer server = FlakyHttpServer.start(FlakyModel.s3())) {
            HttpResponse<String> status = get(server.url("/status/503?retryAfter=7")).join();
            assertThat(status.statusCode()).isEqualTo(503);
            assertThat(status.headers().firstValue("Retry-After")).hasValue("7");
            assertThat(get(server.url("/first429/k")).join().statusCode()).isEqualTo(429);
            assertThat(get(server.url("/first429/k")).join().statusCode()).isEqualTo(200);
            assertThat(get(server.url("/first429/other")).join().statusCode()).isEqualTo(429);
            assertThat(get(server.url("/warm")).join().statusCode()).isEqualTo(200);
            server.rateLimitNext();
            HttpResponse<String> limited = get(server.url("/model")).join();
            assertThat(limited.statusCode()).isEqualTo(429);
            assertThat(limited.headers().firstValue("Retry-After")).hasValue("1");
            assertThat(get(server.url("/model")).join().body()).isEqualTo("ok");
            assertThat(server.arrivals()).as("/warm is not recorded").hasSize(6);
            assertThat(server.rateLimitedAnswers()).isEqualTo(3);
            assertThat(server.errorAnswers()).isEqualTo(1);
            assertThat(server.served()).isEqualTo(2);
            assertThat(server.inflight()).isZero();
        }
    }

    @Test
    void aQuotaIsAnnouncedAndAnOutageAnswers500() {
        try (FlakyHttpServer server = FlakyHttpServer.start(FlakyModel.of(5, 10, 10, Duration.ofSeconds(1)))) {
            server.downstream().withQuota(2, Duration.ofSeconds(60)).withOutage(Duration.ofMinutes(10), Duration.ofSeconds(1));
            assertThat(get(server.url("/")).join().headers().firstValue("RateLimit")).hasValue("\"default\";r=1;t=60");
            assertThat(get(server.url("/")).join().headers().firstValue("RateLimit")).hasValue("\"default\";r=0;t=60");
            HttpResponse<String> over = get(server.url("/")).join();
            assertThat(over.statusCode()).isEqualTo(429);
            assertThat(over.headers().firstValue("Retry-After")).hasValue("60");
        }
        try (FlakyHttpServer server = FlakyHttpServer.start(FlakyModel.of(5, 10, 10, Duration.ofSeconds(1)))) {
            server.downstream().withOutage(Duration.ZERO, Duration.ofMinutes(10));
            assertThat(get(server.url("/")).join().statusCode()).isEqualTo(500);
            assertThat(server.downstream().outageArrivals()).containsExactly(1, 0);
        }
    }

    @Test
    void anOutageBegunOnAnEventAnswers500FromThenOn() {
        try (FlakyHttpServer server = FlakyHttpServer.start(FlakyModel.of(5, 10, 10, Duration.ofSeconds(1)))) {
            assertThat(get(server.url("/")).join().statusCode()).isEqualTo(200);
            server.downstream().withOutageFromNow(Duration.ofMinutes(10));
            assertThat(get(server.url("/")).join().statusCode()).isEqualTo(500);
            assertThat(server.downstream().outageArrivals()).as("only the request after it began").containsExactly(1, 0);
            assertThatThrownBy(() -> server.downstream().withOutageFromNow(Duration.ZERO))
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void heldRequestsAreCutWhenItStopsAndItComesBackOnTheSamePort() throws Exception {
        try (FlakyHttpServer server = FlakyHttpServer.start(FlakyModel.holding(1))) {
            int port = server.port();
            server.holdAfter(1);
            assertThat(get(server.url("/answered")).join().statusCode()).isEqualTo(200);
            CompletableFuture<HttpResponse<String>> held = get(server.url("/held/1"));
            CompletableFuture<HttpResponse<String>> held2 = get(server.url("/held/2"));
            assertThat(server.awaitHeld(2, Duration.ofSeconds(30))).isTrue();
            server.whenArrived(3).get(30, TimeUnit.SECONDS);
            assertThat(held).isNotDone();
            assertThat(server.heldPaths()).containsExactlyInAnyOrder("/held/1", "/held/2");
            assertThat(server.inflight()).as("held requests never reach the model").isZero();

            server.stop();
            assertThatThrownBy(held::join).isInstanceOf(CompletionException.class).hasCauseInstanceOf(IOException.class);
            assertThatThrownBy(held2::join).hasCauseInstanceOf(IOException.class);
            assertThatThrownBy(() -> get(server.url("/down")).join()).hasCauseInstanceOf(IOException.class);

            server.restart();
            assertThat(server.port()).isEqualTo(port);
            assertThat(server.lives()).isEqualTo(2);
            assertThat(get(server.url("/back")).join().statusCode()).as("holding ended with the stop").isEqualTo(200);
            assertThat(server.heldPaths()).hasSize(2);
            assertThatThrownBy(server::restart).isInstanceOf(IllegalStateException.class);

            server.holding(true);
            CompletableFuture<HttpResponse<String>> hung = get(server.url("/hung"));
            assertThat(server.awaitHeld(3, Duration.ofSeconds(30))).isTrue();
            server.holding(false);
            assertThat(get(server.url("/released")).join().statusCode()).isEqualTo(200);
            assertThat(hung).as("a held request stays held").isNotDone();
            assertThat(server.awaitHeld(4, Duration.ofMillis(1))).isFalse();
        }
    }

    @Test
    void aTakenPortAndBadOptionsFailNamingThem() {
        try (FlakyHttpServer server = FlakyHttpServer.start(FlakyModel.s3())) {
            assertThatThrownBy(() -> FlakyHttpServer.builder(FlakyModel.s3()).port(server.port()).start())
                    .hasMessageContaining("port " + server.port());
        }
        assertThatThrownBy(() -> FlakyHttpServer.builder(FlakyModel.s3()).port(70_000))
                .hasMessage("port must be in [0, 65535]: 70000");
        assertThatThrownBy(() -> FlakyModel.of(0, 6, 12, Duration.ofSeconds(1))).hasMessage("base must be > 0 ms: 0.0");
        assertThatThrownBy(() -> FlakyModel.of(40, 6, 5, Duration.ofSeconds(1))).hasMessage("hard must be >= soft (6): 5");
        assertThatThrownBy(() -> FlakyModel.of(40, 6, 12, Duration.ZERO)).hasMessage("retry-after must be positive: PT0S");
        assertThatThrownBy(() -> new FlakyModel(40, 6, 12, Duration.ofSeconds(1), 1.0, 0, 1, 0, 0))
                .hasMessage("jitter must be in [0, 1): 1.0");
        assertThatThrownBy(() -> new FlakyModel(40, 6, 12, Duration.ofSeconds(1), 0, 0, 0.5, 0, 0))
                .hasMessage("tail factor must be >= 1: 0.5");
        assertThatThrownBy(() -> new FlakyModel(40, 6, 12, Duration.ofSeconds(1), 0, 2, 1, 0, 0))
                .hasMessage("tailProbability must be in [0, 1]: 2.0");
        assertThatThrownBy(() -> new FlakyModel(40, 6, 12, Duration.ofSeconds(1), 0, 0, 1, -0.1, 0))
                .hasMessage("transientProbability must be in [0, 1]: -0.1");
        assertThatThrownBy(() -> new FlakyModel(40, 6, 12, Duration.ofSeconds(1), 0, 0, 1, 0, 1.5))
                .hasMessage("overCapErrorShare must be in [0, 1]: 1.5");
    }

    @Test
    void latencyIsFlatUpToSoftThenGrowsQuadratically() {
        FlakyModel s3 = FlakyModel.s3();
        assertThat(s3.congestedMillis(1)).isEqualTo(40);
        assertThat(s3.congestedMillis(6)).isEqualTo(40);
        assertThat(s3.congestedMillis(12)).isEqualTo(80); // (1 + (6/6)^2)
        assertThat(s3.flat()).isFalse();
        assertThat(FlakyModel.holding(20).congestedMillis(10_000)).isEqualTo(20);
    }

    private HttpResponse<String> send(FlakyHttpServer server, String path, String clientName, long read429s) {
        try {
            return client.send(HttpRequest.newBuilder(URI.create(server.url(path))).timeout(Duration.ofSeconds(30))
                    .header(FlakyHttpServer.CLIENT_HEADER, clientName)
                    .header(FlakyHttpServer.READ_429S_HEADER, Long.toString(read429s)).build(),
                    HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new AssertionError(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    private CompletableFuture<HttpResponse<String>> get(String url) {
        return client.sendAsync(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30)).build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
