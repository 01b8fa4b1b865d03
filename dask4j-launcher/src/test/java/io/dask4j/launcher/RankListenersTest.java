package io.dask4j.launcher;

import io.dask4j.comm.Address;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Where the scheduler and workers of an MPI job listen, by protocol and hosts. */
class RankListenersTest {
    private static final RankLayout LAYOUT = MpiClusterOptions.defaults().layout(5);
    private static final String HOST = "10.0.0.11";

    private static RankListeners of(MpiProtocol protocol, List<String> hosts) {
        return RankListeners.of(MpiClusterOptions.defaults().withProtocol(protocol), hosts);
    }

    @Test
    void autoOnOneHostListensOnMpiOnlyAsTheMpiProtocolDoes() {
        RankListeners auto = of(MpiProtocol.AUTO, List.of("n1", "n1", "n1", "n1", "n1"));
        RankListeners mpi = of(MpiProtocol.MPI, List.of("n1", "n1", "n1", "n1", "n1"));
        assertThat(auto.perPeer()).isFalse();
        assertThat(auto.scheduler(0, HOST, 0)).containsExactly(Address.mpi(0)).isEqualTo(mpi.scheduler(0, HOST, 0));
        assertThat(auto.worker(LAYOUT, 3, HOST)).containsExactly(Address.mpi(3)).isEqualTo(mpi.worker(LAYOUT, 3, HOST));
    }

    @Test
    void autoAcrossHostsListensOnMpiFirstAndOnTcpAtTheHostsAddress() {
        RankListeners auto = of(MpiProtocol.AUTO, List.of("n1", "n1", "n1", "n2", "n2"));
        assertThat(auto.perPeer()).isTrue();
        assertThat(auto.scheduler(0, HOST, 8786)).containsExactly(Address.mpi(0), Address.tcp(HOST, 0));
        assertThat(auto.worker(LAYOUT, 3, HOST)).containsExactly(Address.mpi(3), Address.tcp(HOST, 0));
    }

    @Test
    void theExplicitProtocolsKeepOneTransportAcrossHosts() {
        List<String> twoHosts = List.of("n1", "n1", "n1", "n2", "n2");
        RankListeners mpi = of(MpiProtocol.MPI, twoHosts);
        assertThat(mpi.perPeer()).isFalse();
        assertThat(mpi.scheduler(0, HOST, 0)).containsExactly(Address.mpi(0));
        assertThat(mpi.worker(LAYOUT, 3, HOST)).containsExactly(Address.mpi(3));
        RankListeners tcp = of(MpiProtocol.TCP, twoHosts);
        assertThat(tcp.perPeer()).isFalse();
        assertThat(tcp.scheduler(0, HOST, 0)).containsExactly(Address.tcp(HOST, 0));
        assertThat(tcp.worker(LAYOUT, 3, HOST)).containsExactly(Address.tcp(HOST, 0));
    }

    @Test
    void outsideClientsGetTheSchedulersPortAndAWorkerOnTheSchedulersRankListensOnTcp() {
        RankListeners served = RankListeners.of(MpiClusterOptions.defaults().withTcpListener(true, 8786), List.of("n1", "n2"));
        assertThat(served.scheduler(0, HOST, 8786)).containsExactly(Address.mpi(0), Address.tcp(HOST, 8786));
        RankLayout shared = new RankLayout(3, 0, RankLayout.NONE, false);
        assertThat(served.worker(shared, 0, HOST)).containsExactly(Address.tcp(HOST, 0));
        assertThat(served.worker(shared, 1, HOST)).containsExactly(Address.mpi(1), Address.tcp(HOST, 0));
    }

    @Test
    void withTlsEverySocketListenerIsTlsAndMpiStaysMpi() {
        List<String> twoHosts = List.of("n1", "n1", "n1", "n2", "n2");
        RankListeners auto = new RankListeners(MpiProtocol.AUTO, true, true, "tls");
        assertThat(auto.scheduler(0, HOST, 8786)).containsExactly(Address.mpi(0), Address.tls(HOST, 8786));
        assertThat(auto.worker(LAYOUT, 3, HOST)).containsExactly(Address.mpi(3), Address.tls(HOST, 0));
        RankListeners tcp = new RankListeners(MpiProtocol.TCP, true, false, "tls");
        assertThat(tcp.worker(LAYOUT, 3, HOST)).containsExactly(Address.tls(HOST, 0));
        assertThat(of(MpiProtocol.TCP, twoHosts).socketScheme()).as("no TLS options: tcp").isEqualTo("tcp");
        assertThatThrownBy(() -> new RankListeners(MpiProtocol.TCP, true, false, "udp")).isInstanceOf(IllegalArgumentException.class);
    }
}
