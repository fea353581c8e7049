package dev.adaptive.camel;

/**
 * The parts of an HTTP response that matter for classification.
 *
 * @param status     the status code
 * @param retryAfter the raw {@code Retry-After} value, or {@code null} if the response had none
 */
record HttpAnswer(int status, String retryAfter) {
}
