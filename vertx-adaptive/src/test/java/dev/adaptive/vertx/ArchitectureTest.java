package dev.adaptive.vertx;

import dev.adaptive.contract.ArchitectureContract;

/** The module's packages hold to {@link ArchitectureContract} ({@code impl} counting as part of its API package). */
class ArchitectureTest extends ArchitectureContract {
}
