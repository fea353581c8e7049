/**
 * The one options model every face reads: {@link dev.adaptive.config.AdaptiveConfig} (an
 * immutable value built by its builder, or bound from a string-keyed map) and
 * {@link dev.adaptive.config.ConfigOption} (each option's name, kind, unit, default and
 * description). The Camel component's URI and properties options and the Vert.x module's JSON
 * options translate their syntax onto it, so every face has the same names, defaults, checks
 * and messages.
 *
 * <p>Status: public API.
 */
package dev.adaptive.config;
