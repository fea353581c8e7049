package dev.adaptive.benchmarks.report;

import java.util.List;
import java.util.Locale;

/**
 * Renders in-flight-over-time traces as a small self-contained SVG line chart, with the
 * model's soft and hard caps drawn as reference lines. Stateless.
 */
public final class ConcurrencyChart {

    private static final int WIDTH = 860;
    private static final int HEIGHT = 320;
    private static final int LEFT = 50;
    private static final int RIGHT = 190;
    private static final int TOP = 30;
    private static final int BOTTOM = 40;
    private static final String[] COLORS = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd"};

    private ConcurrencyChart() {
    }

    /**
     * One line of the chart.
     *
     * @param name  legend label
     * @param trace (nanos since start, in flight) at every change, in time order
     */
    public record Series(String name, List<long[]> trace) {
    }

    /**
     * @param title  chart title
     * @param series the lines
     * @param soft   the model's soft cap
     * @param hard   the model's hard cap
     * @return the SVG document
     */
    public static String svg(String title, List<Series> series, int soft, int hard) {
        double maxT = 1;
        long maxY = hard + 2;
        for (Series s : series) {
            for (long[] p : s.trace()) {
                maxT = Math.max(maxT, p[0] / 1e6);
                maxY = Math.max(maxY, p[1]);
            }
        }
        double plotW = WIDTH - LEFT - RIGHT;
        double plotH = HEIGHT - TOP - BOTTOM;
        double xs = plotW / maxT;
        double ys = plotH / maxY;
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" font-size=\"12\">%n",
                WIDTH, HEIGHT));
        sb.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
        sb.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"18\" font-size=\"14\">%s</text>%n", LEFT, escape(title)));
        // Axes and ticks.
        double x0 = LEFT;
        double y0 = TOP + plotH;
        sb.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"black\"/>%n",
                x0, y0, x0 + plotW, y0));
        sb.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"black\"/>%n",
                x0, TOP, x0, y0));
        double tStep = niceStep(maxT / 8);
        for (double t = 0; t <= maxT; t += tStep) {
            double x = x0 + t * xs;
            sb.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%.0f</text>%n",
                    x, y0 + 16, t));
        }
        sb.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">time (ms)</text>%n",
                x0 + plotW / 2, HEIGHT - 6));
        double yStep = niceStep(maxY / 6.0);
        for (double v = 0; v <= maxY; v += yStep) {
            double y = y0 - v * ys;
            sb.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%.0f</text>%n",
                    x0 - 6, y + 4, v));
        }
        sb.append(String.format(Locale.ROOT,
                "<text x=\"14\" y=\"%.1f\" transform=\"rotate(-90 14 %.1f)\" text-anchor=\"middle\">in flight at the server</text>%n",
                TOP + plotH / 2, TOP + plotH / 2));
        reference(sb, "soft " + soft, soft, x0, y0, plotW, ys, "#999999");
        reference(sb, "hard " + hard, hard, x0, y0, plotW, ys, "#ff7f0e");
        for (int i = 0; i < series.size(); i++) {
            Series s = series.get(i);
            String color = COLORS[i % COLORS.length];
            sb.append("<polyline fill=\"none\" stroke-width=\"1.2\" stroke=\"").append(color).append("\" points=\"");
            long prevY = 0;
            for (long[] p : s.trace()) {
                double x = x0 + p[0] / 1e6 * xs;
                // Steps: hold the previous level until this change.
                sb.append(String.format(Locale.ROOT, "%.1f,%.1f %.1f,%.1f ", x, y0 - prevY * ys, x, y0 - p[1] * ys));
                prevY = p[1];
            }
            sb.append("\"/>\n");
            double ly = TOP + 20 + i * 20;
            sb.append(String.format(Locale.ROOT,
                    "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"3\"/>%n",
                    x0 + plotW + 12, ly, x0 + plotW + 32, ly, color));
            sb.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\">%s</text>%n",
                    x0 + plotW + 38, ly + 4, escape(s.name())));
        }
        sb.append("</svg>\n");
        return sb.toString();
    }

    private static void reference(StringBuilder sb, String label, int level, double x0, double y0, double plotW,
                                  double ys, String color) {
        double y = y0 - level * ys;
        sb.append(String.format(Locale.ROOT,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-dasharray=\"4 3\"/>%n",
                x0, y, x0 + plotW, y, color));
        sb.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\" fill=\"%s\">%s</text>%n",
                x0 + plotW - 50, y - 3, color, label));
    }

    private static double niceStep(double raw) {
        double p = Math.pow(10, Math.floor(Math.log10(Math.max(raw, 1e-9))));
        double f = raw / p;
        return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * p;
    }

    private static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }
}
