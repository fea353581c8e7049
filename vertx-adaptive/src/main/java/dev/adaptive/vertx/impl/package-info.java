/**
 * The implementations behind the Vert.x module's interfaces, made by their static
 * {@code create} and {@code builder} methods, as in the other Vert.x modules.
 *
 * <p>Status: internal. Not an API: anything here may change in any release; program against
 * the interfaces of {@code dev.adaptive.vertx}.
 */
package dev.adaptive.vertx.impl;
