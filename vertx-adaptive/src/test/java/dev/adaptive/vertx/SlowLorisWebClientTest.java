package dev.adaptive.vertx;

import dev.adaptive.TaskTimeoutException;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.junit5.VertxExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A slow-loris downstream behind the {@link AdaptiveWebClient}: a real server that accepts every
 * request and never answers. The task timeout must end each attempt, free its slot, count it as
 * a drop and retry it, and every request must end with {@link TaskTimeoutException}. Then the
 * server answers again, and the same client must get through: the hung exchanges must not have
 * kept the HTTP connections the client needs.
 */
@ExtendWith(VertxExtension.class)
class SlowLorisWebClientTest extends HoldingServerTest {

    private static final int REQUESTS = 6;
    private static final int LIMIT = 2;
    private static final int RETRIES = 1;

    @Test
    void theTaskTimeoutFreesTheSlotsAndEveryRequestEndsWithTaskTimeoutException(Vertx vertx) {
        AdaptiveLimiter limiter = AdaptiveLimiter.create(vertx, new AdaptiveOptions().setName("loris")
                .setAlgorithm("fixed").setMaxLimit(LIMIT).setTaskTimeout(500).setRetries(RETRIES)
                .setMinDelay(1).setMaxDelay(5).setStatsAddress(null));
        AdaptiveWebClient client = AdaptiveWebClient.create(WebClient.create(vertx), limiter);
        AtomicInteger cancelled = new AtomicInteger();
        List<Future<HttpResponse<Buffer>>> calls = new ArrayList<>();
        for (int i = 0; i < REQUESTS; i++) {
            calls.add(client.send(client.get(port, "127.0.0.1", "/slow/" + i), (request, ctx) -> {
                ctx.cancellation().onCancel(cancelled::incrementAndGet);
                return request.send();
            }));
        }
        for (Future<HttpResponse<Buffer>> call : calls) {
            assertThat(Await.failure(call)).isInstanceOf(TaskTimeoutException.class)
                    .hasMessageContaining("PT0.5S");
        }
        int attempts = REQUESTS * (1 + RETRIES);
        assertThat(cancelled).as("each attempt's cancellation fired").hasValue(attempts);
        assertThat(limiter.limiter().stats().congestionEvents()).as("every timeout is a drop").isEqualTo(attempts);
        assertThat(limiter.limiter().inflight()).as("the timeouts freed every slot").isZero();
        assertThat(limiter.limiter().waiting()).isZero();
        assertThat(server.heldPaths()).as("every attempt reached the server: none waited for a connection")
                .hasSize(attempts);

        server.holding(false);
        List<Future<HttpResponse<Buffer>>> after = new ArrayList<>();
        for (int i = 0; i < REQUESTS; i++) {
            after.add(client.send(client.get(port, "127.0.0.1", "/after/" + i)));
        }
        for (int i = 0; i < REQUESTS; i++) {
            assertThat(Await.result(after.get(i)).bodyAsString()).isEqualTo("ok /after/" + i);
        }
        assertThat(limiter.limiter().inflight()).isZero();
    }
}
