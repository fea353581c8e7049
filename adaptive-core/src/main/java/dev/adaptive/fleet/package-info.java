/**
 * One ceiling and one Retry-After pause shared by a fleet of limiters: a
 * {@link dev.adaptive.fleet.FleetMember} reports to a {@link dev.adaptive.fleet.Coordinator}
 * and applies its share to its limiter's ceiling; {@link dev.adaptive.fleet.InMemoryCoordinator}
 * serves one JVM, and the Hazelcast and Vert.x modules provide distributed ones.
 *
 * <p>Status: public API; {@code Coordinator} is an SPI for the storage a fleet shares.
 */
package dev.adaptive.fleet;
