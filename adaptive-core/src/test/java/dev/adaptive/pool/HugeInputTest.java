package dev.adaptive.pool;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Invariant 5 of docs/reliability.md: a lazy input is pulled only when a slot is free, so memory is
 * O(concurrency). Proven by running {@link HugeInputMain} in its own JVM with a 64 MiB heap:
 * keeping even 16 bytes per item of 10 million (160 MB) could not fit, so the run finishing
 * with every item counted once is the proof. The wait bound is generous and only there so that
 * a broken pool cannot hang the build; nothing here measures speed.
 */
class HugeInputTest {

    private static final long TIMEOUT_SECONDS = 240;

    @ParameterizedTest(name = "{0} items from a lazy {1}")
    @CsvSource({"10000000, iterator", "5000000, publisher"})
    void aHugeLazyInputRunsInASmallHeap(long items, String kind) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = List.of(java, "-Xmx64m", "-XX:+UseSerialGC",
                "-cp", System.getProperty("java.class.path"),
                HugeInputMain.class.getName(), Long.toString(items), kind);
        Process p = new ProcessBuilder(command).redirectErrorStream(true)
                .directory(new File(System.getProperty("user.dir"))).start();
        List<String> output = new ArrayList<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    synchronized (output) {
                        output.add(line);
                    }
                }
            } catch (Exception ignored) {
                // the process ended
            }
        }, "huge-input-output");
        reader.setDaemon(true);
        reader.start();
        boolean ended = p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        if (!ended) {
            p.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }
        reader.join(TimeUnit.SECONDS.toMillis(30));
        String all;
        synchronized (output) {
            all = String.join("\n", output);
        }
        assertThat(ended).as("ended within %s s; output:%n%s", TIMEOUT_SECONDS, all).isTrue();
        assertThat(p.exitValue()).as("exit code; output:%n%s", all).isZero();
        long sum = items * (items - 1) / 2;
        assertThat(all).contains("accepted=" + items + " succeeded=" + items + " failed=0 sum=" + sum
                + " listenerSucceeded=" + items + " ");
    }
}
