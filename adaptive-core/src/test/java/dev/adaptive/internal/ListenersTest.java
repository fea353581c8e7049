package dev.adaptive.internal;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

/** A listener that throws anything loses its own call only, and is counted. */
class ListenersTest {

    @Test
    void aThrowingListenerIsCountedAndTheOthersAreStillCalled() {
        LongAdder failures = new LongAdder();
        List<String> heard = new ArrayList<>();
        List<Consumer<String>> listeners = List.of(heard::add, e -> {
            throw new StackOverflowError("listener recursion");
        }, e -> heard.add(e + " again"), e -> {
            throw new IllegalStateException("listener bug");
        });
        assertThatCode(() -> Listeners.tellAll(listeners, "event", Consumer::accept, failures))
                .doesNotThrowAnyException();
        assertThat(heard).containsExactly("event", "event again");
        assertThat(failures.sum()).isEqualTo(2);

        @SuppressWarnings("unchecked")
        Consumer<String>[] array = listeners.toArray(new Consumer[0]);
        Listeners.each(array, l -> l.accept("x"), failures);
        assertThat(heard).endsWith("x", "x again");
        assertThat(failures.sum()).isEqualTo(4);
    }

    @Test
    void tellSaysWhetherTheCallReturnedNormally() {
        LongAdder failures = new LongAdder();
        assertThat(Listeners.tell("a", 1, (l, e) -> { }, failures)).isTrue();
        assertThat(Listeners.tell("a", 1, (l, e) -> {
            throw new AssertionError("boom");
        }, failures)).isFalse();
        assertThat(failures.sum()).isEqualTo(1);
    }
}
