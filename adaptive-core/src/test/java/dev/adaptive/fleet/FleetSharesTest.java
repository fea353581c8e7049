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

    private static NodeReport busy(String id, int limit, int demand) {
        return new NodeReport(id, "i", limit, 0, 0, AT, demand);
    }

    private static List<Integer> shares(FleetShares s, String... ids) {
        List<Integer> out = new ArrayList<>();
        for (String id : ids) {
            out.add(s.shareOf(id, "i"));
        }
        return out;
    }

    @Test
    void sharesFollowDemandAnIdleNodeKeepsOneSlotAndTheRestGoesToTheNodesWithWork() {
        int more = NodeReport.UNBOUNDED_DEMAND;
        assertThat(shares(FleetShares.of(List.of(busy("a", 30, 0), busy("b", 30, more), busy("c", 30, more))),
                "a", "b", "c")).containsExactly(1, 15, 14);
        // A node that needs less than an equal part gets what it needs; the others share the rest.
        assertThat(shares(FleetShares.of(List.of(busy("a", 30, more), busy("b", 30, 4), busy("c", 30, more))),
                "a", "b", "c")).containsExactly(13, 4, 13);
        // What nobody needs stays free, for the first node whose work grows.
        FleetShares idle = FleetShares.of(List.of(busy("a", 30, 0), busy("b", 30, 2)));
        assertThat(shares(idle, "a", "b")).containsExactly(1, 2);
        // Every demand unbounded (or unreported): the even split.
        assertThat(shares(FleetShares.of(List.of(busy("a", 20, more), busy("b", 20, more), busy("c", 20, more))),
                "a", "b", "c")).containsExactly(7, 7, 6);
        // Fewer slots than nodes: one slot each, to the nodes with work first, then in order.
        assertThat(shares(FleetShares.of(List.of(busy("a", 2, 0), busy("b", 2, more), busy("c", 2, more))),
                "a", "b", "c")).containsExactly(0, 1, 1);
        assertThat(shares(FleetShares.of(List.of(busy("a", 2, 0), busy("b", 2, 0), busy("c", 2, 3))),
                "a", "b", "c")).containsExactly(1, 0, 1);
        assertThat(shares(FleetShares.of(List.of(busy("a", 2, more), busy("b", 2, more), busy("c", 2, more))),
                "a", "b", "c")).containsExactly(1, 1, 0);
    }

    @Test
    void sharesNeverSumAboveTheCeilingWhateverTheDemands() {
        Property.forAll(500, Gen.longs(), seed -> {
            java.util.Random r = new java.util.Random(seed);
            List<NodeReport> live = new ArrayList<>();
            int n = 1 + r.nextInt(9);
            for (int i = 0; i < n; i++) {
                int demand = r.nextInt(4) == 0 ? NodeReport.UNBOUNDED_DEMAND : r.nextInt(40);
                live.add(busy("n" + i, 1 + r.nextInt(60), demand));
            }
            FleetShares s = FleetShares.of(live);
            int sum = 0;
            for (int share : s.shares()) {
                assertThat(share).isNotNegative();
                sum += share;
            }
            assertThat(sum).isLessThanOrEqualTo(s.globalCeiling());
            if (live.stream().anyMatch(x -> x.demand() == NodeReport.UNBOUNDED_DEMAND)) {
                assertThat(sum).isEqualTo(s.globalCeiling()); // a node that wants more takes what is left
            }
        });
    }

    @Test
    void aNegativeDemandIsRefused() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> busy("a", 1, -1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("demand");
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
