package dev.adaptive.examples.demo;

import java.net.URI;

/**
 * Where the demo's items go: a URL template in which {@code {i}} is replaced by the item's
 * index (no {@code {i}}: every item requests the same URL). Immutable.
 *
 * @param template the URL template
 */
public record Target(String template) {

    /** Validates that the template is an absolute http(s) URL. */
    public Target {
        URI probe = URI.create(template.replace("{i}", "0"));
        if (probe.getScheme() == null || !probe.getScheme().startsWith("http") || probe.getHost() == null) {
            throw new IllegalArgumentException("url must be an absolute http(s) URL: " + template);
        }
    }

    /**
     * @param base the embedded server's base URI
     * @return {@code base/items/{i}}
     */
    public static Target itemsOf(URI base) {
        return new Target(base + "/items/{i}");
    }

    /**
     * @param index the item
     * @return its URL
     */
    public URI uri(long index) {
        return URI.create(template.replace("{i}", Long.toString(index)));
    }

    /** @return the template as a String, the form Camel's {@code toD} and Vert.x take */
    public String forItem(long index) {
        return uri(index).toString();
    }
}
