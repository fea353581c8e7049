package dev.adaptive.internal;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

class LiveSetTest {

    @Test
    void aCloseCancelsEveryMemberAndEveryMemberAddedAfterIt() {
        Map<String, String> cancelled = new ConcurrentHashMap<>();
        LiveSet<String, String> live = new LiveSet<>(cancelled::put);
        assertThat(live.add("a")).isTrue();
        assertThat(live.add("b")).isTrue();
        assertThat(live.remove("b")).isTrue();
        assertThat(live.remove("b")).as("once per member").isFalse();

        assertThat(live.close("stopped")).isTrue();
        assertThat(live.close("again")).as("only the first close counts").isFalse();
        assertThat(live.add("late")).as("added after the close: cancelled at once").isFalse();

        assertThat(cancelled).containsOnly(Map.entry("a", "stopped"), Map.entry("late", "stopped"));
        assertThat(live.isClosed()).isTrue();
        assertThat(live.size()).as("members stay until their owners remove them").isEqualTo(2);
    }

    @Test
    void cancelIfCancelsThePickedMembersWithoutClosing() {
        List<String> cancelled = new ArrayList<>();
        LiveSet<String, String> live = new LiveSet<>((m, why) -> cancelled.add(m + ":" + why));
        live.add("queued-1");
        live.add("running");
        live.add("queued-2");
        assertThat(live.cancelIf(m -> m.startsWith("queued"), "timeout")).isEqualTo(2);
        assertThat(cancelled).containsExactlyInAnyOrder("queued-1:timeout", "queued-2:timeout");
        assertThat(live.isClosed()).isFalse();
        assertThat(live.add("next")).isTrue();
    }

    @Test
    void noMemberAddedWhileACloseSweepsIsMissed() throws Exception {
        for (int round = 0; round < 200; round++) {
            AtomicInteger added = new AtomicInteger();
            Map<Integer, Boolean> cancelled = new ConcurrentHashMap<>();
            LiveSet<Integer, String> live = new LiveSet<>((m, why) -> cancelled.put(m, true));
            CountDownLatch go = new CountDownLatch(1);
            List<Thread> adders = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                int base = t * 1_000_000;
                Thread adder = new Thread(() -> {
                    try {
                        go.await();
                    } catch (InterruptedException e) {
                        return;
                    }
                    for (int i = 0; i < 500; i++) {
                        live.add(base + i);
                        added.incrementAndGet();
                    }
                });
                adder.start();
                adders.add(adder);
            }
            go.countDown();
            live.close("stopped");
            for (Thread adder : adders) {
                adder.join();
            }
            assertThat(cancelled).as("every member cancelled, round " + round).hasSize(added.get());
        }
    }
}
