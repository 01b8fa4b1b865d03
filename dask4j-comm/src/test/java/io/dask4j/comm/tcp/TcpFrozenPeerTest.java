package io.dask4j.comm.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.dask4j.comm.Address;
import io.dask4j.comm.CommClosedException;
import io.dask4j.comm.CommOptions;
import io.dask4j.comm.Message;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A comm that sends a request to a host that then freezes, and waits for the answer, fails after the dead-peer
 * timeout instead of the kernel's 15 minutes of retransmissions. The frozen host is a peer in a network namespace
 * of its own behind a veth pair, whose link is cut once the comm works: its packets vanish, with no FIN and no
 * reset, as when a machine loses power.
 *
 * <p>Needs root and iproute2's {@code ip}; skipped without them, unless {@code DASK4J_REQUIRE_NETNS=1} (set by
 * {@code .ci/run}) makes that a failure.
 */
@Timeout(180)
class TcpFrozenPeerTest {
    private static final Duration DEAD_PEER_TIMEOUT = Duration.ofSeconds(11);   // the shortest the options allow
    /** Far beyond the timeout; without TCP_USER_TIMEOUT the read waits about 15 minutes, so only that fails it. */
    private static final Duration HANG_BOUND = Duration.ofSeconds(60);
    private static final int PORT = 47_011;

    private final long pid = ProcessHandle.current().pid();
    private final String namespace = "d4jfrz" + pid;
    private final String hostLink = "d4jf" + pid + "a";
    private final String peerLink = "d4jf" + pid + "b";
    private final String hostIp = "10.231." + pid % 250 + ".1";
    private final String peerIp = "10.231." + pid % 250 + ".2";
    private Process peer;

    @BeforeEach
    void startPeerInItsOwnNamespace() throws Exception {
        boolean required = "1".equals(System.getenv("DASK4J_REQUIRE_NETNS"));
        boolean made = run(List.of("ip", "netns", "add", namespace));
        if (!made && !required) {
            Assumptions.abort("cannot make a network namespace (needs root and iproute2's ip)");
        }
        assertThat(made).as("ip netns add (DASK4J_REQUIRE_NETNS=1)").isTrue();
        check("ip", "link", "add", hostLink, "type", "veth", "peer", "name", peerLink);
        check("ip", "link", "set", peerLink, "netns", namespace);
        check("ip", "addr", "add", hostIp + "/30", "dev", hostLink);
        check("ip", "link", "set", hostLink, "up");
        check("ip", "netns", "exec", namespace, "ip", "addr", "add", peerIp + "/30", "dev", peerLink);
        check("ip", "netns", "exec", namespace, "ip", "link", "set", peerLink, "up");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String classes = new File(RawEchoPeer.class.getProtectionDomain().getCodeSource().getLocation().toURI()).getPath();
        peer = new ProcessBuilder("ip", "netns", "exec", namespace, java, "-cp", classes, RawEchoPeer.class.getName(),
                peerIp, Integer.toString(PORT)).redirectErrorStream(true).start();
        BufferedReader out = new BufferedReader(new InputStreamReader(peer.getInputStream(), StandardCharsets.UTF_8));
        assertThat(out.readLine()).as("the peer's first line").isEqualTo("listening");
    }

    @AfterEach
    void removeNamespace() throws Exception {
        if (peer != null) {
            peer.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        run(List.of("ip", "netns", "del", namespace));
        run(List.of("ip", "link", "del", hostLink));   // gone with the namespace unless a process still held it
    }

    @Test
    void aRequestToAHostThatFrozeFailsAfterTheDeadPeerTimeout() throws Exception {
        SocketChannel channel = SocketChannel.open(new InetSocketAddress(peerIp, PORT));
        TcpComm comm = new TcpComm(channel, Address.tcp(hostIp, 1), Address.tcp(peerIp, PORT),
                CommOptions.defaults().withDeadPeerTimeout(DEAD_PEER_TIMEOUT));
        try {
            comm.write(Message.of("ping", Map.of("n", 1L)));
            assertThat(comm.read().op()).as("the echo while the peer is up").isEqualTo("ping");

            check("ip", "netns", "exec", namespace, "ip", "link", "set", peerLink, "down");
            long start = System.nanoTime();
            comm.write(Message.of("ping", Map.of("n", 2L)));   // into the kernel: never acknowledged
            CompletableFuture<Message> answer = CompletableFuture.supplyAsync(comm::read);
            Throwable failure;
            try {
                Message unexpected = answer.get(HANG_BOUND.toSeconds(), TimeUnit.SECONDS);
                throw new AssertionError("an answer from a frozen host: " + unexpected);
            } catch (TimeoutException e) {
                throw new AssertionError("the read still waited after " + HANG_BOUND
                        + ": the kernel is retransmitting without a user timeout");
            } catch (ExecutionException e) {
                failure = e.getCause();
            }
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            // The kernel's own reason follows: "No route to host" here, where the link is down; "Connection timed
            // out" where nothing answers at all.
            assertThat(failure).isInstanceOf(CommClosedException.class)
                    .hasMessageContaining("read from tcp://" + peerIp);
            assertThat(took).as("failed after").isGreaterThanOrEqualTo(DEAD_PEER_TIMEOUT.minusSeconds(1))
                    .isLessThan(DEAD_PEER_TIMEOUT.plusSeconds(15));
        } finally {
            comm.close();
        }
    }

    private static void check(String... command) throws Exception {
        assertThat(run(List.of(command))).as(String.join(" ", command)).isTrue();
    }

    private static boolean run(List<String> command) throws InterruptedException {
        try {
            Process p = new ProcessBuilder(new ArrayList<>(command)).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        }
    }
}
