package dev.adaptive.logging;

import java.util.List;
import java.util.ResourceBundle;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;

/**
 * The {@link System.LoggerFinder} of the core's tests (registered in
 * {@code META-INF/services}): its loggers keep what is logged while a {@link Capture} is open
 * and nothing otherwise, so that the tests that check log lines see them and the stress tests,
 * which log limit changes by the million at DEBUG, cost nothing. Thread-safe.
 */
public final class CapturingLoggerFinder extends System.LoggerFinder {

    private static final List<Capture> OPEN = new CopyOnWriteArrayList<>();

    /** One line logged. @param logger its logger's name @param level its level @param message its text @param thrown its throwable, or null */
    public record Line(String logger, System.Logger.Level level, String message, Throwable thrown) {
    }

    /**
     * Starts keeping the lines whose text contains {@code needle} (a limiter's name, quoted, say).
     *
     * @param needle what a line must contain
     * @return the capture; close it at the end of the test
     */
    public static Capture capture(String needle) {
        Capture c = new Capture(needle);
        OPEN.add(c);
        return c;
    }

    @Override
    public System.Logger getLogger(String name, Module module) {
        return new CapturingLogger(name);
    }

    /** The lines kept for one test. */
    public static final class Capture implements AutoCloseable {
        private final String needle;
        private final List<Line> lines = new CopyOnWriteArrayList<>();

        private Capture(String needle) {
            this.needle = needle;
        }

        /** @return the lines kept so far */
        public List<Line> lines() {
            return List.copyOf(lines);
        }

        @Override
        public void close() {
            OPEN.remove(this);
        }
    }

    private record CapturingLogger(String name) implements System.Logger {

        @Override
        public String getName() {
            return name;
        }

        @Override
        public boolean isLoggable(Level level) {
            return !OPEN.isEmpty();
        }

        @Override
        public void log(Level level, ResourceBundle bundle, String msg, Throwable thrown) {
            keep(level, msg, thrown);
        }

        @Override
        public void log(Level level, ResourceBundle bundle, String format, Object... params) {
            keep(level, params == null || params.length == 0 ? format
                    : java.text.MessageFormat.format(format, params), null);
        }

        @Override
        public void log(Level level, Supplier<String> msgSupplier, Throwable thrown) {
            if (isLoggable(level)) {
                keep(level, msgSupplier.get(), thrown);
            }
        }

        private void keep(Level level, String message, Throwable thrown) {
            for (Capture c : OPEN) {
                if (message != null && message.contains(c.needle)) {
                    c.lines.add(new Line(name, level, message, thrown));
                }
            }
        }
    }
}
