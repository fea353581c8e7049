package dev.adaptive.fleet;

import dev.adaptive.gen.Gen;
import dev.adaptive.gen.Property;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class FleetSharesTest {

    private static final Instant AT = Instant.parse("2030-01-01T00:00:00Z");

    private static NodeReport node(String id, int limit, int claim) {
        return new NodeReport(id, "i", limit, 0, claim, AT);
    }

    @Test
    void theCeilingIsTheUpperMedianOfTheLocalLimits() {
        assertThat(FleetShares.of(List.of(node("a", 12, 0))).globalCeiling()).isEqualTo(12);
        assertThat(FleetShares.of(List.of(node("a", 5, 0), node("b", 30, 0))).globalCeiling()).isEqualTo(30);
        assertThat(FleetShares.of(List.of(node("a", 5, 0), node("b", 30, 0), node("c", 1000, 0))).globalCeiling())
                .isEqualTo(30);
        assertThat(FleetShares.of(List.of(node("d", 4, 0), node("c", 3, 0), node("b", 2, 0), node("a", 1, 0)))
                .globalCeiling()).isEqualTo(3);
        assertThat(FleetShares.of(List.of()).globalCeiling()).isZero();
    }

    @Test
    void sharesAreEvenAndTheRemainderGoesToTheFirstNodesById() {
        FleetShares s = FleetShares.of(List.of(node("c", 20, 0), node("a", 20, 0), node("b", 20, 0)));
        assertThat(List.of(s.shareOf("a", "i"), s.shareOf("b", "i"), s.shareOf("c", "i"))).containsExactly(7, 7, 6);
        assertThat(s.shareOf("z", "i")).isEqualTo(-1);
        assertThat(s.shareOf("a", "other")).isEqualTo(-1);
        FleetShares tiny = FleetShares.of(List.of(node("a", 2, 0), node("b", 2, 0), node("c", 2, 0)));
        assertThat(List.of(tiny.shareOf("a", "i"), tiny.shareOf("b", "i"), tiny.shareOf("c", "i")))
                .containsExactly(1, 1, 0);
    }

    @Test
    void claimsFitOnlyWhileTheyDoNotExceedTheCeiling() {
        assertThat(FleetShares.of(List.of(node("a", 10, 5), node("b", 10, 5))).fits()).isTrue();
        FleetShares over = FleetShares.of(List.of(node("a", 10, 6), node("b", 10, 5)));
        assertThat(over.fits()).isFalse();
        assertThat(over.claimed()).isEqualTo(11);
    }

    @Test
    void aRepeatedReportCountsOnce() {
        FleetShares s = FleetShares.of(List.of(node("a", 10, 9), node("a", 10, 4)));
        assertThat(s.liveNodes()).isEqualTo(1);
        assertThat(s.claimed()).isEqualTo(4);
    }

    @Test
    void sharesSumToTheCeilingWhateverTheLimits() {
        Property.forAll(300, Gen.lists(Gen.ints(1, 5000), 1, 40), limits -> {
            List<NodeReport> reports = new ArrayList<>();
            for (int i = 0; i < limits.size(); i++) {
                reports.add(node("n" + i, limits.get(i), 0));
            }
            FleetShares s = FleetShares.of(reports);
            long sum = 0;
            for (int i = 0; i < limits.size(); i++) {
                int share = s.shareOf("n" + i, "i");
                assertThat(share).isBetween(s.globalCeiling() / limits.size(), s.globalCeiling() / limits.size() + 1);
                sum += share;
            }
            assertThat(sum).isEqualTo(s.globalCeiling());
            long atLeast = limits.stream().filter(l -> l >= s.globalCeiling()).count();
            long above = limits.stream().filter(l -> l > s.globalCeiling()).count();
            assertThat(2 * atLeast).isGreaterThanOrEqualTo(limits.size());
            assertThat(2 * above).isLessThanOrEqualTo(limits.size());
        });
    }
}
