package io.dask4j.runtime.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class HostHeaderCheckTest {

    private final HostHeaderCheck loopbackOnly = new HostHeaderCheck(List.of(), List.of());

    @Test
    void loopbackNamesAndAddressesPassWithOrWithoutAPort() {
        assertThat(loopbackOnly.allows("localhost:8787")).isTrue();
        assertThat(loopbackOnly.allows("LOCALHOST")).isTrue();
        assertThat(loopbackOnly.allows("127.0.0.1:8787")).isTrue();
        assertThat(loopbackOnly.allows("[::1]:8787")).isTrue();
        assertThat(loopbackOnly.allows("dashboard.localhost")).isTrue();
    }

    @Test
    void anotherNameIsRefusedAsARebindingPageWouldSendIt() {
        assertThat(loopbackOnly.allows("attacker.example:8787")).isFalse();
        assertThat(loopbackOnly.allows("127.0.0.1.attacker.example")).isFalse();
        assertThat(loopbackOnly.allows("localhost.attacker.example")).isFalse();
        assertThat(loopbackOnly.allows(null)).isFalse();
        assertThat(loopbackOnly.allows("")).isFalse();
    }

    @Test
    void configuredAndMachineNamesPass() {
        HostHeaderCheck check = new HostHeaderCheck(List.of("Dask.Lab.Example"), List.of("node17"));
        assertThat(check.allows("dask.lab.example:8787")).isTrue();
        assertThat(check.allows("node17")).isTrue();
        assertThat(check.allows("node18")).isFalse();
    }
}
