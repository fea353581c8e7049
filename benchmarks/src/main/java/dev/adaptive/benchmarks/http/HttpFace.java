package dev.adaptive.benchmarks.http;

import dev.adaptive.benchmarks.model.Scenario;

import java.net.URI;

/**
 * One client of the real-HTTP scenario: sends every item of the scenario to the server once,
 * retrying as its library does, and reports how the items ended. Implementations own and free
 * every resource they create (threads, connection pools) within {@link #run}.
 */
public interface HttpFace {

    /** @return the row label */
    String name();

    /** @return whether this client is Adaptive (one of its faces) rather than a peer */
    default boolean adaptive() {
        return false;
    }

    /**
     * @param server   where to send {@code GET /}
     * @param scenario the items and the retry budget
     * @return how many items ended ok and how many failed, and how long they took
     * @throws Exception if the client cannot run at all
     */
    Tally run(URI server, Scenario scenario) throws Exception;

    /**
     * @param ok        items that ended with a 200
     * @param failed    items that ended otherwise
     * @param wallNanos from the first item sent to the last item ended: the client's set-up
     *                  (a CamelContext, a Vert.x instance, thread pools) is not part of it
     */
    record Tally(int ok, int failed, long wallNanos) {
    }
}
