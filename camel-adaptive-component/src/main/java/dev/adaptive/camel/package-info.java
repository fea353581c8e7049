/**
 * The Camel component {@code adaptive:}: {@code to("adaptive:name")} hands the exchange to the
 * route {@code from("adaptive:name")}, like {@code direct:}, through an adaptive pool that finds
 * the route's concurrency, retries failed attempts and pauses the whole pool on a 429's
 * Retry-After. {@link dev.adaptive.camel.AdaptiveComponent}, its
 * {@link dev.adaptive.camel.AdaptiveEndpoint}, producer and consumer are the Camel parts;
 * {@link dev.adaptive.camel.PoolConfiguration} configures named pools,
 * {@link dev.adaptive.camel.ExchangeClassifier} is the extension point for classifying a
 * finished exchange, {@link dev.adaptive.camel.AdaptiveStats} a pool's figures, and
 * {@link dev.adaptive.camel.AdaptiveRoutePolicy} sheds a route's own load.
 *
 * <p>Status: public API. The configurers and the endpoint's annotated options are Camel
 * plumbing: public because Camel calls them.
 */
package dev.adaptive.camel;
