package dev.adaptive.vertx;

import dev.adaptive.pool.AdaptiveResult;
import dev.adaptive.pool.ItemError;
import dev.adaptive.pool.ItemResult;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.junit5.VertxExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The downstream dies in the middle of a run, with requests in flight at it and more queued
 * behind the limit, and comes back on the same port once the client has seen
 * {@value #FAILURES_BEFORE_RESTART} connection failures (an event, not a delay). Every request
 * must end, once: answered by the server that came back, or failed with the connection failure
 * that ended its last attempt; none lost, none hanging, nothing left in flight.
 */
@ExtendWith(VertxExtension.class)
class DownstreamRestartTest extends HoldingServerTest {

    private static final int REQUESTS = 20;
    private static final int LIMIT = 4;
    private static final int FAILURES_BEFORE_RESTART = 12;

    /**
     * A budget of retries far larger than the outage needs, with short backoffs, so that the
     * outage is normally survived; a request that runs out anyway must still end, with its cause.
     */
    private static AdaptiveOptions options(String name) {
        return new AdaptiveOptions().setName(name).setInitialLimit(LIMIT).setMaxLimit(LIMIT * 2)
                .setRetries(200).setMinDelay(2).setMaxDelay(20).setStatsAddress(null);
    }

    /** Kills the server once the first {@value #LIMIT} requests are held by it, and restarts it after the failures. */
    private void outage(AdaptiveLimiter limiter, ConnectionFailures failures, int expectedWaiting) {
        Await.result(arrivals(LIMIT));
        assertThat(limiter.limiter().inflight()).as("in flight at the server when it dies").isEqualTo(LIMIT);
        assertThat(limiter.limiter().waiting()).as("queued behind the limit").isEqualTo(expectedWaiting);
        server.stop();
        Await.result(failures.reached());
        server.restart();
    }

    /** What became of the requests of one web-client run. */
    private record Ends(List<String> succeeded, List<Throwable> failed) {
    }

    private Ends webClientRun(Vertx vertx, AdaptiveOptions options) {
        ConnectionFailures failures = new ConnectionFailures(FAILURES_BEFORE_RESTART);
        AdaptiveLimiter limiter = AdaptiveLimiter.builder(vertx, options).traceListener(failures).build();
        AdaptiveWebClient client = AdaptiveWebClient.create(WebClient.create(vertx), limiter);
        List<Future<HttpResponse<Buffer>>> calls = new ArrayList<>();
        for (int i = 0; i < REQUESTS; i++) {
            calls.add(client.send(client.get(port, "127.0.0.1", "/items/" + i)));
        }

        outage(limiter, failures, REQUESTS - LIMIT);

        List<String> succeeded = new ArrayList<>();
        List<Throwable> failed = new ArrayList<>();
        for (int i = 0; i < REQUESTS; i++) {
            Future<HttpResponse<Buffer>> call = calls.get(i);
            Await.settled(call);
            if (call.succeeded()) {
                assertThat(call.result().statusCode()).isEqualTo(200);
                assertThat(call.result().bodyAsString()).isEqualTo("ok /items/" + i);
                succeeded.add("/items/" + i);
            } else {
                failed.add(call.cause());
            }
        }
        report("web client, retries " + options.getRetries(), succeeded.size(), failed, failures);
        assertThat(failed).as("a request that gave up did so on a connection failure")
                .allSatisfy(t -> assertThat(ConnectionFailures.isConnectionFailure(t)).as(t.toString()).isTrue());
        assertThat(answered()).as("each success answered once, by the server that came back")
                .containsExactlyInAnyOrderElementsOf(succeeded);
        assertThat(server.heldPaths()).hasSize(LIMIT);
        assertThat(failures.others()).as("no attempt failed for another reason").isEmpty();
        assertThat(limiter.limiter().stats().congestionEvents()).isGreaterThanOrEqualTo(FAILURES_BEFORE_RESTART);
        assertThat(limiter.limiter().inflight()).isZero();
        assertThat(limiter.limiter().waiting()).isZero();
        assertThat(Await.result(client.send(client.get(port, "127.0.0.1", "/after"))).bodyAsString())
                .as("the client works on after the outage").isEqualTo("ok /after");
        return new Ends(succeeded, failed);
    }

    @Test
    void throughTheWebClientEveryRequestEndsOnceAndSuccessesResumeAfterTheServerComesBack(Vertx vertx) {
        Ends ends = webClientRun(vertx, options("restart-client"));
        assertThat(ends.succeeded()).as("successes resume after recovery").isNotEmpty();
    }

    @Test
    void requestsWhoseBudgetRunsOutDuringTheOutageFailWithTheirConnectionFailure(Vertx vertx) {
        // No retries: each of the failures counted before the restart ends its request.
        Ends ends = webClientRun(vertx, options("restart-no-retry").setRetries(0));
        assertThat(ends.failed()).hasSizeGreaterThanOrEqualTo(FAILURES_BEFORE_RESTART);
    }

    @Test
    void throughThePoolEveryItemEndsOnceAsAResultOrAnErrorWithItsCause(Vertx vertx) {
        ConnectionFailures failures = new ConnectionFailures(FAILURES_BEFORE_RESTART);
        AdaptiveLimiter limiter = AdaptiveLimiter.builder(vertx, options("restart-pool")).traceListener(failures)
                .build();
        // The pool's limiter does the limiting, retrying and classifying: items use the plain
        // web client (an AdaptiveWebClient on the same limiter would ask it for a second slot).
        WebClient web = WebClient.create(vertx);
        List<Integer> items = IntStream.range(0, REQUESTS).boxed().toList();
        Future<AdaptiveResult<Integer, String>> run = AdaptivePool.create(limiter).process(items, (item, ctx) ->
                web.get(port, "127.0.0.1", "/items/" + item).send().map(HttpResponse::bodyAsString));

        // The pool pulls an item only for a free slot: the rest are not yet taken, and the
        // run's one acquisition for the next item is all that waits.
        outage(limiter, failures, 1);

        AdaptiveResult<Integer, String> r = Await.result(run);
        Set<Integer> ended = new HashSet<>();
        for (ItemResult<Integer, String> ok : r.successes()) {
            assertThat(ended.add(ok.item())).as("ended twice: " + ok.item()).isTrue();
            assertThat(ok.value()).isEqualTo("ok /items/" + ok.item());
        }
        for (ItemError<Integer> e : r.errors()) {
            assertThat(ended.add(e.item())).as("ended twice: " + e.item()).isTrue();
            assertThat(ConnectionFailures.isConnectionFailure(e.error())).as(e.error().toString()).isTrue();
        }
        report("pool", r.successes().size(), r.errors().stream().map(ItemError::error).toList(), failures);
        assertThat(ended).as("none lost").containsExactlyInAnyOrderElementsOf(items);
        assertThat(r.successes()).as("successes resume after recovery").isNotEmpty();
        assertThat(answered()).containsExactlyInAnyOrderElementsOf(
                r.successes().stream().map(ok -> "/items/" + ok.item()).toList());
        assertThat(failures.others()).isEmpty();
        assertThat(r.stats().congestionEvents()).isGreaterThanOrEqualTo(FAILURES_BEFORE_RESTART);
        assertThat(limiter.limiter().inflight()).isZero();
        assertThat(limiter.limiter().waiting()).isZero();
    }

    private static void report(String face, int succeeded, List<Throwable> failed, ConnectionFailures failures) {
        System.out.printf("downstream restart via %s: %d succeeded after recovery, %d failed (%s), "
                + "%d connection failures seen%n", face, succeeded, failed.size(),
                failed.stream().map(t -> t.getClass().getSimpleName()).distinct().toList(), failures.seen());
    }
}
