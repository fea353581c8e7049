package dev.adaptive.testing;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A {@link FlakyHttpServer} for a JUnit 5 test class. Registered on a static field
 * ({@code @RegisterExtension static final FlakyHttpServerExtension server = ...}) one server
 * serves every test of the class and of its {@code @Nested} classes, started before the first
 * and closed after the last; on an
 * instance field each test gets a fresh one, closed after it.
 *
 * <p>{@link #get()} is the server while it runs; {@link #port()} and {@link #url(String)} are
 * shortcuts. Needs {@code junit-jupiter-api} on the test class path (an optional dependency of
 * this module).
 */
public final class FlakyHttpServerExtension
        implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback {

    private final FlakyHttpServer.Builder builder;
    private volatile FlakyHttpServer server;
    private volatile boolean perClass;
    /** Classes entered: JUnit calls beforeAll for a {@code @Nested} class too, which shares the server. */
    private final AtomicInteger classDepth = new AtomicInteger();

    /** @param builder how to start the server; started once per class or once per test */
    public FlakyHttpServerExtension(FlakyHttpServer.Builder builder) {
        this.builder = Objects.requireNonNull(builder, "builder");
    }

    /**
     * @param model the behaviour
     * @return an extension whose server follows {@code model} with the builder's defaults
     */
    public static FlakyHttpServerExtension of(FlakyModel model) {
        return new FlakyHttpServerExtension(FlakyHttpServer.builder(model));
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        perClass = true;
        if (classDepth.getAndIncrement() == 0) {
            server = builder.start();
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (classDepth.decrementAndGet() == 0) {
            close();
        }
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        if (!perClass) {
            server = builder.start();
        }
    }

    @Override
    public void afterEach(ExtensionContext context) {
        if (!perClass) {
            close();
        }
    }

    private void close() {
        FlakyHttpServer s = server;
        server = null;
        if (s != null) {
            s.close();
        }
    }

    /**
     * @return the running server
     * @throws IllegalStateException outside the tests it serves
     */
    public FlakyHttpServer get() {
        FlakyHttpServer s = server;
        if (s == null) {
            throw new IllegalStateException("the flaky HTTP server runs only during the tests it is registered for");
        }
        return s;
    }

    /** @return the running server's port */
    public int port() {
        return get().port();
    }

    /**
     * @param path a path, with its query if any
     * @return {@code http://127.0.0.1:<port><path>} of the running server
     */
    public String url(String path) {
        return get().url(path);
    }
}
