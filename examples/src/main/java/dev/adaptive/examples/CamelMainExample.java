package dev.adaptive.examples;

import dev.adaptive.camel.AdaptiveComponent;
import dev.adaptive.camel.AdaptiveStats;
import dev.adaptive.examples.server.FlakyModel;
import dev.adaptive.examples.server.FlakyServer;
import org.apache.camel.main.BaseMainSupport;
import org.apache.camel.main.Main;
import org.apache.camel.main.MainListenerSupport;

/**
 * A Camel Main application configured by {@code application.properties} alone: the routes
 * ({@code camel/orders-main.camel.yaml}), camel-http without its own 429 retries and with enough
 * connections, and the {@code orders-api} pool ({@code camel.component.adaptive.pools.orders-api.*}).
 * The only code is this launcher, which starts a local flaky API when no {@code api.url} is given.
 *
 * <pre>java dev.adaptive.examples.CamelMainExample [api-base-url]</pre>
 */
public final class CamelMainExample {

    private CamelMainExample() {
    }

    /**
     * @param args optional base URL of the API ({@code /items/{i}} is appended); default: an embedded flaky server
     * @throws Exception when Camel cannot start
     */
    public static void main(String[] args) throws Exception {
        FlakyServer local = args.length > 0 ? null : FlakyServer.start(FlakyModel.s3());
        try {
            Main main = new Main();
            main.addOverrideProperty("api.url", local != null ? local.uri().toString() : args[0]);
            main.addMainListener(new MainListenerSupport() {
                @Override
                public void beforeStop(BaseMainSupport stopped) {
                    AdaptiveStats stats = stopped.getCamelContext().getComponent("adaptive", AdaptiveComponent.class)
                            .stats("orders-api").orElse(null);
                    if (stats != null) {
                        System.out.printf("camel main: %d ok, %d failed, limit %d (max reached %d), %d rate-limit"
                                + " events%n", stats.completed(), stats.failed(), stats.limit(),
                                stats.maxLimitReached(), stats.rateLimitEvents());
                    }
                }
            });
            main.run();
        } finally {
            if (local != null) {
                local.close();
            }
        }
    }
}
