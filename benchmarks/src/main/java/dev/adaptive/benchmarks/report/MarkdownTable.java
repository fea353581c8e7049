package dev.adaptive.benchmarks.report;

import java.util.List;
import java.util.Locale;

/** Renders summaries as the scenarios' standard Markdown table. Stateless. */
public final class MarkdownTable {

    /** The table's header and alignment rows. */
    public static final String HEADER = """
            | policy | wall ms (median ± sd) | × oracle | ok | failed (worst) | 429s | 500s | peak | arrivals during Retry-After (worst) |
            |---|---:|---:|---:|---:|---:|---:|---:|---:|
            """;

    /** The last header cell when the runs also measured arrivals after the client knew. */
    static final String SPLIT_ARRIVALS = "arrivals during Retry-After: all / after the client had read the 429 (worst)";

    private MarkdownTable() {
    }

    /**
     * @param rows   the rows, in display order
     * @param oracle the oracle's row label, shown in bold
     * @return the table, header included
     */
    public static String render(List<Summary> rows, String oracle) {
        boolean split = rows.stream().anyMatch(s -> s.knewMax() >= 0);
        StringBuilder sb = new StringBuilder(split
                ? HEADER.replace("arrivals during Retry-After (worst)", SPLIT_ARRIVALS) : HEADER);
        for (Summary s : rows) {
            String name = s.policy().equals(oracle) ? "**" + s.policy() + " (oracle)**" : s.policy();
            String arrivals = !split ? Long.toString(s.arrivalsMax())
                    : s.arrivalsMax() + " / " + (s.knewMax() >= 0 ? Long.toString(s.knewMax()) : "n/a");
            sb.append(String.format(Locale.ROOT, "| %s | %.0f ± %.0f | %.2f | %s | %d | %s | %s | %s | %s |%n",
                    name, s.wallMedian(), s.wallSd(), s.ratio(), count(s.okMedian()), s.failedMax(),
                    count(s.tooManyMedian()), count(s.errorsMedian()), count(s.peakMedian()), arrivals));
        }
        return sb.toString();
    }

    private static String count(double median) {
        return median == Math.rint(median)
                ? Long.toString((long) median) : String.format(Locale.ROOT, "%.1f", median);
    }
}
