package dev.adaptive.fleet;

import dev.adaptive.contract.CoordinatorContract;
import dev.adaptive.time.Ticker;

import java.time.Clock;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The coordinator's contract ({@link CoordinatorContract}) on the in-memory one: one store per
 * namespace, its TTLs measured on a ticker that reads the test's clock, its kept pause judged by
 * that clock.
 */
class InMemoryCoordinatorContractTest extends CoordinatorContract {

    private final Map<String, InMemoryCoordinator> stores = new ConcurrentHashMap<>();

    @Override
    protected Coordinator coordinator(String namespace, Clock clock) {
        return stores.computeIfAbsent(namespace, n -> new InMemoryCoordinator(ticker(clock), clock));
    }

    private static Ticker ticker(Clock clock) {
        return () -> {
            Instant now = clock.instant();
            return now.getEpochSecond() * 1_000_000_000L + now.getNano();
        };
    }
}
