package dev.adaptive.benchmarks.report;

import dev.adaptive.benchmarks.model.ServerStats;
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
                new ServerStats(310, 300, 4, 6, 12, arrivals, 0, -1));
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
                .contains("| **p (oracle)** | 110 ± 10 | 1.10 | 300 | 2 | 4 | 6 | 12 | 7 |");
    }

    @Test
    void targetsNeedTheRatioAndZeroFailuresWhereTheIssueSaysSo() {
        Summary good = Summary.of(List.of(run(1, 105, 0, 0))).withRatio(100);
        Summary failing = Summary.of(List.of(run(1, 105, 1, 0))).withRatio(100);
        assertThat(Target.of("S2").met(good)).isTrue();
        assertThat(Target.of("S2").met(failing)).isFalse();
        assertThat(Target.of("S4").met(failing)).isTrue();
        assertThat(Target.of("S2").verdict(good)).endsWith("MET").doesNotContain("NOT MET");
        assertThat(Target.of("S3")).isNull();
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
