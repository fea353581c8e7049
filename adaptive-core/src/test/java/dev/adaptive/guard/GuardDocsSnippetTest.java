package dev.adaptive.guard;

import dev.adaptive.docs.Snippets;
import org.junit.jupiter.api.Test;

import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The request handler that docs/core-guard-fleet.md prints for a {@link ConcurrencyGuard}, compiled
 * from the page and run as printed: whatever the handler's work throws, the lease is released
 * once, so the guard never keeps a slot for a request that has ended.
 */
class GuardDocsSnippetTest {

    @Test
    void theDocumentedHandlerGivesTheSlotBackWhateverTheWorkThrows() throws Exception {
        String snippet = Snippets.blocks("docs/core-guard-fleet.md", "## 1. ConcurrencyGuard", "java").get(0);
        assertThat(snippet).contains("ConcurrencyGuard.create()");
        // The page's names, given bodies: a request and a response of the test, and serve(), which
        // does what the test says. The page's TimeoutException is java.util.concurrent's; a checked
        // exception the page's handler does not declare, so the stand-in here is unchecked.
        String source = "import dev.adaptive.guard.*;\n"
                + "import java.util.concurrent.RejectedExecutionException;\n"
                + "public class GuardSnippet implements java.util.function.Function<String, Object[]> {\n"
                + "    static class TimeoutException extends RuntimeException {}\n"
                + "    static class Request {}\n"
                + "    static class Response {\n"
                + "        int status = 200;\n"
                + "        Response status(int s) { status = s; return this; }\n"
                + "        Response header(String k, String v) { return this; }\n"
                + "        void end() {}\n"
                + "    }\n"
                + "    void serve(Request req, Response res) {\n"
                + "        switch (outcome) {\n"
                + "            case \"timeout\" -> throw new TimeoutException();\n"
                + "            case \"bug\" -> throw new IllegalStateException(\"a bug in the handler\");\n"
                + "            case \"error\" -> throw new AssertionError(\"an Error in the handler\");\n"
                + "            default -> { }\n"
                + "        }\n"
                + "    }\n"
                + snippet.replace("ConcurrencyGuard.create()",
                        "ConcurrencyGuard.builder().time(new dev.adaptive.time.VirtualTime()).build()")
                + "\n"
                + "    @Override public Object[] apply(String what) {\n"
                + "        outcome = what;\n"
                + "        Response res = new Response();\n"
                + "        Throwable thrown = null;\n"
                + "        try { handle(new Request(), res); } catch (Throwable t) { thrown = t; }\n"
                + "        return new Object[] {res.status, thrown, guard};\n"
                + "    }\n"
                + "    static String outcome;\n"
                + "}\n";
        @SuppressWarnings("unchecked")
        Function<String, Object[]> handler = Snippets.compile(source, "GuardSnippet", Function.class);

        ConcurrencyGuard guard = (ConcurrencyGuard) handler.apply("ok")[2];
        assertThat(guard.inflight()).isZero();
        // More failing requests than the guard's limit (4): each must give its slot back, or the
        // guard ends up full of requests that have ended and answers 503 to everything after.
        for (String what : new String[] {"bug", "bug", "error", "bug", "timeout", "bug", "error", "bug"}) {
            Object[] r = handler.apply(what);
            assertThat(r[0]).as("answered after a " + what).isEqualTo(200);
            assertThat(r[1]).as("the handler rethrows the " + what).isNotNull();
            assertThat(guard.inflight()).as("in flight after a " + what).isZero();
        }
        Object[] last = handler.apply("ok");
        assertThat(last[0]).isEqualTo(200);
        assertThat(last[1]).isNull();
        GuardStats stats = guard.stats();
        assertThat(stats.shed()).isZero();
        assertThat(stats.admitted()).isEqualTo(10);
        // A success is a sample, a timeout a drop, a failure that says nothing of load neither.
        assertThat(guard.limiter().stats().successes()).isEqualTo(2);
        assertThat(guard.limiter().stats().congestionEvents()).isEqualTo(1);
        assertThat(guard.limiter().stats().ignored()).isEqualTo(7);
        assertThat(guard.inflight()).isZero();
    }
}
