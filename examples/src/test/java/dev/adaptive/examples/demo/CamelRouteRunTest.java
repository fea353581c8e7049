package dev.adaptive.examples.demo;

import org.apache.camel.CamelContext;
import org.apache.camel.component.http.HttpComponent;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The demo's Camel run sets camel-http up on both schemes, since {@code --url} may be https. */
class CamelRouteRunTest {

    @Test
    void bothHttpComponentsLeaveRetriesToThePoolAndHaveMaxConnectionsPerHost() throws Exception {
        try (CamelContext camel = new DefaultCamelContext()) {
            CamelRouteRun.configureHttp(camel);
            for (String scheme : List.of("http", "https")) {
                HttpComponent http = camel.getComponent(scheme, HttpComponent.class);
                assertThat(http.isAutomaticRetriesDisabled()).as("%s retries 429s itself", scheme).isTrue();
                assertThat(http.getConnectionsPerRoute()).as("%s connectionsPerRoute", scheme)
                        .isGreaterThanOrEqualTo(CamelRouteRun.MAX);
            }
        }
    }
}
