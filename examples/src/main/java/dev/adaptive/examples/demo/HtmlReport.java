package dev.adaptive.examples.demo;

import dev.adaptive.limit.Outcome;
import dev.adaptive.trace.TraceEvent;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Writes the demo's self-contained HTML report: the result table, then for each run a
 * concurrency chart (limit and attempts in flight) and a latency chart (one dot per attempt),
 * both with the Retry-After windows the server announced and the pauses the client kept drawn
 * as shaded bands. Everything is drawn from the runs' trace events. Stateless.
 */
public final class HtmlReport {

    static final String ANNOUNCED = "#f7c9c9";
    static final String PAUSED = "#bcd3f2";

    private HtmlReport() {
    }

    /**
     * @param file    where to write
     * @param title   the page's heading
     * @param setup   one line describing the target and the job
     * @param reports the runs, in order
     * @throws IOException when the file cannot be written
     */
    public static void write(Path file, String title, String setup, List<RunReport> reports) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        Files.writeString(file, render(title, setup, reports), StandardCharsets.UTF_8);
    }

    static String render(String title, String setup, List<RunReport> reports) {
        StringBuilder html = new StringBuilder();
        html.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>")
                .append(Html.escape(title)).append("</title>\n<style>\n")
                .append("body{font-family:system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;")
                .append("margin:24px auto;max-width:1240px;color:#222;padding:0 12px}\n")
                .append("table{border-collapse:collapse;margin:12px 0 20px}th,td{border:1px solid #d0d4da;")
                .append("padding:5px 10px}td:not(:first-child){text-align:right}th{background:#f1f3f5}\n")
                .append("section{margin:26px 0;border-top:1px solid #e3e6ea;padding-top:8px}")
                .append("h2{margin:6px 0 2px;font-size:18px}.muted{color:#666;font-size:14px}\n")
                .append("</style></head><body>\n<h1>").append(Html.escape(title)).append("</h1>\n")
                .append("<p class=\"muted\">").append(Html.escape(setup)).append("</p>\n");
        table(html, reports);
        html.append("<p class=\"muted\">Bands: <span style=\"background:").append(ANNOUNCED)
                .append("\">&nbsp;red&nbsp;</span> a Retry-After window announced to this client by a 429; ")
                .append("<span style=\"background:").append(PAUSED)
                .append("\">&nbsp;blue&nbsp;</span> the whole client paused (the engine's RatePause). ")
                .append("Each run's charts span that run's own wall time.</p>\n");
        for (RunReport report : reports) {
            section(html, report);
        }
        html.append("</body></html>\n");
        return html.toString();
    }

    private static void table(StringBuilder html, List<RunReport> reports) {
        html.append("<table><tr>");
        ResultTable.HEADERS.forEach(h -> html.append("<th>").append(Html.escape(h)).append("</th>"));
        html.append("</tr>\n");
        for (List<String> row : ResultTable.rows(reports)) {
            html.append("<tr>");
            row.forEach(cell -> html.append("<td>").append(Html.escape(cell)).append("</td>"));
            html.append("</tr>\n");
        }
        html.append("</table>\n");
    }

    private static void section(StringBuilder html, RunReport report) {
        html.append("<section><h2>").append(Html.escape(report.name())).append("</h2>\n<p class=\"muted\">")
                .append(Html.escape(report.description())).append("</p>\n");
        if (report.error() != null) {
            html.append("<p>Did not run: ").append(Html.escape(report.error())).append("</p></section>\n");
            return;
        }
        double span = report.wallNanos() / 1e9;
        List<double[]> limit = new ArrayList<>();
        List<double[]> inflight = new ArrayList<>();
        List<double[]> ok = new ArrayList<>();
        List<double[]> limited = new ArrayList<>();
        List<double[]> failed = new ArrayList<>();
        List<double[]> announced = new ArrayList<>();
        List<double[]> paused = new ArrayList<>();
        int running = 0;
        double maxY = 1;
        double maxRtt = 1;
        // Engines emit from many threads: arrival order is not time order, and a step line
        // drawn in arrival order would show more in flight than there ever was.
        List<TraceEvent> events = new ArrayList<>(report.events());
        events.sort(java.util.Comparator.comparingLong(TraceEvent::timeNanos));
        for (TraceEvent event : events) {
            double t = seconds(report, event.timeNanos());
            if (event instanceof TraceEvent.ConcurrencyChange c) {
                limit.add(new double[] {t, c.to()});
                maxY = Math.max(maxY, c.to());
            } else if (event instanceof TraceEvent.TaskStart) {
                inflight.add(new double[] {t, ++running});
                maxY = Math.max(maxY, running);
            } else if (event instanceof TraceEvent.TaskEnd end) {
                inflight.add(new double[] {t, --running});
                double ms = end.rttNanos() / 1e6;
                maxRtt = Math.max(maxRtt, ms);
                if (end.outcome() instanceof Outcome.RateLimited r) {
                    limited.add(new double[] {t, ms});
                    announced.add(new double[] {t, t + r.retryAfter().toNanos() / 1e9});
                } else if (end.outcome() instanceof Outcome.Success) {
                    ok.add(new double[] {t, ms});
                } else {
                    failed.add(new double[] {t, ms});
                }
            } else if (event instanceof TraceEvent.RatePause p) {
                paused.add(new double[] {t, seconds(report, p.untilNanos())});
            }
        }
        SvgChart concurrency = new SvgChart("concurrency", span, Math.ceil(maxY * 1.15));
        SvgChart latency = new SvgChart("latency per attempt (ms)", span, Math.ceil(maxRtt * 1.1));
        for (SvgChart chart : List.of(concurrency, latency)) {
            announced.forEach(w -> chart.band(w[0], w[1], ANNOUNCED));
            paused.forEach(w -> chart.band(w[0], w[1], PAUSED));
            if (!announced.isEmpty()) {
                chart.bandKey("Retry-After announced", ANNOUNCED);
            }
            if (!paused.isEmpty()) {
                chart.bandKey("client paused", PAUSED);
            }
        }
        concurrency.step("in flight", "#9aa5b1", inflight).step("limit", "#1f6feb", limit);
        latency.dots("200", "#2f855a", ok).dots("429", "#d1242f", limited).dots("error", "#b7791f", failed);
        html.append(concurrency.render()).append(latency.render());
        html.append(String.format(Locale.ROOT, "<p class=\"muted\">%,d events traced; %d pauses; %d windows announced.</p>%n",
                report.events().size(), paused.size(), announced.size()));
        html.append("</section>\n");
    }

    private static double seconds(RunReport report, long nanos) {
        return Math.max(0, (nanos - report.startNanos()) / 1e9);
    }
}
