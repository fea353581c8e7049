package dev.adaptive.guard;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class RollingMinTest {

    @Property(tries = 300)
    void isTheMinimumOfTheLastCapacityValues(@ForAll @IntRange(min = 1, max = 20) int capacity,
                                             @ForAll @Size(min = 1, max = 200) List<@IntRange(min = 0, max = 50) Integer> values) {
        RollingMin window = RollingMin.empty(capacity);
        assertThat(window.isEmpty()).isTrue();
        for (int i = 0; i < values.size(); i++) {
            window = window.plus(values.get(i));
            long expected = Long.MAX_VALUE;
            for (int j = Math.max(0, i - capacity + 1); j <= i; j++) {
                expected = Math.min(expected, values.get(j));
            }
            assertThat(window.min()).isEqualTo(expected);
        }
    }
}
