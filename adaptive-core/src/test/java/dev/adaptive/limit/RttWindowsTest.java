package dev.adaptive.limit;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class RttWindowsTest {

    @Test
    void batchKeepsArrivalOrderAndComparesByContent() {
        RttBatch a = RttBatch.EMPTY.plus(3).plus(1).plus(2);
        RttBatch b = RttBatch.EMPTY.plus(3).plus(1).plus(2);
        assertThat(a.toArray()).containsExactly(3, 1, 2);
        assertThat(a.count()).isEqualTo(3);
        assertThat(a).isEqualTo(b).hasSameHashCodeAs(b).isNotEqualTo(RttBatch.EMPTY.plus(3).plus(1).plus(4));
        assertThat(RttBatch.EMPTY.plus(1)).isNotEqualTo(RttBatch.EMPTY.plus(1).plus(1));
    }

    @Test
    void aLongBatchNeitherOverflowsTheStackNorCopiesPerSample() {
        RttBatch a = RttBatch.EMPTY;
        RttBatch b = RttBatch.EMPTY;
        for (int i = 0; i < 200_000; i++) {
            a = a.plus(i);
            b = b.plus(i);
        }
        assertThat(a).isEqualTo(b);
        assertThat(a.hashCode()).isEqualTo(b.hashCode());
    }

    @Test
    void historyKeepsTheNewestUpToCapacity() {
        RttHistory h = RttHistory.empty(5).plus(new long[] {1, 2, 3});
        assertThat(h.size()).isEqualTo(3);
        h = h.plus(new long[] {4, 5, 6});
        assertThat(h).isEqualTo(RttHistory.empty(5).plus(new long[] {2, 3, 4, 5, 6}));
        h = h.plus(new long[] {10, 11, 12, 13, 14, 15, 16});
        assertThat(h).isEqualTo(RttHistory.empty(5).plus(new long[] {12, 13, 14, 15, 16}));
        assertThat(h.capacity()).isEqualTo(5);
    }

    @Test
    void quantileIsTheLowerNearestRank() {
        RttHistory h = RttHistory.empty(100).plus(new long[] {50, 10, 40, 20, 30});
        assertThat(h.quantile(0)).isEqualTo(10);
        assertThat(h.quantile(0.3)).isEqualTo(20);
        assertThat(h.quantile(0.5)).isEqualTo(30);
        assertThat(h.quantile(1)).isEqualTo(50);
    }

    @Test
    void quantileDoesNotReorderTheHistory() {
        RttHistory h = RttHistory.empty(10).plus(new long[] {3, 1, 2});
        h.quantile(0.5);
        assertThat(h).isEqualTo(RttHistory.empty(10).plus(new long[] {3, 1, 2}));
    }
}
