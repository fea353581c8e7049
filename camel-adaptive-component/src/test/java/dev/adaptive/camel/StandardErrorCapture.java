package dev.adaptive.camel;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Captures standard error for each test (where the SLF4J simple logger writes the component's
 * and the engine's log lines), and gives it back after: the tests that read a log line register
 * it as an extension ({@code @RegisterExtension final StandardErrorCapture err = ...}).
 */
final class StandardErrorCapture implements BeforeEachCallback, AfterEachCallback {

    private final ByteArrayOutputStream captured = new ByteArrayOutputStream();
    private PrintStream original;

    @Override
    public void beforeEach(ExtensionContext context) {
        original = System.err;
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    }

    @Override
    public void afterEach(ExtensionContext context) {
        System.setErr(original);
    }

    /** @return what was written to standard error since the test began */
    String text() {
        return captured.toString(StandardCharsets.UTF_8);
    }

    /** @return the same, line by line */
    List<String> lines() {
        return text().lines().toList();
    }
}
