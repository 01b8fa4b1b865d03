package io.dask4j.mpi;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

@EnabledOnOs(OS.LINUX)
class MpiConnectionsTest {

    @Test
    void endsOnlyTheTcpConnectionsOpenedSinceTheSnapshotAndLeavesListenersAlone() throws Exception {
        try (ServerSocket oldListener = listener(); Socket oldClient = connect(oldListener); Socket oldServer = accept(oldListener)) {
            MpiConnections before = MpiConnections.snapshot();
            try (ServerSocket newListener = listener(); Socket newClient = connect(newListener); Socket newServer = accept(newListener)) {

                assertThat(before.shutDownOpenedSince(null)).isEqualTo(2); // both ends of the new connection

                assertThat(newServer.getInputStream().read()).isEqualTo(-1);
                assertThat(newClient.getInputStream().read()).isEqualTo(-1);
                oldClient.getOutputStream().write(42);
                assertThat(oldServer.getInputStream().read()).isEqualTo(42);
                try (Socket another = connect(newListener); Socket accepted = accept(newListener)) {
                    another.getOutputStream().write(7);
                    assertThat(accepted.getInputStream().read()).isEqualTo(7);
                }
            }
        }
    }

    @Test
    void leavesTheLaunchersPmiConnectionOpen() throws Exception {
        try (ServerSocket listener = listener()) {
            MpiConnections before = MpiConnections.snapshot();
            Set<String> fdsBefore = socketFds();
            try (Socket client = connect(listener); Socket server = accept(listener)) {
                Set<String> opened = socketFds();
                opened.removeAll(fdsBefore);
                assertThat(opened).hasSize(2);
                String pmiFd = opened.iterator().next();

                assertThat(before.shutDownOpenedSince(pmiFd)).isEqualTo(1);
            }
        }
    }

    @Test
    void endsNothingWhenNothingWasOpened() throws Exception {
        try (ServerSocket listener = listener(); Socket client = connect(listener); Socket server = accept(listener)) {
            assertThat(MpiConnections.snapshot().shutDownOpenedSince("not a number")).isZero();
            client.getOutputStream().write(1);
            assertThat(server.getInputStream().read()).isEqualTo(1);
        }
    }

    private static ServerSocket listener() throws IOException {
        return new ServerSocket(0, 4, InetAddress.getLoopbackAddress());
    }

    /** Reads give up after 10 s, so that a connection left open fails the test instead of hanging it. */
    private static Socket accept(ServerSocket listener) throws IOException {
        Socket socket = listener.accept();
        socket.setSoTimeout(10_000);
        return socket;
    }

    private static Socket connect(ServerSocket listener) throws IOException {
        Socket socket = new Socket();
        socket.setSoTimeout(10_000);
        socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), listener.getLocalPort()), 5_000);
        return socket;
    }

    /** The descriptor numbers of this process's sockets. */
    private static Set<String> socketFds() throws IOException {
        Set<String> fds = new HashSet<>();
        try (Stream<Path> list = Files.list(Path.of("/proc/self/fd"))) {
            for (Path fd : list.toList()) {
                try {
                    if (Files.readSymbolicLink(fd).toString().startsWith("socket:")) {
                        fds.add(fd.getFileName().toString());
                    }
                } catch (IOException closed) {
                    // the listing's own descriptor
                }
            }
        }
        return fds;
    }
}
