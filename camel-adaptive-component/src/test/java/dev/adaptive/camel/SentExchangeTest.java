package dev.adaptive.camel;

import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.ExchangePropertyKey;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a caller's exchange goes back to, and what a retry starts from, when its first attempt
 * ran on the exchange itself.
 */
class SentExchangeTest {

    private final CamelContext camel = new DefaultCamelContext();

    @AfterEach
    void close() throws Exception {
        camel.close();
    }

    /**
     * The pool reads the internal properties from Camel's own map, not key by key (which cost a
     * tenth of a synchronous exchange). If a Camel upgrade renames or hides the map, the pool
     * still works, key by key, and this test says the cheap path is gone.
     */
    @Test
    void internalPropertiesAreReadFromCamelsOwnMap() {
        assertThat(SentExchange.readsInternalMap()).isTrue();
    }

    @Test
    void restoreBringsBackWhatWasSentAndDropsWhatTheAttemptWrote() {
        for (boolean fromMap : new boolean[] {true, false}) {
            Exchange x = sent();
            SentExchange kept = fromMap ? SentExchange.of(x) : SentExchange.readKeyByKey(x);
            attemptWrites(x);

            kept.restore(x);

            assertAsSent(x, fromMap ? "from the map" : "key by key");
        }
    }

    @Test
    void aNewAttemptStartsFromWhatWasSentCorrelatedToTheCaller() {
        Exchange x = sent();
        SentExchange kept = SentExchange.of(x);
        attemptWrites(x);

        Exchange retry = kept.newAttempt(true);

        assertAsSent(retry, "a retry");
        assertThat(retry).isNotSameAs(x);
        assertThat(retry.getProperty(ExchangePropertyKey.CORRELATION_ID)).isEqualTo(x.getExchangeId());
    }

    @Test
    void anExchangeWithNoInternalPropertiesKeepsNone() {
        Exchange x = new DefaultExchange(camel);
        x.getIn().setBody("b");
        SentExchange kept = SentExchange.of(x);
        x.setProperty(ExchangePropertyKey.CHARSET_NAME, "ISO-8859-1");
        x.setProperty(ExchangePropertyKey.FAILURE_ENDPOINT, "mock:failed");

        kept.restore(x);

        assertThat(x.getProperty(ExchangePropertyKey.CHARSET_NAME)).isNull();
        assertThat(x.getProperty(ExchangePropertyKey.FAILURE_ENDPOINT)).isNull();
        assertThat(x.getIn().getBody()).isEqualTo("b");
    }

    private Exchange sent() {
        Exchange x = new DefaultExchange(camel);
        x.getIn().setBody("sent");
        x.getIn().setHeader("h", "1");
        x.setProperty("p", "1");
        x.setVariable("v", "1");
        // Internal properties at both ends of the keys' order and in between.
        ExchangePropertyKey[] keys = ExchangePropertyKey.values();
        x.setProperty(keys[0], "first");
        x.setProperty(ExchangePropertyKey.CHARSET_NAME, "UTF-8");
        x.setProperty(keys[keys.length - 1], "last");
        return x;
    }

    private static void attemptWrites(Exchange x) {
        x.getIn().setBody("written");
        x.getIn().setHeader("h", "2");
        x.getIn().setHeader("h2", "new");
        x.setProperty("p", "2");
        x.setProperty("p2", "new");
        x.setVariable("v", "2");
        ExchangePropertyKey[] keys = ExchangePropertyKey.values();
        x.setProperty(keys[0], "changed");
        x.setProperty(ExchangePropertyKey.CHARSET_NAME, "ISO-8859-1");
        x.removeProperty(keys[keys.length - 1]);
        x.setProperty(ExchangePropertyKey.FAILURE_ENDPOINT, "mock:failed");
        x.setException(new IllegalStateException("attempt failed"));
    }

    private static void assertAsSent(Exchange x, String how) {
        ExchangePropertyKey[] keys = ExchangePropertyKey.values();
        assertThat(x.getIn().getBody()).as(how).isEqualTo("sent");
        assertThat(x.getIn().getHeader("h")).as(how).isEqualTo("1");
        assertThat(x.getIn().getHeader("h2")).as(how).isNull();
        assertThat(x.getProperty("p")).as(how).isEqualTo("1");
        assertThat(x.getProperty("p2")).as(how).isNull();
        assertThat(x.getVariable("v")).as(how).isEqualTo("1");
        assertThat(x.getProperty(keys[0])).as(how).isEqualTo("first");
        assertThat(x.getProperty(ExchangePropertyKey.CHARSET_NAME)).as(how).isEqualTo("UTF-8");
        assertThat(x.getProperty(keys[keys.length - 1])).as(how).isEqualTo("last");
        assertThat(x.getProperty(ExchangePropertyKey.FAILURE_ENDPOINT)).as(how).isNull();
        assertThat(x.getException()).as(how).isNull();
    }
}
