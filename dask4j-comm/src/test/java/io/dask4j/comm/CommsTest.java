package io.dask4j.comm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class CommsTest {

    private final CommOptions options = CommOptions.fromEnvironment(Map.of());

    @Test
    void backendsAreFoundByScheme() {
        assertThat(Comms.schemes()).contains("inproc", "tcp");
        assertThat(Comms.backend("TCP").scheme()).isEqualTo("tcp");
    }

    @Test
    void anUnknownSchemeIsAnErrorListingTheKnownOnes() {
        assertThatThrownBy(() -> Comms.backend("carrier-pigeon")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("carrier-pigeon").hasMessageContaining("tcp").hasMessageContaining("inproc");
        assertThatThrownBy(() -> Comms.connect(Address.parse("ucx://x"), options)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void connectDialsTheRouteOfTheAdvertisedAddress() throws Exception {
        String name = "routed-" + System.nanoTime();
        java.util.concurrent.CompletableFuture<String> served = new java.util.concurrent.CompletableFuture<>();
        try (Listener l = Comms.listen(Address.inproc(name), options, comm -> served.complete(comm.read().op()))) {
            Address advertised = Address.mpi(7);
            CommOptions routed = options.withRoutes(a -> a.equals(advertised) ? l.contactAddress() : a);
            try (Comm c = Comms.connect(advertised, routed)) {
                c.write(Message.of("ping", Map.of()));
                assertThat(served.get(10, TimeUnit.SECONDS)).isEqualTo("ping");
                assertThat(c.peerAddress().scheme()).isEqualTo("inproc");
            }
            // an address the routes do not know is dialed as given
            assertThatThrownBy(() -> Comms.connect(Address.parse("ucx://x"), routed)).isInstanceOf(IllegalArgumentException.class);
        }
        assertThat(options.routes()).isSameAs(AddressRoutes.DIRECT);
    }

    @Test
    void transientFailuresAreRetriedWithBackoffUntilOneSucceeds() {
        AtomicInteger attempts = new AtomicInteger();
        Comm ok = new InprocLikeComm();
        Connector flaky = (address, timeout, o) -> {
            if (attempts.incrementAndGet() < 4) {
                throw new CommClosedException("refused");
            }
            return ok;
        };
        assertThat(Comms.connectRaw(flaky, Address.inproc("x"), options.withConnectTimeout(Duration.ofSeconds(10)))).isSameAs(ok);
        assertThat(attempts).hasValue(4);
    }

    @Test
    void fatalFailuresAreNotRetried() {
        AtomicInteger attempts = new AtomicInteger();
        Connector fatal = (address, timeout, o) -> {
            attempts.incrementAndGet();
            throw new FatalCommClosedException("unknown host");
        };
        assertThatThrownBy(() -> Comms.connectRaw(fatal, Address.inproc("x"), options))
                .isInstanceOf(FatalCommClosedException.class);
        assertThat(attempts).hasValue(1);
    }

    @Test
    void theTimeoutErrorNamesTheAddressAndTheLastError() {
        Connector refusing = (address, timeout, o) -> {
            throw new CommClosedException("connection refused by the test");
        };
        assertThatThrownBy(() -> Comms.connectRaw(refusing, Address.inproc("target-1"),
                options.withConnectTimeout(Duration.ofMillis(200))))
                .isInstanceOf(ConnectTimeoutException.class)
                .hasMessageContaining("inproc://target-1").hasMessageContaining("connection refused by the test")
                .hasCauseInstanceOf(CommClosedException.class);
    }

    @Test
    void eachAttemptGetsOnlyTheTimeLeft() {
        Connector slow = (address, timeout, o) -> {
            assertThat(timeout).isLessThanOrEqualTo(Duration.ofMillis(300));
            throw new CommClosedException("slow");
        };
        assertThatThrownBy(() -> Comms.connectRaw(slow, Address.inproc("x"), options.withConnectTimeout(Duration.ofMillis(300))))
                .isInstanceOf(ConnectTimeoutException.class);
    }

    @Test
    void theHmacDependsOnSecretRoleAndBothNonces() {
        byte[] a = new byte[32];
        byte[] b = new byte[32];
        b[0] = 1;
        byte[] base = Handshake.mac("s".getBytes(), "client", a, b);
        assertThat(base).hasSize(32);
        assertThat(Handshake.mac("t".getBytes(), "client", a, b)).isNotEqualTo(base);
        assertThat(Handshake.mac("s".getBytes(), "server", a, b)).isNotEqualTo(base);
        assertThat(Handshake.mac("s".getBytes(), "client", b, a)).isNotEqualTo(base);
    }

    /** A do-nothing comm for connector tests. */
    private static final class InprocLikeComm implements Comm {
        @Override
        public Message read() {
            throw new CommClosedException("closed");
        }

        @Override
        public void write(Message message) {
        }

        @Override
        public void close() {
        }

        @Override
        public void abort() {
        }

        @Override
        public boolean isClosed() {
            return false;
        }

        @Override
        public Address localAddress() {
            return Address.inproc("a");
        }

        @Override
        public Address peerAddress() {
            return Address.inproc("b");
        }
    }
}
