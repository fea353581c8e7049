/**
 * The flaky API the project's tests, examples and benchmarks call, in one place: the model
 * ({@link dev.adaptive.testing.FlakyModel}: latency that grows past a soft concurrency, 429 with
 * {@code Retry-After} past a hard one, jitter, a slow tail, transient errors), the model running
 * on a clock ({@link dev.adaptive.testing.FlakyDownstream}: virtual time for the simulations, the
 * wall clock for the server; a quota announced on every answer, an outage window), the real HTTP
 * server on loopback built on it ({@link dev.adaptive.testing.FlakyHttpServer}: also stops,
 * restarts on its port and holds requests unanswered), a JUnit 5 extension that starts and
 * stops that server ({@link dev.adaptive.testing.FlakyHttpServerExtension}), and the outage run
 * each face's integration test drives through its own client ({@link dev.adaptive.testing.OutageRun}),
 * and the bounded real-time wait those integration tests use for an event on another thread
 * ({@link dev.adaptive.testing.Until}).
 *
 * <p>Status: test support, not part of the library's API. Depends on the JDK alone
 * ({@code junit-jupiter-api} for the extension, optionally).
 */
package dev.adaptive.testing;
