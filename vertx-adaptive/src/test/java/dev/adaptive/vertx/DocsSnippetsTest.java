package dev.adaptive.vertx;

import dev.adaptive.docs.Snippets;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.Message;
import io.vertx.core.http.HttpServer;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The README's Vert.x snippets, read from the page and run as printed: the web-client snippet
 * compiled and run against a loopback server (only its host and port rewritten), and the proxy
 * verticle deployed from nothing but the JSON config the page shows.
 */
@ExtendWith(VertxExtension.class)
class DocsSnippetsTest {

    @Test
    void theReadmeWebClientSnippetRunsAsPrintedAndSizesThePoolToMaxLimit(Vertx vertx) throws Exception {
        Promise<String> served = Promise.promise();
        HttpServer server = Await.result(vertx.createHttpServer().requestHandler(req -> {
            req.response().end("order " + req.path());
            served.tryComplete(req.path());
        }).listen(0, "127.0.0.1"));
        String snippet = Snippets.blocks("README.md", "## Vert.x", "java").get(0);
        Matcher limit = Pattern.compile("setMaxLimit\\((\\d+)\\)").matcher(snippet);
        Matcher pool = Pattern.compile("setHttp1MaxSize\\((\\d+)\\)").matcher(snippet);
        assertThat(limit.find() && pool.find()).as("the snippet sets maxLimit and the web client's pool").isTrue();
        assertThat(Integer.parseInt(pool.group(1))).as("http1MaxSize >= maxLimit")
                .isGreaterThanOrEqualTo(Integer.parseInt(limit.group(1)));

        String source = "import dev.adaptive.vertx.*;\n"
                + "import io.vertx.core.Vertx;\n"
                + "import io.vertx.core.http.PoolOptions;\n"
                + "import io.vertx.ext.web.client.WebClient;\n"
                + "import io.vertx.ext.web.client.WebClientOptions;\n"
                + "public class Snippet implements java.util.function.Consumer<Vertx> {\n"
                + "    @Override\n    public void accept(Vertx vertx) {\n"
                + snippet.replace("8080, \"api.example.com\"", server.actualPort() + ", \"127.0.0.1\"")
                + "\n    }\n}\n";
        @SuppressWarnings("unchecked")
        Consumer<Vertx> run = Snippets.compile(source, "Snippet", Consumer.class);
        run.accept(vertx);
        assertThat(Await.result(served.future())).isEqualTo("/orders/42");
    }

    @Test
    void theProxyVerticleDeploysFromTheReadmesJsonConfigAlone(Vertx vertx) throws Exception {
        JsonObject config = new JsonObject(Snippets.blocks("README.md", "## Configuration alone", "json").get(0));
        AdaptiveProxyOptions options = new AdaptiveProxyOptions(config);
        assertThat(options.getRequestTimeout()).isEqualTo(30_000);
        assertThat(options.getOptions().getMaxRetryAfter()).isEqualTo(120_000);
        vertx.eventBus().<String>consumer(config.getString("targetAddress"), (Message<String> m) -> m.reply("ok " + m.body()));
        Await.result(vertx.deployVerticle(AdaptiveProxyVerticle.class, new DeploymentOptions().setConfig(config)));
        Object reply = Await.result(vertx.eventBus().request(config.getString("address"), "42")).body();
        assertThat(reply).isEqualTo("ok 42");
    }
}
