package io.dask4j.launcher;

import io.dask4j.comm.Address;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The per-peer transport choice of {@link MpiProtocol#AUTO}: mpi within a host, tcp between hosts. */
class PeerRoutesTest {
    /** Ranks 0-2 on n1 (scheduler, client, a worker), 3-4 on n2, as the multi-node job tests lay them out. */
    private static final List<String> HOSTS = List.of("n1", "n1", "n1", "n2", "n2");
    private static final List<Address> SCHEDULER = List.of(Address.mpi(0), Address.tcp("10.0.0.11", 40000));

    private static List<Address> worker(int rank) {
        return List.of(Address.mpi(rank), Address.tcp(rank < 3 ? "10.0.0.11" : "10.0.0.12", 41000 + rank));
    }

    private static PeerRoutes routesOf(int rank) {
        PeerRoutes routes = new PeerRoutes(rank, HOSTS);
        routes.learn(0, SCHEDULER);
        for (int r = 2; r < HOSTS.size(); r++) {
            if (r != rank) {
                routes.learn(r, worker(r));
            }
        }
        return routes;
    }

    @Test
    void aPeerOnTheSameHostIsDialedOverMpiAndOneOnAnotherHostOverTcp() {
        assertThat(PeerRoutes.choose("n1", "n1", worker(2))).isEqualTo(Address.mpi(2));
        assertThat(PeerRoutes.choose("n1", "n2", worker(3))).isEqualTo(Address.tcp("10.0.0.12", 41003));
        // the order the endpoint lists its addresses in does not matter
        assertThat(PeerRoutes.choose("n2", "n1", SCHEDULER.reversed())).isEqualTo(Address.tcp("10.0.0.11", 40000));
        assertThat(PeerRoutes.choose("n2", "n2", worker(4).reversed())).isEqualTo(Address.mpi(4));
    }

    @Test
    void aPeerOnAnotherHostListeningOnTlsIsDialedOverTls() {
        List<Address> tlsWorker = List.of(Address.mpi(3), Address.tls("10.0.0.12", 41003));
        assertThat(PeerRoutes.choose("n1", "n2", tlsWorker)).isEqualTo(Address.tls("10.0.0.12", 41003));
        assertThat(PeerRoutes.choose("n2", "n2", tlsWorker)).isEqualTo(Address.mpi(3));
    }

    @Test
    void anEndpointWithoutTheChosenTransportIsDialedOverTheOneItHas() {
        // a worker sharing the scheduler's rank listens on tcp only: tcp even from its own host
        assertThat(PeerRoutes.choose("n1", "n1", List.of(Address.tcp("10.0.0.11", 42000)))).isEqualTo(Address.tcp("10.0.0.11", 42000));
        // an endpoint on another host without tcp: mpi reaches every rank
        assertThat(PeerRoutes.choose("n1", "n2", List.of(Address.mpi(3)))).isEqualTo(Address.mpi(3));
        assertThatThrownBy(() -> PeerRoutes.choose("n1", "n2", List.of())).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void everyAddressOfAnEndpointRoutesToTheAddressChosenForIt() {
        PeerRoutes onNode1 = routesOf(2);
        // the scheduler tells a worker its peers' mpi addresses (its own scheme): the other host's become tcp
        assertThat(onNode1.route(Address.mpi(0))).isEqualTo(Address.mpi(0));
        assertThat(onNode1.route(Address.mpi(3))).isEqualTo(Address.tcp("10.0.0.12", 41003));
        assertThat(onNode1.route(Address.mpi(4))).isEqualTo(Address.tcp("10.0.0.12", 41004));
        // a client over tcp is told tcp addresses: this host's become mpi
        assertThat(onNode1.route(Address.tcp("10.0.0.11", 40000))).isEqualTo(Address.mpi(0));

        PeerRoutes onNode2 = routesOf(3);
        assertThat(onNode2.route(Address.mpi(0))).isEqualTo(Address.tcp("10.0.0.11", 40000));
        assertThat(onNode2.route(Address.mpi(2))).isEqualTo(Address.tcp("10.0.0.11", 41002));
        assertThat(onNode2.route(Address.mpi(4))).isEqualTo(Address.mpi(4));
        assertThat(onNode2.route(Address.tcp("10.0.0.12", 41004))).isEqualTo(Address.mpi(4));
    }

    @Test
    void anAddressOfNoLearnedEndpointIsDialedAsGiven() {
        PeerRoutes routes = new PeerRoutes(3, HOSTS);
        assertThat(routes.route(Address.mpi(4))).isEqualTo(Address.mpi(4));
        Address outside = Address.tcp("192.0.2.7", 8786);
        assertThat(routesOf(3).route(outside)).isSameAs(outside);
    }

    @Test
    void theLogLineNamesTheRanksAndHostsOfEachTransport() {
        assertThat(routesOf(3).describe()).isEqualTo("mpi to ranks [4] (host n2); tcp to ranks [0, 2] (host n1)");
        assertThat(routesOf(2).describe()).isEqualTo("mpi to ranks [0] (host n1); tcp to ranks [3, 4] (host n2)");
        assertThat(new PeerRoutes(1, HOSTS).describe()).isEqualTo("no peers");
    }

    @Test
    void aRankOutsideTheJobIsRefused() {
        assertThatThrownBy(() -> new PeerRoutes(5, HOSTS)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("rank 5");
    }

    @Test
    void autoIsTheDefaultAndEachProtocolParses() {
        assertThat(MpiClusterOptions.defaults().protocol()).isEqualTo(MpiProtocol.AUTO);
        assertThat(MpiProtocol.parse(" Auto ")).isEqualTo(MpiProtocol.AUTO);
        assertThat(MpiProtocol.parse("TCP")).isEqualTo(MpiProtocol.TCP);
        assertThat(MpiProtocol.AUTO.usesMpiComms()).isTrue();
        assertThat(MpiProtocol.TCP.usesMpiComms()).isFalse();
        assertThatThrownBy(() -> MpiProtocol.parse("ucx")).hasMessageContaining("expected auto, mpi or tcp");
    }
}
