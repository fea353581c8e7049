package dev.adaptive.benchmarks.report;

import java.util.List;
import java.util.Locale;

/** Renders summaries as the scenarios' standard Markdown table. Stateless. */
public final class MarkdownTable {

    /** The table's header and alignment rows. */
    public static final String HEADER = """
            | policy | wall ms (median ± sd) | × oracle | ok | failed (worst) | 429s (median / worst) | pauses (median / worst) | 500s | peak | arrivals during Retry-After (worst) |
            |---|---:|---:|---:|---:|---:|---:|---:|---:|---:|
            """;

    /** The column a flat-cap table adds after "× oracle". */
    static final String PLUS_RETRY_AFTER = " × (oracle + Retry-After) |";

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
        return render(rows, oracle, 0);
    }

    /**
     * @param rows                  the rows, in display order
     * @param oracle                the oracle's row label, shown in bold
     * @param oraclePlusRetryAfter  the oracle's median wall time plus one Retry-After, in ms: the
     *                              least a client that must find a flat cap can take; when
     *                              positive, a column of each row's median over it follows
     *                              "× oracle"
     * @return the table, header included
     */
    public static String render(List<Summary> rows, String oracle, double oraclePlusRetryAfter) {
        boolean split = rows.stream().anyMatch(s -> s.knewMax() >= 0);
        boolean flat = oraclePlusRetryAfter > 0;
        String header = split ? HEADER.replace("arrivals during Retry-After (worst)", SPLIT_ARRIVALS) : HEADER;
        if (flat) {
            header = header.replace(" × oracle |", " × oracle |" + PLUS_RETRY_AFTER).replaceFirst("\\|---\\|", "|---|---:|");
        }
        StringBuilder sb = new StringBuilder(header);
        for (Summary s : rows) {
            String name = s.policy().equals(oracle) ? "**" + s.policy() + " (oracle)**" : s.policy();
            String arrivals = !split ? Long.toString(s.arrivalsMax())
                    : s.arrivalsMax() + " / " + (s.knewMax() >= 0 ? Long.toString(s.knewMax()) : "n/a");
            String ratios = String.format(Locale.ROOT, "%.2f", s.ratio())
                    + (flat ? String.format(Locale.ROOT, " | %.2f", s.wallMedian() / oraclePlusRetryAfter) : "");
            sb.append(String.format(Locale.ROOT, "| %s | %.0f ± %.0f | %s | %s | %d | %s / %d | %s / %d | %s | %s | %s |%n",
                    name, s.wallMedian(), s.wallSd(), ratios, count(s.okMedian()), s.failedMax(),
                    count(s.tooManyMedian()), s.tooManyMax(), count(s.episodesMedian()), s.episodesMax(),
                    count(s.errorsMedian()), count(s.peakMedian()), arrivals));
        }
        return sb.toString();
    }

    private static String count(double median) {
        return median == Math.rint(median)
                ? Long.toString((long) median) : String.format(Locale.ROOT, "%.1f", median);
    }
}
