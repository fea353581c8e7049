package dev.adaptive.examples.demo;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A small time chart rendered as inline SVG: shaded bands (pauses), step lines (concurrency)
 * and dots (latencies) over seconds on the x axis. No scripts, no external resources, so the
 * report opens anywhere. Mutable builder; one thread.
 */
final class SvgChart {

    private static final int WIDTH = 1200;
    private static final int HEIGHT = 230;
    private static final int LEFT = 60;
    private static final int RIGHT = 20;
    private static final int TOP = 28;
    private static final int BOTTOM = 36;

    private record Band(double from, double to, String color) {
    }

    private record Series(String label, String color, List<double[]> points, boolean step) {
    }

    private record Key(String label, String color, String kind) {
    }

    private final String yLabel;
    private final double xMax;
    private final double yMax;
    private final List<Band> bands = new ArrayList<>();
    private final List<Series> series = new ArrayList<>();
    private final List<Key> keys = new ArrayList<>();

    SvgChart(String yLabel, double xMaxSeconds, double yMax) {
        this.yLabel = yLabel;
        this.xMax = xMaxSeconds > 0 ? xMaxSeconds : 1;
        this.yMax = yMax > 0 ? yMax : 1;
    }

    SvgChart band(double fromSeconds, double toSeconds, String color) {
        bands.add(new Band(fromSeconds, Math.min(toSeconds, xMax), color));
        return this;
    }

    SvgChart bandKey(String label, String color) {
        keys.add(new Key(label, color, "band"));
        return this;
    }

    SvgChart step(String label, String color, List<double[]> points) {
        series.add(new Series(label, color, points, true));
        keys.add(new Key(label, color, "line"));
        return this;
    }

    SvgChart dots(String label, String color, List<double[]> points) {
        series.add(new Series(label, color, points, false));
        keys.add(new Key(label, color, "dot"));
        return this;
    }

    String render() {
        StringBuilder svg = new StringBuilder();
        svg.append(String.format(Locale.ROOT,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" width=\"100%%\" role=\"img\">%n",
                WIDTH, HEIGHT));
        svg.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#fcfcfd\" stroke=\"#d0d4da\"/>%n",
                LEFT, TOP, plotWidth(), plotHeight()));
        for (Band b : bands) {
            double x0 = x(b.from());
            double x1 = Math.max(x0 + 1, x(b.to()));
            svg.append(String.format(Locale.ROOT,
                    "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>%n",
                    x0, TOP, x1 - x0, plotHeight(), b.color()));
        }
        axes(svg);
        for (Series s : series) {
            if (s.step()) {
                svg.append(stepPath(s));
            } else {
                for (double[] p : s.points()) {
                    svg.append(String.format(Locale.ROOT, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.2\" fill=\"%s\" fill-opacity=\"0.75\"/>%n",
                            x(p[0]), y(Math.min(p[1], yMax)), s.color()));
                }
            }
        }
        legend(svg);
        svg.append("</svg>\n");
        return svg.toString();
    }

    private String stepPath(Series s) {
        if (s.points().isEmpty()) {
            return "";
        }
        StringBuilder d = new StringBuilder();
        double lastY = y(s.points().get(0)[1]);
        d.append(String.format(Locale.ROOT, "M%.1f %.1f", x(s.points().get(0)[0]), lastY));
        for (double[] p : s.points()) {
            double px = x(p[0]);
            double py = y(p[1]);
            d.append(String.format(Locale.ROOT, "H%.1fV%.1f", px, py));
            lastY = py;
        }
        d.append(String.format(Locale.ROOT, "H%.1f", x(xMax)));
        return String.format(Locale.ROOT, "<path d=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.8\"/>%n",
                d, s.color());
    }

    private void axes(StringBuilder svg) {
        double xStep = niceStep(xMax);
        for (double t = 0; t <= xMax + 1e-9; t += xStep) {
            svg.append(String.format(Locale.ROOT,
                    "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#e3e6ea\"/>"
                            + "<text x=\"%.1f\" y=\"%d\" font-size=\"12\" text-anchor=\"middle\" fill=\"#555\">%s s</text>%n",
                    x(t), TOP, x(t), TOP + plotHeight(), x(t), TOP + plotHeight() + 16, label(t)));
        }
        // Concurrency and milliseconds are whole numbers: no 0.5 ticks.
        double yStep = Math.max(1, niceStep(yMax));
        for (double v = 0; v <= yMax + 1e-9; v += yStep) {
            svg.append(String.format(Locale.ROOT,
                    "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#e3e6ea\"/>"
                            + "<text x=\"%d\" y=\"%.1f\" font-size=\"12\" text-anchor=\"end\" fill=\"#555\">%s</text>%n",
                    LEFT, y(v), LEFT + plotWidth(), y(v), LEFT - 6, y(v) + 4, label(v)));
        }
        svg.append(String.format(Locale.ROOT,
                "<text x=\"%d\" y=\"%d\" font-size=\"12\" fill=\"#333\" font-weight=\"bold\">%s</text>%n",
                LEFT, TOP - 10, Html.escape(yLabel)));
        svg.append(String.format(Locale.ROOT,
                "<text x=\"%d\" y=\"%d\" font-size=\"12\" text-anchor=\"end\" fill=\"#555\">time since start</text>%n",
                LEFT + plotWidth(), HEIGHT - 4));
    }

    private void legend(StringBuilder svg) {
        double x = LEFT + plotWidth();
        for (int k = keys.size() - 1; k >= 0; k--) {
            Key key = keys.get(k);
            double textWidth = key.label().length() * 6.6;
            x -= textWidth + 22;
            double y = TOP - 14;
            String mark = switch (key.kind()) {
                case "band" -> String.format(Locale.ROOT,
                        "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"10\" fill=\"%s\" stroke=\"#bbb\"/>", x, y - 1, key.color());
                case "line" -> String.format(Locale.ROOT,
                        "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\"/>",
                        x, y + 4, x + 14, y + 4, key.color());
                default -> String.format(Locale.ROOT, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"/>",
                        x + 7, y + 4, key.color());
            };
            svg.append(mark).append(String.format(Locale.ROOT,
                    "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" fill=\"#333\">%s</text>%n",
                    x + 18, y + 8, Html.escape(key.label())));
        }
    }

    private int plotWidth() {
        return WIDTH - LEFT - RIGHT;
    }

    private int plotHeight() {
        return HEIGHT - TOP - BOTTOM;
    }

    private double x(double seconds) {
        return LEFT + plotWidth() * Math.max(0, Math.min(seconds, xMax)) / xMax;
    }

    private double y(double value) {
        return TOP + plotHeight() * (1 - Math.max(0, value) / yMax);
    }

    static double niceStep(double max) {
        double raw = max / 6;
        double magnitude = Math.pow(10, Math.floor(Math.log10(raw)));
        double fraction = raw / magnitude;
        double nice = fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 5 ? 5 : 10;
        return nice * magnitude;
    }

    private static String label(double v) {
        return Math.abs(v - Math.rint(v)) < 1e-9 ? Long.toString(Math.round(v)) : String.format(Locale.ROOT, "%.1f", v);
    }
}
