package io.dask4j.comm;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Peers on other hosts must never be handed a loopback address while this host has another one. */
class HostAddressesTest {

    private static InetAddress ip(String literal) throws Exception {
        return InetAddress.getByName(literal);
    }

    @Test
    void aHostNameThatResolvesToLoopbackGivesWayToAnInterfacesAddress() throws Exception {
        assertThat(HostAddresses.choose(ip("127.0.1.1"), List.of(ip("fe80::1"), ip("fd00::2"), ip("192.0.2.2"))))
                .isEqualTo(ip("192.0.2.2"));
        assertThat(HostAddresses.choose(ip("127.0.0.1"), List.of(ip("fe80::1"), ip("fd00::2")))).isEqualTo(ip("fd00::2"));
        assertThat(HostAddresses.choose(null, List.of(ip("169.254.3.4"), ip("fe80::1")))).isEqualTo(ip("169.254.3.4"));
    }

    @Test
    void aHostNameWithARealAddressIsUsedAsIs() throws Exception {
        assertThat(HostAddresses.choose(ip("10.1.2.3"), List.of(ip("192.0.2.2")))).isEqualTo(ip("10.1.2.3"));
    }

    @Test
    void loopbackOnlyWhenThereIsNothingElse() throws Exception {
        assertThat(HostAddresses.choose(ip("127.0.0.1"), List.of(ip("::1"), ip("224.0.0.1"))).isLoopbackAddress()).isTrue();
    }

    @Test
    void thisHostsAnswerIsNotLoopbackWhenAnInterfaceIsUp() throws Exception {
        boolean otherInterface = java.util.Collections.list(java.net.NetworkInterface.getNetworkInterfaces()).stream()
                .anyMatch(n -> {
                    try {
                        return n.isUp() && !n.isLoopback() && n.getInetAddresses().hasMoreElements();
                    } catch (java.net.SocketException e) {
                        return false;
                    }
                });
        assertThat(ip(HostAddresses.forPeers()).isLoopbackAddress()).isEqualTo(!otherInterface);
    }
}
