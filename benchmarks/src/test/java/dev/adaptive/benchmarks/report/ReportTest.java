package dev.adaptive.benchmarks.report;

import dev.adaptive.testing.DownstreamStats;
import dev.adaptive.benchmarks.sim.RunResult;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** Statistics, summaries, tables and JSON of the result files. */
class ReportTest {

    private static RunResult run(long seed, double wall, int failed, long arrivals) {
        return new RunResult("p", "adaptive", "S2", seed, wall, 300 - failed, failed, 0,
                new DownstreamStats(310, 300, 4, 6, 12, 1, arrivals, 0, -1));
    }

    @Test
    void medianAndSampleStandardDeviation() {
        assertThat(Stats.median(new double[] {3, 1, 2})).isEqualTo(2);
        assertThat(Stats.median(new double[] {4, 1, 2, 3})).isEqualTo(2.5);
        assertThat(Stats.sd(new double[] {2, 4, 4, 4, 5, 5, 7, 9})).isCloseTo(2.138, within(0.001));
        assertThat(Stats.sd(new double[] {5})).isZero();
    }

    @Test
    void aSummaryShowsTheWorstRunForTheMustBeZeroFigures() {
        Summary s = Summary.of(List.of(run(1, 100, 0, 0), run(2, 120, 2, 0), run(3, 110, 0, 7))).withRatio(100);
        assertThat(s.wallMedian()).isEqualTo(110);
        assertThat(s.ratio()).isEqualTo(1.1);
        assertThat(s.failedMax()).isEqualTo(2);
        assertThat(s.arrivalsMax()).isEqualTo(7);
        assertThat(s.okMedian()).isEqualTo(300);
        String table = MarkdownTable.render(List.of(s), "p");
        assertThat(table).startsWith(MarkdownTable.HEADER)
                .contains("| **p (oracle)** | 110 ± 10 | 1.10 | 300 | 2 | 4 / 4 | 1 / 1 | 6 | 12 | 7 |");
        String flat = MarkdownTable.render(List.of(s), "p", 55);
        assertThat(flat).contains("| × oracle | × (oracle + Retry-After) |")
                .contains("| **p (oracle)** | 110 ± 10 | 1.10 | 2.00 | 300 |");
        assertThat(flat.lines().toList().get(1).split("\\|", -1)).hasSize(flat.lines().toList().get(0).split("\\|", -1).length);
    }

    @Test
    void targetsNeedTheRatioZeroFailuresAndTheBoundsOnPausesAnd429s() {
        Summary good = Summary.of(List.of(run(1, 105, 0, 0))).withRatio(100);
        Summary failing = Summary.of(List.of(run(1, 105, 1, 0))).withRatio(100);
        Summary arriving = Summary.of(List.of(run(1, 105, 0, 1))).withRatio(100);
        Target s4 = Target.of("S4-200").get(0);
        assertThat(s4.policy()).isEqualTo(Target.VEGAS);
        assertThat(s4.met(good, 1000)).isTrue();
        assertThat(s4.met(failing, 1000)).isFalse();
        assertThat(s4.met(arriving, 1000)).isFalse();
        assertThat(Target.of("S1").get(0).met(good, 1000)).as("1.05 > 1.03").isFalse();
        assertThat(s4.verdict(good, 1000)).endsWith("MET").doesNotContain("NOT MET");
        assertThat(Target.of("S3")).isEmpty();
        // Flat cap: 105 ms against an oracle of 100 ms plus a Retry-After of 10 ms is 0.95 x, but
        // the run had 4 x 429, one more than the bound.
        Target f1 = Target.of("F1").get(0);
        assertThat(f1.plusRetryAfter()).isTrue();
        assertThat(f1.met(good, 10)).isFalse();
        assertThat(f1.verdict(good, 10)).contains("0.95 × (oracle + Retry-After)", "4 × 429", "NOT MET");
        assertThat(Target.of("F1")).extracting(Target::policy)
                .containsExactly(Target.VEGAS, "adaptive aimd", "adaptive gradient2");
    }

    @Test
    void jsonEscapesAndNests() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", "a \"quoted\"\nline");
        m.put("values", List.of(1, 2.5, Double.NaN));
        m.put("nested", Map.of("ok", true));
        assertThat(Json.write(m)).isEqualTo("""
                {
                  "name": "a \\"quoted\\"\\nline",
                  "values": [1, 2.500, null],
                  "nested": {
                    "ok": true
                  }
                }
                """);
    }

    @Test
    void theChartDrawsEachSeriesAndTheCaps() {
        String svg = ConcurrencyChart.svg("t", List.of(
                new ConcurrencyChart.Series("a", List.of(new long[] {0, 1}, new long[] {1_000_000, 3})),
                new ConcurrencyChart.Series("b <peer>", List.of(new long[] {0, 2}))), 8, 20);
        assertThat(svg).startsWith("<svg").endsWith("</svg>\n").contains("soft 8", "hard 20", "b &lt;peer&gt;");
        assertThat(svg.split("<polyline", -1)).hasSize(3);
    }
}
