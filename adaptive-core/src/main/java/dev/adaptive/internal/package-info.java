/**
 * Helpers the engine and its faces share (text and duration parsing, option checks, overflow
 * safe arithmetic, cause-chain search, listener isolation, the lock-free work loop, a set of
 * live tasks). Public only because several packages and modules use them.
 *
 * <p>Status: internal. Not an API: anything here may change or go in any release; do not
 * depend on it. It depends on no other package of the library.
 */
package dev.adaptive.internal;
