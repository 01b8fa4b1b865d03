package io.dask4j.mpi.engine;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

class RecentPeersTest {

    @Test
    void drainHandsOverEachMarkedRankOnceInOrderAndClears() {
        RecentPeers peers = new RecentPeers(200);
        for (int rank : new int[]{130, 3, 64, 3, 199, 0, 63}) {
            peers.mark(rank);
        }
        List<Integer> rung = new ArrayList<>();
        peers.drain(rung::add);
        assertThat(rung).containsExactly(0, 3, 63, 64, 130, 199);
        List<Integer> again = new ArrayList<>();
        peers.drain(again::add);
        assertThat(again).isEmpty();
    }

    @Test
    void marksFromManyThreadsAreNeitherLostNorDuplicated() throws Exception {
        RecentPeers peers = new RecentPeers(512);
        Set<Integer> drained = ConcurrentHashMap.newKeySet();
        List<Integer> all = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            int offset = t;
            threads.add(Thread.ofPlatform().start(() -> {
                for (int rank = offset; rank < 512; rank += 4) {
                    peers.mark(rank);
                }
            }));
        }
        // Drain while the marks arrive: each rank is handed over at least once in one of the drains.
        while (threads.stream().anyMatch(Thread::isAlive)) {
            peers.drain(rank -> {
                drained.add(rank);
                all.add(rank);
            });
        }
        for (Thread thread : threads) {
            thread.join();
        }
        peers.drain(rank -> {
            drained.add(rank);
            all.add(rank);
        });
        assertThat(drained).hasSize(512);
        assertThat(all).hasSize(512); // no rank twice: each was marked once
    }
}
