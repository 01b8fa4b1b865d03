package io.dask4j.runtime.dashboard;

import io.dask4j.comm.Address;
import io.dask4j.runtime.cluster.LocalCluster;
import io.dask4j.runtime.scheduler.Scheduler;
import io.dask4j.runtime.scheduler.SchedulerConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@Timeout(30)
class DashboardServerTest {

    @Test
    void addressesParseInEveryForm() {
        assertThat(DashboardConfig.parse("0.0.0.0:9999")).isEqualTo(new DashboardConfig(true, "0.0.0.0", 9999));
        assertThat(DashboardConfig.parse(":0")).isEqualTo(new DashboardConfig(true, "127.0.0.1", 0));
        assertThat(DashboardConfig.parse("8788")).isEqualTo(new DashboardConfig(true, "127.0.0.1", 8788));
        assertThat(DashboardConfig.parse("[::1]:8789")).isEqualTo(new DashboardConfig(true, "::1", 8789));
        assertThat(DashboardConfig.defaults().port()).isEqualTo(8787);
        assertThatThrownBy(() -> DashboardConfig.parse("localhost:http")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("localhost:http");
        assertThatThrownBy(() -> DashboardConfig.parse(":70000")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aTakenPortFallsBackToAFreeOneInsteadOfFailingTheScheduler() throws IOException {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"));
             Scheduler scheduler = Scheduler.start(SchedulerConfig.listeningOn(Address.inproc("fallback-" + UUID.randomUUID())));
             DashboardServer board = DashboardServer.start(scheduler, new DashboardConfig(true, "127.0.0.1", taken.getLocalPort()))) {
            assertThat(board.fellBackToFreePort()).isTrue();
            assertThat(board.port()).isNotEqualTo(taken.getLocalPort());
            assertThat(board.url().toString()).isEqualTo("http://127.0.0.1:" + board.port() + "/");
            assertThat(Http.json(board.url(), "/api/v1/summary").get("workers").asInt()).isZero();
        }
    }

    /** Status code of a GET sent with {@code host} as its Host header (java.net.http will not set that header). */
    private static int statusWithHost(java.net.URI url, String host) throws IOException {
        try (java.net.Socket socket = new java.net.Socket(url.getHost(), url.getPort())) {
            socket.setSoTimeout(10_000);
            String request = "GET /api/v1/summary HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n";
            socket.getOutputStream().write(request.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            String status = new java.io.BufferedReader(new java.io.InputStreamReader(socket.getInputStream(),
                    java.nio.charset.StandardCharsets.US_ASCII)).readLine();
            return Integer.parseInt(status.split(" ")[1]);
        }
    }

    @Test
    void requestsNamingAnotherHostAreRefusedAndConfiguredNamesAnswered() throws IOException {
        try (Scheduler scheduler = Scheduler.start(SchedulerConfig.listeningOn(Address.inproc("hosts-" + UUID.randomUUID())));
             DashboardServer board = DashboardServer.start(scheduler,
                     DashboardConfig.parse("127.0.0.1:0").withAllowedHosts(java.util.List.of("dask.lab.example")))) {
            int port = board.port();
            assertThat(statusWithHost(board.url(), "127.0.0.1:" + port)).isEqualTo(200);
            assertThat(statusWithHost(board.url(), "localhost:" + port)).isEqualTo(200);
            assertThat(statusWithHost(board.url(), "dask.lab.example:" + port)).isEqualTo(200);
            assertThat(statusWithHost(board.url(), "rebind.attacker.example:" + port)).isEqualTo(403);
            assertThat(Http.get(board.url(), "/api/v1/summary").statusCode()).as("still serving").isEqualTo(200);
        }
    }

    @Test
    void theDashboardBindsLoopbackByDefault() {
        assertThat(DashboardConfig.defaults().host()).isEqualTo("127.0.0.1");
        assertThat(DashboardConfig.parse(":0").host()).isEqualTo("127.0.0.1");
    }

    @Test
    void aClosedDashboardStopsAnswering() {
        try (Scheduler scheduler = Scheduler.start(SchedulerConfig.listeningOn(Address.inproc("closing-" + UUID.randomUUID())))) {
            DashboardServer board = DashboardServer.start(scheduler, DashboardConfig.parse("127.0.0.1:0"));
            assertThat(Http.get(board.url(), "/api/v1/summary").statusCode()).isEqualTo(200);
            board.close();
            board.close();
            assertThatThrownBy(() -> Http.get(board.url(), "/api/v1/summary")).isInstanceOf(RuntimeException.class);
        }
    }

    @Test
    void aServerWhoseAcceptingThreadDiedIsReplacedOnTheSameAddress() throws InterruptedException {
        try (Scheduler scheduler = Scheduler.start(SchedulerConfig.listeningOn(Address.inproc("restart-" + UUID.randomUUID())));
             DashboardServer board = DashboardServer.start(scheduler, DashboardConfig.parse("127.0.0.1:0"))) {
            Thread first = board.dispatcher();
            assertThat(first).as("the JDK's dispatcher is found and watched").isNotNull();
            assertThat(first.getName()).isEqualTo(HttpDispatcherWatch.DISPATCHER_NAME);
            assertThat(first.isAlive()).isTrue();
            Thread firstWatch = board.watcher();
            int port = board.port();

            // What the watch does when that thread dies (no Error can be thrown into the JDK's thread from here).
            board.restart(first);
            firstWatch.join();   // the old dispatcher ended with its server; its watch left the new server alone
            assertThat(board.restarts()).isEqualTo(1);
            assertThat(board.dispatcher()).isNotSameAs(first).matches(Thread::isAlive);
            assertThat(board.port()).isEqualTo(port);
            assertThat(Http.get(board.url(), "/api/v1/summary").statusCode()).isEqualTo(200);
            board.restart(first);   // a late report about a replaced server changes nothing
            assertThat(board.restarts()).isEqualTo(1);
        }
    }

    @Test
    void aLocalClusterServesNoDashboardUnlessAsked() {
        try (LocalCluster cluster = LocalCluster.builder().workers(1).start()) {
            assertThat(cluster.dashboardUrl()).isEmpty();
        }
    }

    @Test
    void aDisabledConfigCannotStartADashboard() {
        try (Scheduler scheduler = Scheduler.start(SchedulerConfig.listeningOn(Address.inproc("off-" + UUID.randomUUID())))) {
            assertThatThrownBy(() -> DashboardServer.start(scheduler, DashboardConfig.disabled()))
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }
}
