package dev.adaptive.examples;

import dev.adaptive.examples.demo.Target;
import dev.adaptive.testing.FlakyHttpServer;
import dev.adaptive.testing.FlakyModel;

/**
 * Where a standalone example sends its requests: the URL given as its first argument
 * ({@code {i}} = item index), or else an embedded {@link FlakyHttpServer} with the S3 model,
 * stopped by {@link #close()}. Used by one example at a time.
 */
public final class ExampleTarget implements AutoCloseable {

    private final Target target;
    private final FlakyHttpServer server;

    private ExampleTarget(Target target, FlakyHttpServer server) {
        this.target = target;
        this.server = server;
    }

    /**
     * @param args the example's command line
     * @return the URL of {@code args[0]}, or a freshly started embedded server
     */
    public static ExampleTarget fromArgs(String[] args) {
        if (args.length > 0) {
            return new ExampleTarget(new Target(args[0]), null);
        }
        FlakyHttpServer server = FlakyHttpServer.start(FlakyModel.s3());
        return new ExampleTarget(Target.itemsOf(server.uri()), server);
    }

    /** @return where the items go */
    public Target target() {
        return target;
    }

    /** @return the base URL, without the item path: what Camel's and Vert.x's configs take */
    public String baseUrl() {
        String t = target.template();
        int items = t.indexOf("/items/{i}");
        return items >= 0 ? t.substring(0, items) : t;
    }

    @Override
    public void close() {
        if (server != null) {
            server.close();
        }
    }
}
