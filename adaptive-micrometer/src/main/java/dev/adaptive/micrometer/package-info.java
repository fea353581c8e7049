/**
 * Micrometer meters for Adaptive: {@link dev.adaptive.micrometer.LimiterMetrics} binds one
 * {@link dev.adaptive.Limiter} (and so one Camel pool, Vert.x limiter, pool run, queue or guard),
 * and its fleet membership if it has one, to a {@code MeterRegistry}. The meter names and tags
 * are listed on {@link dev.adaptive.micrometer.LimiterMetrics} and in the project's
 * documentation (docs/micrometer.md).
 */
package dev.adaptive.micrometer;
