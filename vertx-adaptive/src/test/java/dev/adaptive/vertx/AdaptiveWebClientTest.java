package dev.adaptive.vertx;

import dev.adaptive.LimiterClosedException;
import dev.adaptive.limit.Outcome;
import dev.adaptive.retry.Quota;
import dev.adaptive.testing.Until;
import dev.adaptive.trace.TraceEvent;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.codec.BodyCodec;
import io.vertx.junit5.VertxExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.net.ConnectException;
import java.net.ServerSocket;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayDeque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@ExtendWith(VertxExtension.class)
class AdaptiveWebClientTest {

    private static final DateTimeFormatter IMF_FIXDATE =
            DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US);

    /** Per path, the answers to give in order; the last one repeats. */
    private final Map<String, ArrayDeque<Consumer<HttpServerRequest>>> script = new ConcurrentHashMap<>();
    private final List<Long> arrivalsWallMs = new CopyOnWriteArrayList<>();
    private final List<String> bodies = new CopyOnWriteArrayList<>();
    private int port;

    @BeforeEach
    void startServer(Vertx vertx) {
        HttpServer server = Await.result(vertx.createHttpServer(new HttpServerOptions().setHost("127.0.0.1").setPort(0))
                .requestHandler(req -> req.body().onSuccess(body -> {
                    arrivalsWallMs.add(System.currentTimeMillis());
                    bodies.add(body.toString());
                    ArrayDeque<Consumer<HttpServerRequest>> answers = script.get(req.path());
                    Consumer<HttpServerRequest> answer = answers.size() > 1 ? answers.poll() : answers.peek();
                    answer.accept(req);
                })).listen());
        port = server.actualPort();
    }

    @SafeVarargs
    private void answer(String path, Consumer<HttpServerRequest>... answers) {
        ArrayDeque<Consumer<HttpServerRequest>> queue = new ArrayDeque<>();
        for (Consumer<HttpServerRequest> a : answers) {
            queue.add(a);
        }
        script.put(path, queue);
    }

    /** @param headers names and values, in pairs */
    private static Consumer<HttpServerRequest> status(int code, String... headers) {
        return req -> {
            var resp = req.response().setStatusCode(code);
            for (int i = 0; i + 1 < headers.length; i += 2) {
                resp.putHeader(headers[i], headers[i + 1]);
            }
            resp.end("status " + code);
        };
    }

    /** @return a limiter that records the outcome of every attempt's end */
    private static AdaptiveLimiter recording(Vertx vertx, List<Outcome> outcomes) {
        return AdaptiveLimiter.builder(vertx, fast()).traceListener(e -> {
            if (e instanceof TraceEvent.TaskEnd end) {
                outcomes.add(end.outcome());
            }
        }).build();
    }

    private static AdaptiveOptions fast() {
        return new AdaptiveOptions().setMinDelay(1).setMaxDelay(5).setStatsAddress(null);
    }

    @Test
    void a503WithAnHttpDateRetryAfterPausesUntilThatDateThenSucceeds(Vertx vertx) {
        Instant until = Instant.ofEpochSecond(System.currentTimeMillis() / 1000 + 2);
        String date = IMF_FIXDATE.format(ZonedDateTime.ofInstant(until, ZoneOffset.UTC));
        answer("/date", status(503, "Retry-After", date), status(200));
        AdaptiveWebClient client = AdaptiveWebClient.create(WebClient.create(vertx),
                AdaptiveLimiter.create(vertx, fast().setRetries(0)));
        HttpResponse<Buffer> r = Await.result(client.send(client.get(port, "127.0.0.1", "/date")));
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(arrivalsWallMs).hasSize(2);
        assertThat(arrivalsWallMs.get(1)).as("the retry waited for the announced date")
                .isGreaterThanOrEqualTo(until.toEpochMilli());
        assertThat(client.limiter().limiter().stats().rateLimitEvents()).isEqualTo(1);
    }

    /**
     * A 503's Retry-After date one millisecond ahead, read across a tick of the clock: it is
     * parsed once, so the wait that made the 503 a rate limit is the wait the limiter is told of.
     */
    @Test
    void a503sRetryAfterIsReadOnceSoATickOfTheClockCannotChangeIt(Vertx vertx) {
        Instant date = Instant.parse("2030-01-01T00:00:00Z");
        java.util.concurrent.atomic.AtomicInteger reads = new java.util.concurrent.atomic.AtomicInteger();
        java.time.Clock ticking = new java.time.Clock() {
            @Override
            public Instant instant() {
                // The first read is 1 ms before the date, every later one at it (a tick between).
                return reads.getAndIncrement() == 0 ? date.minusMillis(1) : date;
            }

            @Override
            public java.time.ZoneId getZone() {
                return ZoneOffset.UTC;
            }

            @Override
            public java.time.Clock withZone(java.time.ZoneId zone) {
                return this;
            }
        };
        answer("/tick", status(503, "Retry-After", IMF_FIXDATE.format(ZonedDateTime.ofInstant(date, ZoneOffset.UTC))),
                status(200));
        List<Outcome> outcomes = new CopyOnWriteArrayList<>();
        AdaptiveWebClient client = AdaptiveWebClient.create(WebClient.create(vertx), recording(vertx, outcomes),
                new AdaptiveWebClientOptions(), ticking);
        HttpResponse<Buffer> r = Await.result(client.send(client.get(port, "127.0.0.1", "/tick")));
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(outcomes).as("the 503, as the wait it was first read with, then the 200")
                .containsExactly(Outcome.rateLimited(Duration.ofMillis(1)), Outcome.SUCCESS);
    }

    /**
     * {@code maxRetryAfter} is the cap on one Retry-After pause, above its default of 10 minutes
     * too (core.md: raise it for a server whose quotas are longer): a 429 asking for 20 minutes
     * from a client allowed an hour pauses 20 minutes, not 10, and says so in its outcome.
     */
    @Test
    void aRetryAfterPastTenMinutesIsCappedByMaxRetryAfterAlone(Vertx vertx) {
        answer("/quota", status(429, "Retry-After", "1200"));
        List<Outcome> outcomes = new CopyOnWriteArrayList<>();
        AdaptiveLimiter limiter = AdaptiveLimiter.builder(vertx, fast().setMaxRetryAfter(Duration.ofHours(1).toMillis()))
                .traceListener(e -> {
                    if (e instanceof TraceEvent.TaskEnd end) {
                        outcomes.add(end.outcome());
                    }
                }).build();
        AdaptiveWebClient client = AdaptiveWebClient.create(WebClient.create(vertx), limiter);
        Future<HttpResponse<Buffer>> call = client.send(client.get(port, "127.0.0.1", "/quota"));
        Until.met("the 429 was read", Duration.ofSeconds(30), () -> !outcomes.isEmpty());
        assertThat(outcomes.get(0)).isEqualTo(Outcome.rateLimited(Duration.ofMinutes(20)));
        assertThat(new AdaptiveLimiterStats(limiter.stats()).getPausedForMs()).as("what is left of the pause")
                .isGreaterThan(Duration.ofMinutes(19).toMillis());
        limiter.close();
        assertThat(Await.failure(call)).isInstanceOf(LimiterClosedException.class);
    }

    @Test
    void a503WithoutRetryAfterIsAnErrorRetriedWithBackoffAndTheLastResponseIsKept(Vertx vertx) {
        answer("/down", status(503));
        AdaptiveWebClient client = AdaptiveWebClient.create(WebClient.create(vertx),
                AdaptiveLimiter.create(vertx, fast().setRetries(2)));
        Throwable t = Await.failure(client.send(client.get(port, "127.0.0.1", "/down")));
        assertThat(t).isInstanceOfSatisfying(HttpStatusException.class, e -> {
            assertThat(e.statusCode()).isEqualTo(503);
            assertThat(e.response().bodyAsString()).isEqualTo("status 503");
            assertThat(e).hasMessageContaining("GET 127.0.0.1:" + port + "/down");
        });
        assertThat(arrivalsWallMs).hasSize(3);
        assertThat(client.limiter().limiter().stats().congestionEvents()).isEqualTo(3);
        assertThat(client.limiter().limiter().stats().rateLimitEvents()).isZero();
    }

    @Test
    void a429IsRetriedOnItsOwnBudgetAndReportedWithItsResponseWhenThatRunsOut(Vertx vertx) {
        answer("/busy", status(429, "Retry-After", "0"));
        AdaptiveWebClient client = AdaptiveWebClient.create(WebClient.create(vertx),
                AdaptiveLimiter.create(vertx, fast().setRetries(0).setMaxRateLimitRetries(3)));
        Throwable t = Await.failure(client.send(client.get(port, "127.0.0.1", "/busy")));
        assertThat(t).isInstanceOfSatisfying(HttpRateLimitedException.class, e -> {
            assertThat(e.statusCode()).isEqualTo(429);
            assertThat(e.rawRetryAfter()).contains("0");
            assertThat(e.response().bodyAsString()).isEqualTo("status 429");
        });
        assertThat(arrivalsWallMs).hasSize(4);
    }

    @Test
    void whenTheRetryBudgetRefusesARetryTheLastResponseIsReportedToo(Vertx vertx) {
        answer("/spent", status(429, "Retry-After", "0"));
        AdaptiveLimiter limiter = AdaptiveLimiter.create(vertx, fast().setRetryBudgetRatio(0).setRetryBudgetMinPerSecond(0));
        AdaptiveWebClient client = AdaptiveWebClient.create(WebClient.create(vertx), limiter);
        Throwable t = Await.failure(client.send(client.get(port, "127.0.0.1", "/spent")));
        assertThat(t).isInstanceOfSatisfying(HttpRateLimitedException.class, e -> {
            assertThat(e.statusCode()).isEqualTo(429);
            assertThat(e.response().bodyAsString()).isEqualTo("status 429");
        });
        assertThat(arrivalsWallMs).hasSize(1);
        assertThat(limiter.limiter().stats().retriesRefused()).isEqualTo(1);
    }

    /**
     * A JSON client whose 429 comes as text (a gateway's): the codec fails on the body, but the
     * status and Retry-After, read from the answer's head, still pause every request until then.
     */
    @Test
    void a429WhoseBodyTheCodecCannotDecodeStillPausesForItsRetryAfter(Vertx vertx) {
        answer("/json", req -> req.response().setStatusCode(429).putHeader("Retry-After", "1")
                        .putHeader("Content-Type", "text/plain").end("Too Many Requests"),
                req -> req.response().putHeader("Content-Type", "application/json").end("{\"ok\":true}"));
        AdaptiveLimiter limiter = AdaptiveLimiter.create(vertx, fast());
        AdaptiveWebClient client = AdaptiveWebClient.create(WebClient.create(vertx), limiter);
        HttpResponse<JsonObject> r = Await.result(client.send(client.get(port, "127.0.0.1", "/json")
                .as(BodyCodec.jsonObject())));
        assertThat(r.body().getBoolean("ok")).isTrue();
        assertThat(arrivalsWallMs).hasSize(2);
        assertThat(arrivalsWallMs.get(1) - arrivalsWallMs.get(0)).as("the retry waited for Retry-After: 1")
                .isGreaterThanOrEqualTo(900);
        assertThat(limiter.limiter().stats().rateLimitEvents()).isEqualTo(1);
        assertThat(limiter.limiter().stats().pausesOpened()).isEqualTo(1);
    }

    @Test
    void aSuccessWhoseBodyTheCodecCannotDecodeKeepsItsDecodeFailure(Vertx vertx) {
        answer("/bad-json", status(200));
        AdaptiveWebClient client = AdaptiveWebClient.create(WebClient.create(vertx),
                AdaptiveLimiter.create(vertx, fast().setRetries(0)));
        Throwable t = Await.failure(client.send(client.get(port, "127.0.0.1", "/bad-json").as(BodyCodec.jsonObject())));
        assertThat(t).isInstanceOf(io.vertx.core.json.DecodeException.class);
    }

    /**
     * A streamed request body is read by its first attempt: a retry fails with an error that
     * says so instead of sending it empty (which a server may take, making the call a success
     * with the body lost).
     */
    @Test
    void aStreamedRequestBodyIsNeverSentAgainEmpty(Vertx vertx) throws Exception {
        answer("/upload", status(500), status(200));
        java.nio.file.Path upload = java.nio.file.Files.createTempFile("adaptive-upload", ".txt");
        java.nio.file.Files.writeString(upload, "streamed-body");
        AdaptiveWebClient client = AdaptiveWebClient.create(WebClient.create(vertx),
                AdaptiveLimiter.create(vertx, fast().setRetries(2)));
        io.vertx.core.file.AsyncFile file = Await.result(vertx.fileSystem().open(upload.toString(),
                new io.vertx.core.file.OpenOptions().setRead(true)));
        Throwable t = Await.failure(client.send(client.post(port, "127.0.0.1", "/upload"),
                (copy, ctx) -> copy.sendStream(file)));
        assertThat(t).hasMessageContaining("cannot send a streamed request body again");
        assertThat(bodies).as("what the server received").containsExactly("streamed-body");
    }

    /**
     * The refusal to send a streamed body again is the client's own: it says nothing of the
     * server, so it is no drop and the limit does not move for it (only the 500 before it is one).
     */
    @Test
    void aRetryRefusedForAStreamedBodyIsNoDrop(Vertx vertx, @TempDir java.nio.file.Path dir) throws Exception {
        answer("/upload", status(500), status(200));
        java.nio.file.Path upload = java.nio.file.Files.writeString(dir.resolve("upload.txt"), "streamed-body");
        List<Outcome> outcomes = new CopyOnWriteArrayList<>();
        AdaptiveLimiter limiter = AdaptiveLimiter.builder(vertx, fast().setRetries(1)).traceListener(e -> {
            if (e instanceof TraceEvent.TaskEnd end) {
                outcomes.add(end.outcome());
            }
        }).build();
        AdaptiveWebClient client = AdaptiveWebClient.create(WebClient.create(vertx), limiter);
        io.vertx.core.file.AsyncFile file = Await.result(vertx.fileSystem().open(upload.toString(),
                new io.vertx.core.file.OpenOptions().setRead(true)));
        Throwable t = Await.failure(client.send(client.post(port, "127.0.0.1", "/upload"),
                (copy, ctx) -> copy.sendStream(file)));
        assertThat(t).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("cannot send a streamed request body again");
        assertThat(outcomes).as("the 500, then the refused retry").containsExactly(Outcome.DROPPED, Outcome.IGNORED);
        assertThat(limiter.limiter().stats().congestionEvents()).as("drops that lowered the limit").isEqualTo(1);
    }

    @Test
    void otherClientErrorsAreReturnedAsTheyAreWithoutRetryAndWithoutASample(Vertx vertx) {
        answer("/missing", status(404));
        List<Outcome> outcomes = new CopyOnWriteArrayList<>();
        AdaptiveLimiter limiter = recording(vertx, outcomes);
        AdaptiveWebClient client = AdaptiveWebClient.create(WebClient.create(vertx), limiter);
        assertThat(Await.result(client.send(client.get(port, "127.0.0.1", "/missing"))).statusCode()).isEqualTo(404);
        assertThat(outcomes).containsExactly(Outcome.IGNORED);
        AdaptiveWebClient counting = AdaptiveWebClient.create(WebClient.create(vertx), limiter,
                new AdaptiveWebClientOptions().setIgnoreClientErrors(false));
        assertThat(Await.result(counting.send(counting.get(port, "127.0.0.1", "/missing"))).statusCode()).isEqualTo(404);
        assertThat(outcomes).containsExactly(Outcome.IGNORED, Outcome.SUCCESS);
        assertThat(arrivalsWallMs).hasSize(2);
    }

    /**
     * A JSON client whose 404 (or 401, 403) comes as a gateway's HTML page: the codec fails on
     * the body, but the status, read from the answer's head, is an ignored client error. The call
     * fails with the codec's exception as it is, with no sample and no retry, as a 4xx whose body
     * decodes is returned: it says nothing of the server's capacity, and sent again it gets the
     * same answer.
     */
    @Test
    void aClientErrorWhoseBodyTheCodecCannotDecodeIsNeitherADropNorRetried(Vertx vertx) {
        answer("/gone", req -> req.response().setStatusCode(404).putHeader("Content-Type", "text/html")
                .end("<html>Not Found</html>"));
        List<Outcome> outcomes = new CopyOnWriteArrayList<>();
        AdaptiveLimiter limiter = recording(vertx, outcomes);
        AdaptiveWebClient client = AdaptiveWebClient.create(WebClient.create(vertx), limiter);
        Throwable t = Await.failure(client.send(client.get(port, "127.0.0.1", "/gone").as(BodyCodec.jsonObject())));
        assertThat(t).isInstanceOf(io.vertx.core.json.DecodeException.class);
        assertThat(outcomes).as("no sample").containsExactly(Outcome.IGNORED);
        assertThat(arrivalsWallMs).as("not retried").hasSize(1);
        assertThat(limiter.limiter().stats().congestionEvents()).isZero();
        assertThat(limiter.limiter().inflight()).isZero();
    }

    /**
     * A 404 whose connection the server closes halfway through its body: the body never
     * arrived, so nothing was left for a codec to read (this one, the default buffer codec,
     * cannot fail at all). That is a connection failure like any other, a drop retried with
     * backoff, not an ignored client error: the answer was cut, it is not the server's 404.
     */
    @Test
    void aClientErrorWhoseConnectionClosesMidBodyIsAConnectionFailureRetried(Vertx vertx) {
        answer("/cut", req -> req.response().setStatusCode(404).putHeader("Content-Length", "1000")
                .write("<html>Not").onComplete(written -> req.connection().close()));
        List<Outcome> outcomes = new CopyOnWriteArrayList<>();
        AdaptiveLimiter limiter = recording(vertx, outcomes);
        AdaptiveWebClient client = AdaptiveWebClient.create(WebClient.create(vertx), limiter);
        Throwable t = Await.failure(client.send(client.get(port, "127.0.0.1", "/cut")));
        assertThat(t).isNotInstanceOf(HttpStatusException.class);
        assertThat(outcomes).as("a drop per attempt, retried")
                .containsExactly(Outcome.DROPPED, Outcome.DROPPED, Outcome.DROPPED, Outcome.DROPPED);
        assertThat(arrivalsWallMs).hasSize(4);
        assertThat(limiter.limiter().inflight()).isZero();
    }

    @Test
    void theQuotaAnAnswerAnnouncesTravelsInItsOutcomeOnSuccessAndFailureAlike(Vertx vertx) {
        answer("/q", status(200, "RateLimit", "\"default\";r=5;t=30"),
                status(500, "X-RateLimit-Remaining", "4", "X-RateLimit-Reset", "20"),
                status(200, "x-ratelimit-remaining-requests", "3", "x-ratelimit-reset-requests", "1m0s"));
        List<Outcome> outcomes = new CopyOnWriteArrayList<>();
        AdaptiveLimiter limiter = recording(vertx, outcomes);
        AdaptiveWebClient client = AdaptiveWebClient.create(WebClient.create(vertx), limiter);
        assertThat(Await.result(client.send(client.get(port, "127.0.0.1", "/q"))).statusCode()).isEqualTo(200);
        assertThat(Await.result(client.send(client.get(port, "127.0.0.1", "/q"))).statusCode()).isEqualTo(200);
        assertThat(outcomes).containsExactly(Outcome.SUCCESS.withQuota(new Quota(5, Duration.ofSeconds(30))),
                Outcome.DROPPED.withQuota(new Quota(4, Duration.ofSeconds(20))),
                Outcome.SUCCESS.withQuota(new Quota(3, Duration.ofMinutes(1))));
        assertThat(limiter.limiter().quotaRemaining()).isEqualTo(3);
    }

    @Test
    void noQuotaLeftHoldsTheNextRequestUntilTheResetAndTheOptionTurnsTheReadingOff(Vertx vertx) {
        answer("/empty", status(200, "RateLimit", "d;r=0;t=1"));
        AdaptiveWebClient client = AdaptiveWebClient.create(WebClient.create(vertx), AdaptiveLimiter.create(vertx, fast()));
        Await.result(client.send(client.get(port, "127.0.0.1", "/empty")));
        Await.result(client.send(client.get(port, "127.0.0.1", "/empty")));
        assertThat(arrivalsWallMs).hasSize(2);
        assertThat(arrivalsWallMs.get(1) - arrivalsWallMs.get(0)).as("the second waited for the reset")
                .isGreaterThanOrEqualTo(900);
        assertThat(client.limiter().limiter().stats().quotaHolds()).isPositive();

        AdaptiveWebClient off = AdaptiveWebClient.create(WebClient.create(vertx),
                AdaptiveLimiter.create(vertx, fast().setQuotaHeaders(false)));
        Await.result(off.send(off.get(port, "127.0.0.1", "/empty")));
        assertThat(off.limiter().limiter().quotaRemaining()).isEqualTo(-1);
        assertThat(off.limiter().limiter().stats().quotaHolds()).isZero();
    }

    @Test
    void aRetriedRequestSendsItsBodyAgain(Vertx vertx) {
        answer("/orders", status(500), status(201));
        AdaptiveWebClient client = AdaptiveWebClient.create(WebClient.create(vertx),
                AdaptiveLimiter.create(vertx, fast()));
        JsonObject order = new JsonObject().put("id", 7);
        assertThat(Await.result(client.sendJsonObject(client.post(port, "127.0.0.1", "/orders"), order)).statusCode())
                .isEqualTo(201);
        assertThat(bodies).containsExactly(order.encode(), order.encode());
    }

    @Test
    void connectionFailuresAreRetriedThenReported(Vertx vertx) throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            closedPort = s.getLocalPort();
        }
        AdaptiveWebClient client = AdaptiveWebClient.create(WebClient.create(vertx),
                AdaptiveLimiter.create(vertx, fast().setRetries(1)));
        assertThat(Await.failure(client.send(client.get(closedPort, "127.0.0.1", "/")))).isInstanceOf(ConnectException.class);
        assertThat(client.limiter().limiter().stats().congestionEvents()).isEqualTo(2);
    }

    @Test
    void optionsRoundTripThroughJsonAndRejectBadStatuses() {
        AdaptiveWebClientOptions o = new AdaptiveWebClientOptions().setRateLimitStatuses(Set.of(429, 420))
                .setRetryAfterStatuses(Set.of()).setErrorStatuses(Set.of(500)).setIgnoreClientErrors(false);
        assertThat(new AdaptiveWebClientOptions(o.toJson())).isEqualTo(o);
        assertThat(new AdaptiveWebClientOptions().getErrorStatuses()).containsExactlyInAnyOrder(500, 502, 503, 504);
        assertThatThrownBy(() -> new AdaptiveWebClientOptions().setErrorStatuses(Set.of(700)))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("errorStatuses must hold statuses in [100, 599]: 700");
        assertThatThrownBy(() -> new AdaptiveWebClientOptions(new JsonObject().put("rateLimitStatuses", "429;503")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("rateLimitStatuses");
        assertThatThrownBy(() -> new AdaptiveWebClientOptions(new JsonObject().put("rateLimitStatuses",
                new JsonArray().add("x")))).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("x");
        assertThatThrownBy(() -> new AdaptiveWebClientOptions(new JsonObject().put("statuses", 1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("statuses");
    }

    /**
     * A status given as text is read as every whole number in the options is ({@code "maxLimit":
     * "50"}): ASCII digits, nothing else; then held to [100, 599] as a number is.
     */
    @Test
    void statusesGivenAsDigitsAreReadAsMaxLimitIsAndAnythingElseFailsNamingTheListAndTheValue() {
        AdaptiveWebClientOptions o = new AdaptiveWebClientOptions(new JsonObject()
                .put("rateLimitStatuses", new JsonArray().add("429").add(420))
                .put("retryAfterStatuses", new JsonArray().add(" 503 "))
                .put("errorStatuses", new JsonArray().add("500").add("502")));
        assertThat(o.getRateLimitStatuses()).containsExactlyInAnyOrder(420, 429);
        assertThat(o.getRetryAfterStatuses()).containsExactly(503);
        assertThat(o.getErrorStatuses()).containsExactlyInAnyOrder(500, 502);
        assertThat(new AdaptiveWebClientOptions(o.toJson())).as("written back as numbers").isEqualTo(o);
        assertThat(new AdaptiveOptions(new JsonObject().put("maxLimit", "50")).getMaxLimit()).as("the rule it follows")
                .isEqualTo(50);

        Map<Object, String> refused = new LinkedHashMap<>();
        refused.put("4x9", "rateLimitStatuses must be a whole number: 4x9");
        refused.put("429.0", "rateLimitStatuses must be a whole number: 429.0");
        refused.put("0x1AD", "rateLimitStatuses must be a whole number: 0x1AD");
        refused.put("\u0664\u0662\u0669", "rateLimitStatuses must be a whole number: \u0664\u0662\u0669");
        refused.put("", "rateLimitStatuses must be a whole number: ");
        refused.put(true, "rateLimitStatuses must be a whole number: true");
        refused.put("600", "rateLimitStatuses must hold statuses in [100, 599]: 600");
        refused.put("-429", "rateLimitStatuses must hold statuses in [100, 599]: -429");
        refused.forEach((value, message) -> assertThatThrownBy(() -> new AdaptiveWebClientOptions(new JsonObject()
                .put("rateLimitStatuses", new JsonArray().add(value))))
                .as("%s", value).isInstanceOf(IllegalArgumentException.class).hasMessage(message));
    }
}
