package dev.adaptive.guard;

import dev.adaptive.gen.Gen;
import dev.adaptive.gen.Property;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class RollingMinTest {

    record Case(int capacity, List<Integer> values) {
    }

    @Test
    void isTheMinimumOfTheLastCapacityValues() {
        Gen<Case> cases = Gen.zip(Gen.ints(1, 20), Gen.lists(Gen.ints(0, 50), 1, 200), Case::new);
        Property.forAll(300, cases, c -> {
            RollingMin window = RollingMin.empty(c.capacity());
            assertThat(window.isEmpty()).isTrue();
            List<Integer> values = c.values();
            for (int i = 0; i < values.size(); i++) {
                window = window.plus(values.get(i));
                long expected = Long.MAX_VALUE;
                for (int j = Math.max(0, i - c.capacity() + 1); j <= i; j++) {
                    expected = Math.min(expected, values.get(j));
                }
                assertThat(window.min()).isEqualTo(expected);
            }
        });
    }
}
