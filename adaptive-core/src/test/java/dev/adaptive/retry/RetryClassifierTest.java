package dev.adaptive.retry;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.TimeoutException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RetryClassifierTest {

    @Test
    void allRetriesEverything() {
        assertThat(RetryClassifier.all().shouldRetry(new Error(), 1)).isTrue();
        assertThat(RetryClassifier.all()).hasToString("all");
    }

    @Test
    void onMatchesTheErrorOrAnyCause() {
        RetryClassifier onIo = RetryClassifier.on(IOException.class, TimeoutException.class);

        assertThat(onIo.shouldRetry(new IOException(), 1)).isTrue();
        assertThat(onIo.shouldRetry(new java.net.SocketTimeoutException(), 1)).isTrue();
        assertThat(onIo.shouldRetry(new RuntimeException(new UncheckedIOException(new IOException())), 1)).isTrue();
        assertThat(onIo.shouldRetry(new RuntimeException(new TimeoutException()), 1)).isTrue();
        assertThat(onIo.shouldRetry(new IllegalStateException(), 1)).isFalse();
        assertThat(onIo).hasToString("on[IOException, TimeoutException]");
    }

    @Test
    void aCauseCycleEnds() {
        RuntimeException a = new RuntimeException("a");
        RuntimeException b = new RuntimeException("b", a);
        a.initCause(b);

        assertThat(RetryClassifier.on(IOException.class).shouldRetry(a, 1)).isFalse();
    }

    @Test
    void onRejectsNoTypesAndNullTypes() {
        assertThatThrownBy(RetryClassifier::on)
                .isInstanceOf(IllegalArgumentException.class).hasMessage("types must not be empty: []");
        assertThatThrownBy(() -> RetryClassifier.on(IOException.class, null))
                .isInstanceOf(NullPointerException.class);
    }
}
