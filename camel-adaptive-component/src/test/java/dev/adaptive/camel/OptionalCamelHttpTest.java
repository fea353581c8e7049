package dev.adaptive.camel;

import dev.adaptive.limit.Outcome;
import dev.adaptive.testing.HidingClassLoader;
import org.apache.camel.Exchange;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.time.Clock;
import java.time.Duration;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * camel-http-base is an optional dependency: with it hidden from the class loader, every class
 * of the component still loads and the default classifier still works (reading the response
 * code header), without a {@link NoClassDefFoundError}.
 */
class OptionalCamelHttpTest {

    @Test
    void theComponentWorksWithoutCamelHttpOnTheClassPath() throws Exception {
        ClassLoader loader = new HidingClassLoader(getClass().getClassLoader(), "dev.adaptive.camel.",
                "org.apache.camel.http.base.");
        for (String name : new String[] {"AdaptiveComponent", "AdaptiveEndpoint", "AdaptiveProducer",
                "AdaptiveConsumer", "ExchangePool", "Submission", "PoolConfig", "HttpStatusClassifier"}) {
            Class<?> c = Class.forName("dev.adaptive.camel." + name, true, loader);
            assertThat(c.getClassLoader()).isSameAs(loader);
        }
        Class<?> classifierClass = Class.forName("dev.adaptive.camel.HttpStatusClassifier", true, loader);
        Method present = classifierClass.getDeclaredMethod("httpBasePresent");
        present.setAccessible(true);
        assertThat(present.invoke(null)).isEqualTo(false);

        Constructor<?> ctor = classifierClass.getDeclaredConstructor(Set.class, Duration.class, Clock.class,
                boolean.class);
        ctor.setAccessible(true);
        Object classifier = ctor.newInstance(Set.of(429, 503), Duration.ofMinutes(1), Clock.systemUTC(), true);
        Method classify = classifierClass.getMethod("classify", Exchange.class);
        classify.setAccessible(true);

        Exchange failed = new DefaultExchange(new DefaultCamelContext());
        failed.setException(new IllegalStateException("no http here"));
        assertThat(classify.invoke(classifier, failed)).isEqualTo(Outcome.DROPPED);

        Exchange limited = new DefaultExchange(new DefaultCamelContext());
        limited.getMessage().setHeader(Exchange.HTTP_RESPONSE_CODE, 429);
        limited.getMessage().setHeader("Retry-After", "3");
        assertThat(classify.invoke(classifier, limited)).isEqualTo(Outcome.rateLimited(Duration.ofSeconds(3)));
    }

    @Test
    void withCamelHttpPresentItsExceptionIsRead() {
        assertThat(HttpStatusClassifier.httpBasePresent()).isTrue();
    }
}
