package io.dask4j.comm.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dask4j.comm.Address;
import io.dask4j.comm.CommOptions;
import java.net.StandardSocketOptions;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import jdk.net.ExtendedSocketOptions;
import org.junit.jupiter.api.Test;

/** A comm to a peer that vanishes without closing must fail after the dead-peer timeout, not the kernel's two hours. */
class TcpKeepAliveTest {

    @Test
    void probesAddUpToTheTimeoutAsDaskSpacesThem() {
        assertThat(TcpKeepAlive.settingsFor(30)).isEqualTo(new TcpKeepAlive.Settings(10, 2, 10));
        assertThat(TcpKeepAlive.settingsFor(11)).isEqualTo(new TcpKeepAlive.Settings(1, 1, 10));
        assertThat(TcpKeepAlive.settingsFor(3600)).isEqualTo(new TcpKeepAlive.Settings(900, 270, 10));
        assertThat(TcpKeepAlive.settingsFor(Duration.ofDays(7).toSeconds()))
                .as("capped at the kernel's limits").isEqualTo(new TcpKeepAlive.Settings(32767, 32767, 10));
        for (int t = 11; t <= 1000; t++) {
            TcpKeepAlive.Settings s = TcpKeepAlive.settingsFor(t);
            assertThat(s.totalSeconds()).as("timeout %d", t).isEqualTo(t);
            assertThat(s.idleSeconds()).as("timeout %d", t).isPositive();
        }
    }

    @Test
    void aTimeoutTooShortForTenProbesIsRefused() {
        assertThatThrownBy(() -> CommOptions.defaults().withDeadPeerTimeout(Duration.ofSeconds(5)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least 11 s");
        assertThat(CommOptions.defaults().deadPeerTimeout()).isEqualTo(Duration.ofSeconds(30));
    }

    @Test
    void bothEndsOfACommGetTheProbesOfTheirOptions() throws Exception {
        CommOptions options = CommOptions.defaults().withDeadPeerTimeout(Duration.ofSeconds(60));
        try (LoopbackConnection connection = LoopbackConnection.open()) {
            SocketChannel dialled = connection.dialled();
            SocketChannel accepted = connection.accepted();
            for (SocketChannel end : new SocketChannel[] {dialled, accepted}) {
                new TcpComm(end, Address.tcp("127.0.0.1", 1), Address.tcp("127.0.0.1", 2), options);
                assertThat(end.getOption(StandardSocketOptions.SO_KEEPALIVE)).isTrue();
                assertThat(end.getOption(ExtendedSocketOptions.TCP_KEEPIDLE)).isEqualTo(20);
                assertThat(end.getOption(ExtendedSocketOptions.TCP_KEEPINTERVAL)).isEqualTo(4);
                assertThat(end.getOption(ExtendedSocketOptions.TCP_KEEPCOUNT)).isEqualTo(10);
            }
        }
    }

    @Test
    void aTimeoutOfAWeekStillGivesAWorkingComm() throws Exception {
        try (LoopbackConnection connection = LoopbackConnection.open()) {
            SocketChannel accepted = connection.accepted();
            new TcpComm(accepted, Address.tcp("127.0.0.1", 1), Address.tcp("127.0.0.1", 2),
                    CommOptions.defaults().withDeadPeerTimeout(Duration.ofDays(7)));
            assertThat(accepted.getOption(ExtendedSocketOptions.TCP_KEEPIDLE)).isEqualTo(TcpKeepAlive.MAX_SECONDS);
        }
    }

    @Test
    void zeroLeavesTheSystemsKeepaliveSettings() throws Exception {
        try (LoopbackConnection connection = LoopbackConnection.open()) {
            SocketChannel accepted = connection.accepted();
            int systemIdle = accepted.getOption(ExtendedSocketOptions.TCP_KEEPIDLE);
            new TcpComm(accepted, Address.tcp("127.0.0.1", 1), Address.tcp("127.0.0.1", 2),
                    CommOptions.defaults().withDeadPeerTimeout(Duration.ZERO));
            assertThat(accepted.getOption(StandardSocketOptions.SO_KEEPALIVE)).isTrue();
            assertThat(accepted.getOption(ExtendedSocketOptions.TCP_KEEPIDLE)).isEqualTo(systemIdle);
        }
    }
}
