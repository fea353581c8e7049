package dev.adaptive.examples.demo;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The end-of-demo table, as text for the terminal and as rows for the HTML report. Stateless. */
final class ResultTable {

    static final List<String> HEADERS = List.of("run", "wall time", "ok", "failed", "429s",
            "arrivals during Retry-After", "final concurrency");

    private ResultTable() {
    }

    static List<List<String>> rows(List<RunReport> reports) {
        List<List<String>> rows = new ArrayList<>();
        for (RunReport r : reports) {
            if (r.error() != null) {
                rows.add(List.of(r.name(), "did not run: " + r.error(), "", "", "", "", ""));
                continue;
            }
            rows.add(List.of(r.name(),
                    String.format(Locale.ROOT, "%,d ms", r.wallMillis()),
                    Long.toString(r.counts().ok()),
                    Long.toString(r.counts().failed()),
                    Long.toString(r.rateLimited()),
                    r.arrivalsDuringRetryAfter().isPresent()
                            ? Long.toString(r.arrivalsDuringRetryAfter().getAsLong()) : "n/a",
                    Integer.toString(r.counts().finalConcurrency())));
        }
        return rows;
    }

    static String text(List<RunReport> reports) {
        List<List<String>> rows = rows(reports);
        int[] widths = new int[HEADERS.size()];
        for (int c = 0; c < widths.length; c++) {
            widths[c] = HEADERS.get(c).length();
            for (List<String> row : rows) {
                widths[c] = Math.max(widths[c], row.get(c).length());
            }
        }
        StringBuilder out = new StringBuilder();
        appendRow(out, HEADERS, widths);
        for (int c = 0; c < widths.length; c++) {
            out.append(c == 0 ? "" : "-+-").append("-".repeat(widths[c]));
        }
        out.append('\n');
        rows.forEach(row -> appendRow(out, row, widths));
        return out.toString();
    }

    private static void appendRow(StringBuilder out, List<String> row, int[] widths) {
        for (int c = 0; c < widths.length; c++) {
            String cell = row.get(c);
            String pad = " ".repeat(widths[c] - cell.length());
            // Names read left to right, numbers line up on the right.
            out.append(c == 0 ? "" : " | ").append(c == 0 ? cell + pad : pad + cell);
        }
        out.append('\n');
    }
}
