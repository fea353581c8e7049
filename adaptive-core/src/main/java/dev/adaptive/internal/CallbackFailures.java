package dev.adaptive.internal;

import java.lang.System.Logger.Level;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts the failures of one kind of user callback (a trace listener, a classifier, a limit
 * algorithm) of one limiter, and logs them: the first at {@code WARNING}, with its stack trace,
 * every later one at {@code DEBUG}, so that a listener that throws on every event cannot flood
 * the log while the first failure still reaches an operator.
 *
 * <p>Thread-safe. Not API: its package is internal and may change without notice.
 */
public final class CallbackFailures {

    private final System.Logger log;
    private final String limiter;
    private final String kind;
    private final LongAdder count;
    private final AtomicBoolean warned = new AtomicBoolean();

    /**
     * @param log     where the lines go
     * @param limiter the limiter's name, for the line
     * @param kind    what failed, for the line: {@code "trace listener"}, {@code "classifier"}, ...
     * @param count   the counter the stats show; may be shared by several kinds
     */
    public CallbackFailures(System.Logger log, String limiter, String kind, LongAdder count) {
        this.log = log;
        this.limiter = limiter;
        this.kind = kind;
        this.count = count;
    }

    /**
     * Counts and logs one failure. Never throws: a logging backend that throws is ignored.
     *
     * @param failure what the callback threw
     */
    public void failed(Throwable failure) {
        count.increment();
        try {
            if (warned.compareAndSet(false, true)) {
                log.log(Level.WARNING, () -> "limiter '" + limiter + "': " + article(kind) + " " + kind
                        + " threw; the engine goes on (this is logged once at WARNING, later ones at DEBUG)", failure);
            } else if (log.isLoggable(Level.DEBUG)) {
                log.log(Level.DEBUG, () -> "limiter '" + limiter + "': a " + kind + " threw again", failure);
            }
        } catch (Throwable brokenLogger) {
            // A logger is user configuration too; the engine's work must not depend on it.
        }
    }

    private static String article(String noun) {
        return "aeiou".indexOf(noun.charAt(0)) >= 0 ? "an" : "a";
    }

    /** @return the counter the failures go to */
    public LongAdder count() {
        return count;
    }
}
