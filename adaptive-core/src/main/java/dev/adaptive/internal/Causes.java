package dev.adaptive.internal;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * The one walk along a cause chain that every face uses. {@link Throwable#initCause} allows a
 * loop ({@code a -> b -> a}), a subclass may override {@link Throwable#getCause()} to return
 * itself, another link or to throw, and a chain may be absurdly long: the walk visits each
 * link once, stops at a repeat, at a {@code getCause()} that throws, and after
 * {@link #MAX_DEPTH} links. Not API: its package is internal and may change without notice.
 * Stateless and thread-safe.
 */
public final class Causes {

    /** The most links one walk visits: 64, far beyond any chain a library builds. */
    public static final int MAX_DEPTH = 64;

    private Causes() {
    }

    /**
     * @param error the first link, or {@code null}
     * @param probe asked about each link in order, each at most once; {@code null} means "go on"
     * @param <R>   the answer type
     * @return the probe's first non-null answer, or {@code null} if it had none
     */
    public static <R> R first(Throwable error, Function<? super Throwable, ? extends R> probe) {
        // The common chain is one or two links long: no set until a third link shows up.
        Set<Throwable> seen = null;
        Throwable previous = null;
        Throwable t = error;
        for (int depth = 0; t != null && depth < MAX_DEPTH; depth++) {
            R answer = probe.apply(t);
            if (answer != null) {
                return answer;
            }
            Throwable next = causeOf(t);
            if (next == null || next == t || next == previous) {
                return null;
            }
            if (previous != null) {
                if (seen == null) {
                    seen = Collections.newSetFromMap(new IdentityHashMap<>());
                    seen.add(previous);
                }
                seen.add(t);
                if (seen.contains(next)) {
                    return null;
                }
            }
            previous = t;
            t = next;
        }
        return null;
    }

    /**
     * @param error the first link, or {@code null}
     * @param type  the type looked for
     * @param <T>   that type
     * @return the first link that is an instance of {@code type}, or {@code null}
     */
    public static <T extends Throwable> T find(Throwable error, Class<T> type) {
        return first(error, t -> type.isInstance(t) ? type.cast(t) : null);
    }

    /**
     * @param error the first link, or {@code null}
     * @param test  asked about each link in order
     * @return whether a link passes {@code test}
     */
    public static boolean any(Throwable error, Predicate<? super Throwable> test) {
        return first(error, t -> test.test(t) ? Boolean.TRUE : null) != null;
    }

    /**
     * @param t a link
     * @return its cause, or {@code null} if it has none or {@code getCause()} throws
     */
    public static Throwable causeOf(Throwable t) {
        try {
            return t.getCause();
        } catch (Throwable broken) {
            return null;
        }
    }
}
