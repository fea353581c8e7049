/**
 * The Vert.x face of Adaptive: {@link dev.adaptive.vertx.AdaptiveLimiter},
 * {@link dev.adaptive.vertx.AdaptivePool}, the event-bus helpers and proxy verticle, the web
 * client and the cluster coordinator, on the event loop with futures. The options and stats
 * are Vert.x data objects whose JSON converters vertx-codegen generates; the options are the
 * core's model ({@link dev.adaptive.config.AdaptiveConfig}) in JSON.
 *
 * <p>Status: public API. The {@code impl} package is internal.
 */
@ModuleGen(name = "vertx-adaptive", groupPackage = "dev.adaptive.vertx")
package dev.adaptive.vertx;

import io.vertx.codegen.annotations.ModuleGen;
