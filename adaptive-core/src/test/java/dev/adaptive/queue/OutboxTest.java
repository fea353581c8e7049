package dev.adaptive.queue;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

/** The outbox runs every effect once, in order, whatever an effect throws, and never sticks. */
class OutboxTest {

    @Test
    void anEffectThrowingAVirtualMachineErrorNeitherEscapesNorStopsTheOthers() {
        Outbox outbox = new Outbox();
        List<String> ran = new ArrayList<>();
        outbox.post(() -> ran.add("first"));
        outbox.post(() -> {
            throw new StackOverflowError("effect");
        });
        outbox.post(() -> ran.add("third"));
        assertThatCode(outbox::drain).doesNotThrowAnyException();
        assertThat(ran).containsExactly("first", "third");
        assertThat(outbox.failures()).isEqualTo(1);
        // Not stuck: a later drain runs what is posted later.
        outbox.post(() -> ran.add("later"));
        outbox.drain();
        assertThat(ran).containsExactly("first", "third", "later");
    }

    @Test
    void aNestedDrainOnlyMarksMoreWork() {
        Outbox outbox = new Outbox();
        List<String> ran = new ArrayList<>();
        outbox.post(() -> {
            outbox.post(() -> ran.add("inner"));
            outbox.drain();
            ran.add("outer");
        });
        outbox.drain();
        assertThat(ran).containsExactly("outer", "inner");
    }
}
