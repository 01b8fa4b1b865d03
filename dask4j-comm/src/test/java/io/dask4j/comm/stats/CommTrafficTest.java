package io.dask4j.comm.stats;

import io.dask4j.comm.Address;
import io.dask4j.comm.Comm;
import io.dask4j.comm.CommOptions;
import io.dask4j.comm.Comms;
import io.dask4j.comm.Frame;
import io.dask4j.comm.Listener;
import io.dask4j.comm.Message;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

@Timeout(30)
class CommTrafficTest {

    private static TrafficCounts transport(String scheme) {
        return CommTraffic.snapshot().transports().getOrDefault(scheme, TrafficCounts.ZERO);
    }

    private static void roundTrips(String scheme, Address address, int n, Message m) throws Exception {
        CompletableFuture<Void> served = new CompletableFuture<>();
        CommOptions options = CommOptions.defaults().withGeneratedSecret();
        Listener l = Comms.listen(address, options.withIdentity("echo"), c -> {
            try {
                for (int i = 0; i < n; i++) {
                    c.write(c.read());
                }
                served.complete(null);
            } finally {
                c.close();
            }
        });
        try (Comm c = Comms.connect(l.contactAddress(), options.withIdentity("pinger"))) {
            for (int i = 0; i < n; i++) {
                c.write(m);
                c.read();
            }
            served.get(10, TimeUnit.SECONDS);
        } finally {
            l.stop();
        }
    }

    @Test
    void everyHandshakenTcpMessageIsCountedOnceInEachDirectionWithItsWireSize() throws Exception {
        Message m = Message.of("ping", Map.of("k", "v"), List.of(Frame.of(new byte[1000])));
        TrafficCounts before = transport("tcp");
        roundTrips("tcp", Address.tcp("127.0.0.1", 0), 10, m);
        TrafficCounts after = transport("tcp");
        // both ends live in this process: 20 messages out (10 pings, 10 echoes) and 20 in
        assertThat(after.messagesOut() - before.messagesOut()).isEqualTo(20);
        assertThat(after.messagesIn() - before.messagesIn()).isEqualTo(20);
        assertThat(after.bytesOut() - before.bytesOut()).isEqualTo(20 * WireSize.of(m));
        assertThat(after.bytesIn() - before.bytesIn()).isEqualTo(20 * WireSize.of(m));
    }

    @Test
    void inprocTrafficIsCountedPerPeerWithTheHandshakeIdentity() throws Exception {
        Message m = Message.of("ping", Map.of("n", 1L));
        roundTrips("inproc", Address.inproc("traffic-" + UUID.randomUUID()), 5, m);
        List<PeerTraffic> inproc = CommTraffic.snapshot().peers().stream()
                .filter(p -> p.transport().equals("inproc")).toList();
        assertThat(inproc).anySatisfy(p -> {
            assertThat(p.identity()).isEqualTo("echo");
            assertThat(p.counts().messagesOut()).isGreaterThanOrEqualTo(5);
            assertThat(p.openComms()).isZero();
        });
    }

    @Test
    void peersBeyondTheCapAreAggregatedAndTransportTotalsStayExact() {
        List<Object> owners = new ArrayList<>();
        List<CommCounters> counters = new ArrayList<>();
        TrafficCounts before = transport("test-cap");
        for (int i = 0; i < CommTraffic.MAX_PEERS + 10; i++) {
            Object owner = new Object();
            owners.add(owner);
            CommCounters c = CommTraffic.open("test-cap", "peer-" + i, "id", owner);
            c.sent(100);
            c.received(10);
            counters.add(c);
        }
        TrafficSnapshot s = CommTraffic.snapshot();
        assertThat(s.peers().size()).isLessThanOrEqualTo(CommTraffic.MAX_PEERS + 3 * s.transports().size());
        assertThat(s.transports().get("test-cap").bytesOut() - before.bytesOut()).isEqualTo(100L * counters.size());
        assertThat(s.transports().get("test-cap").messagesIn() - before.messagesIn()).isEqualTo(counters.size());
        counters.forEach(CommCounters::retire);
        counters.forEach(CommCounters::retire);
        assertThat(CommTraffic.snapshot().transports().get("test-cap").bytesOut() - before.bytesOut())
                .isEqualTo(100L * counters.size());
        assertThat(owners).hasSize(counters.size());
    }
}
