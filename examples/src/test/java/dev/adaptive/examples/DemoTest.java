package dev.adaptive.examples;

import dev.adaptive.examples.demo.Demo;
import dev.adaptive.examples.demo.DemoArgs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The demo runs every way against the embedded server and reports each in text and HTML. */
@Timeout(value = 150, unit = TimeUnit.SECONDS)
class DemoTest {

    @Test
    void everyRunFinishesEveryItemAndTheReportChartsEachRun(@TempDir Path dir) throws Exception {
        Path report = dir.resolve("report.html");
        String out = Console.capture(() -> Demo.main(new String[] {"--items", "40", "--report", report.toString()}));

        for (String run : Demo.runNames()) {
            // run | wall time | ok | failed | 429s | arrivals | final concurrency
            Matcher row = Pattern.compile("(?m)^" + Pattern.quote(run) + " +\\| +[\\d,]+ ms \\| +40 \\| +0 \\| +\\d+ \\| +\\d+ \\| +\\d+$")
                    .matcher(out);
            assertThat(row.find()).as("a table row for %s with 40 ok and 0 failed in%n%s", run, out).isTrue();
        }
        assertThat(out).contains("HTML report: " + report.toUri());

        String html = Files.readString(report);
        int runs = Demo.runNames().size();
        assertThat(count(html, "<svg ")).isEqualTo(2 * runs);   // concurrency and latency per run
        assertThat(count(html, "<section>")).isEqualTo(runs);
        assertThat(html).doesNotContain("Did not run").doesNotContain("<script").doesNotContain("http://www.w3.org/1999/xlink");
        // the high fixed run meets the hard cap: its 429s are drawn as dots and their windows as bands
        assertThat(html).contains("fill=\"#d1242f\"").contains("fill=\"" + "#f7c9c9" + "\"");
    }

    @Test
    void badFlagsNameTheFlagAndTheValue() {
        assertThatThrownBy(() -> DemoArgs.parse("--items", "0")).hasMessage("--items must be a positive integer: 0");
        assertThatThrownBy(() -> DemoArgs.parse("--soft", "x")).hasMessage("--soft must be a positive integer: x");
        assertThatThrownBy(() -> DemoArgs.parse("--hard", "3")).hasMessage("hard must be >= soft (6): 3");
        assertThatThrownBy(() -> DemoArgs.parse("--url", "ftp://x")).hasMessage("url must be an absolute http(s) URL: ftp://x");
        assertThatThrownBy(() -> DemoArgs.parse("--runs", "pool,nope")).hasMessageContaining("--runs").hasMessageEndingWith(": pool,nope");
        assertThatThrownBy(() -> DemoArgs.parse("--fast")).hasMessage("--fast needs a value");
        assertThatThrownBy(() -> DemoArgs.parse("--fast", "1")).hasMessage("unknown option: --fast");
    }

    @Test
    void helpPrintsTheUsageAndRunsNothing() throws Exception {
        String out = Console.capture(() -> Demo.main(new String[] {"--help"}));
        assertThat(out).contains("--url", "--items", "--base-ms", "--soft", "--hard", "--retry-after")
                .doesNotContain("HTML report: ");
    }

    private static int count(String text, String needle) {
        int n = 0;
        for (int at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + 1)) {
            n++;
        }
        return n;
    }
}
