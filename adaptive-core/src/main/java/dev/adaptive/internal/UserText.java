package dev.adaptive.internal;

/**
 * The text of a user's value, for a message the engine writes. {@code toString()} is user code
 * like any callback: a lazy entity whose session is gone, a proxy, a value whose
 * {@code toString()} is simply broken may throw anything, an {@code Error} included, and a
 * message built on the way to releasing a slot or completing a future must not stop either.
 * Not API: its package is internal and may change without notice. Stateless and thread-safe.
 */
public final class UserText {

    private UserText() {
    }

    /**
     * @param value any value, or {@code null}
     * @return {@code String.valueOf(value)}, or, if that throws, the value's class name and what
     *         its {@code toString()} threw
     */
    public static String of(Object value) {
        try {
            return String.valueOf(value);
        } catch (Throwable broken) {
            // Anything: the text is only for a message, and the caller's work must go on.
            return value.getClass().getName() + " (its toString() threw " + broken.getClass().getName() + ")";
        }
    }
}
