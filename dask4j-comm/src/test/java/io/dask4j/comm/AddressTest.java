package io.dask4j.comm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class AddressTest {

    @ParameterizedTest
    @ValueSource(strings = {"tcp://127.0.0.1:8786", "tcp://[::1]:0", "tcp://[fe80::1]:65535", "tcp://example.org:1",
            "inproc://scheduler-1", "inproc://*", "mpi://3", "mpi://3:17", "ucx://anything"})
    void parseAndFormatRoundTrip(String text) {
        Address a = Address.parse(text);
        assertThat(a.toString()).isEqualTo(text);
        assertThat(Address.parse(a.toString())).isEqualTo(a);
    }

    @Test
    void ipv6HostsAreBracketedAndUnbracketed() {
        Address a = Address.tcp("::1", 8786);
        assertThat(a.toString()).isEqualTo("tcp://[::1]:8786");
        assertThat(a.host()).isEqualTo("::1");
        assertThat(a.port()).isEqualTo(8786);
        assertThat(Address.parse("tcp://[::1]:8786")).isEqualTo(a);
    }

    @Test
    void aBareHostPortIsTcpAndSchemesAreCaseInsensitive() {
        assertThat(Address.parse("localhost:99")).isEqualTo(Address.tcp("localhost", 99));
        assertThat(Address.parse("TCP://h:1").scheme()).isEqualTo("tcp");
        assertThat(Address.mpi(7).rank()).isEqualTo(7);
        assertThat(Address.parse("mpi://7:3").rank()).isEqualTo(7);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "tcp://", "tcp://host", "tcp://host:99999", "tcp://host:-1", "tcp://:80", "tcp://::1:80",
            "tcp://[::1]80", "tcp://[::1", "mpi://x", "mpi://", "mpi://1:", "mpi://1:x", "inproc://", "inproc://a b", "b@d://x"})
    void badAddressesAreRejectedNamingThem(String text) {
        assertThatThrownBy(() -> Address.parse(text)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theErrorNamesTheBadAddress() {
        assertThatThrownBy(() -> Address.parse("tcp://host:99999")).hasMessageContaining("tcp://host:99999");
    }
}
