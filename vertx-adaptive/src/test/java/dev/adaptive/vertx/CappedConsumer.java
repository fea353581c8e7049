package dev.adaptive.vertx;

import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.MessageConsumer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * An event-bus consumer that behaves like a rate-limited backend: past {@code hard} requests in
 * flight it answers {@code fail(429, "retry-after-ms=...")} 
 * otherwise it replies {@code "echo:" + body} after {@code latencyMs}.
 */
final class CappedConsumer {

    private final int hard;
    private final long latencyMs;
    private final Duration retryAfter;
    private final List<Long> arrivals = new ArrayList<>();
    private int inflight;
    private int maxInflight;
    private int rateLimited;
    final MessageConsumer<Object> consumer;

    CappedConsumer(Vertx vertx, String address, int hard, long latencyMs, Duration retryAfter) {
        this.hard = hard;
        this.latencyMs = latencyMs;
        this.retryAfter = retryAfter;
        this.consumer = vertx.eventBus().consumer(address, m -> handle(vertx, m));
        Await.result(consumer.completion());
    }

    private synchronized void handle(Vertx vertx, Message<Object> m) {
        arrivals.add(System.nanoTime());
        if (inflight + 1 > hard) {
            rateLimited++;
            RateLimitReply.fail(m, retryAfter);
            return;
        }
        inflight++;
        maxInflight = Math.max(maxInflight, inflight);
        vertx.setTimer(latencyMs, id -> {
            synchronized (this) {
                inflight--;
            }
            m.reply("echo:" + m.body(), new DeliveryOptions().addHeader("served-by", "capped")
                    .addHeader("x-id", String.valueOf(m.headers().get("x-id"))));
        });
    }

    synchronized int rateLimited() {
        return rateLimited;
    }

    synchronized int maxInflight() {
        return maxInflight;
    }

    synchronized int arrivals() {
        return arrivals.size();
    }
}
