/**
 * The fleet {@link dev.adaptive.fleet.Coordinator} on Hazelcast 5,
 * {@link dev.adaptive.hazelcast.HazelcastCoordinator}: every JVM with a member or a client of
 * one cluster shares one ceiling and one Retry-After pause per key, without Vert.x. The entry
 * processors and codecs beside it are how it stores; they are package-private.
 *
 * <p>Status: public API.
 */
package dev.adaptive.hazelcast;
