package io.dask4j.runtime.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dask4j.comm.Address;
import io.dask4j.comm.AuthenticationException;
import io.dask4j.comm.Comm;
import io.dask4j.comm.CommOptions;
import io.dask4j.comm.Comms;
import io.dask4j.comm.Listener;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What the default log level shows of refused peers: a rejected handshake is a WARN naming the peer's address and
 * the listener, and a listener started without authentication says so at WARN.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RefusalLogTest {

    @Test
    void aRejectedHandshakeIsLoggedAtWarnWithThePeersAddress() throws Exception {
        CommOptions cluster = CommOptions.fromEnvironment(Map.of()).withGeneratedSecret();
        CommOptions stranger = CommOptions.fromEnvironment(Map.of()).withGeneratedSecret();
        try (LogCapture log = LogCapture.of("io.dask4j.comm.HandshakingListener");
             Listener listener = Comms.listen(Address.tcp("127.0.0.1", 0), cluster, Comm::abort)) {
            String expected = "rejected a connection from ";
            // These warnings are rate-limited per process (10 per 10 s), and other tests in this JVM (the adversarial
            // suite's floods) may have spent the current window: guessing goes on until one is logged, which the next
            // window allows. Each guess is refused whether or not it is logged.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (rejections(log, expected).isEmpty()) {
                assertThat(System.nanoTime() - deadline).as("a rejection logged within 30 s").isNegative();
                assertThatThrownBy(() -> Comms.connect(listener.listenAddress(), stranger).close())
                        .isInstanceOf(AuthenticationException.class);
            }
            assertThat(rejections(log, expected).getFirst()).startsWith("WARN ")
                    .containsPattern("from (tcp://)?127\\.0\\.0\\.1:\\d+ on " + listener.listenAddress() + ": ");
        }
    }

    private static List<String> rejections(LogCapture log, String expected) {
        return log.warnings().stream().filter(w -> w.contains(expected)).toList();
    }

    @Test
    void aListenerWithoutAuthenticationWarnsWhenItStarts() throws Exception {
        try (LogCapture log = LogCapture.of(Comms.class);
             Listener listener = Comms.listen(Address.tcp("127.0.0.1", 0),
                     CommOptions.fromEnvironment(Map.of()).withInsecureNoAuth(true), Comm::abort)) {
            assertThat(log.warnings()).anyMatch(w -> w.startsWith("WARN listening on " + listener.listenAddress())
                    && w.contains("WITHOUT AUTHENTICATION"));
        }
    }
}
