package dev.adaptive.examples.demo;

import java.io.PrintStream;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * One terminal line per run, rewritten in place four times a second: items done, the
 * concurrency limit, attempts in flight and 429s so far. Used by one run at a time.
 */
final class ProgressLine implements AutoCloseable {

    private final PrintStream out;
    private final String name;
    private final int items;
    private final TraceRecorder trace;
    private final ScheduledExecutorService ticker;

    ProgressLine(PrintStream out, String name, int items, TraceRecorder trace) {
        this.out = out;
        this.name = name;
        this.items = items;
        this.trace = trace;
        this.ticker = Executors.newSingleThreadScheduledExecutor(Threads.daemon("demo-progress"));
        ticker.scheduleAtFixedRate(this::print, 0, 250, TimeUnit.MILLISECONDS);
    }

    private void print() {
        out.print("\r" + line() + "   ");
        out.flush();
    }

    private String line() {
        if (!trace.begun()) {
            return String.format(Locale.ROOT, "  %-14s starting...", name);
        }
        double seconds = (trace.ticker().nanoTime() - trace.startNanos()) / 1e9;
        long done = trace.done();
        int width = 24;
        int filled = (int) (width * done / Math.max(1, items));
        String bar = "#".repeat(filled) + ".".repeat(width - filled);
        return String.format(Locale.ROOT, "  %-14s [%s] %4d/%d  concurrency %3d  in flight %3d  429s %4d  %5.1f s",
                name, bar, done, items, trace.limit(), trace.inflight(), trace.rateLimited(), seconds);
    }

    @Override
    public void close() {
        ticker.shutdownNow();
        try {
            ticker.awaitTermination(1, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        out.println("\r" + line() + "   ");
        out.flush();
    }
}
