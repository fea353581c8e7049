package dev.adaptive.retry;

import dev.adaptive.internal.Causes;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/** {@link RetryClassifier#on}: retries when an error in the cause chain has a listed type. Immutable. */
final class TypeClassifier implements RetryClassifier {

    private final List<Class<? extends Throwable>> types;

    @SafeVarargs
    TypeClassifier(Class<? extends Throwable>... types) {
        Objects.requireNonNull(types, "types");
        if (types.length == 0) {
            throw new IllegalArgumentException("types must not be empty: []");
        }
        // List.of rejects null elements and copies the array away from the caller.
        this.types = List.of(types);
    }

    @Override
    public boolean shouldRetry(Throwable error, int attempt) {
        return Causes.any(error, t -> {
            for (Class<? extends Throwable> type : types) {
                if (type.isInstance(t)) {
                    return true;
                }
            }
            return false;
        });
    }

    @Override
    public String toString() {
        return "on" + Arrays.toString(types.stream().map(Class::getSimpleName).toArray());
    }
}
