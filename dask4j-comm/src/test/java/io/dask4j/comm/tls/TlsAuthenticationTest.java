package io.dask4j.comm.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dask4j.comm.Address;
import io.dask4j.comm.AuthenticationException;
import io.dask4j.comm.Comm;
import io.dask4j.comm.CommClosedException;
import io.dask4j.comm.CommException;
import io.dask4j.comm.CommOptions;
import io.dask4j.comm.Comms;
import io.dask4j.comm.Listener;
import io.dask4j.comm.Message;
import io.dask4j.comm.ProtocolException;
import io.dask4j.comm.SelfSignedTls;
import io.dask4j.comm.TlsException;
import io.dask4j.comm.TlsMaterial;
import io.dask4j.comm.TlsOptions;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Who may talk to a {@code tls://} listener, and what each refusal says: mutual TLS accepting a certificate it trusts
 * and refusing a client without one, a certificate nobody trusts, plaintext peers on either side. After every refusal
 * the listener still serves a legitimate client.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TlsAuthenticationTest {

    private static final SelfSignedTls CLUSTER = TestTls.cluster();
    private static final TlsOptions TLS = TlsOptions.of(CLUSTER.keyStores());
    /** Trusts the cluster's certificate but has none of its own. */
    private static final TlsOptions NO_CERTIFICATE = TlsOptions.keyStores(null, null, CLUSTER.trustStore(),
            CLUSTER.password());

    private final CommOptions base = CommOptions.fromEnvironment(Map.of()).withGeneratedSecret()
            .withConnectTimeout(Duration.ofSeconds(5)).withHandshakeTimeout(Duration.ofSeconds(10));
    private final BlockingQueue<CommException> serverFailures = new LinkedBlockingQueue<>();
    private final List<Listener> listeners = new ArrayList<>();

    @AfterEach
    void stop() {
        listeners.forEach(Listener::stop);
    }

    @Test
    void mutualTlsAcceptsAClientWhoseCertificateItTrusts() {
        Listener listener = echo(base.withTls(TLS.withMutualAuth(true)));
        assertEchoes(listener, base.withTls(TLS));
    }

    @Test
    void mutualTlsRefusesAClientWithoutACertificateAndKeepsServing() throws Exception {
        Listener listener = echo(base.withTls(TLS.withMutualAuth(true)));
        assertThatThrownBy(() -> roundTrip(listener, base.withTls(NO_CERTIFICATE)))
                .isInstanceOf(TlsException.class).hasMessageContaining("client certificate");
        assertThat(serverFailure()).isInstanceOf(TlsException.class).hasMessageContaining("client certificate");
        assertEchoes(listener, base.withTls(TLS));
    }

    @Test
    void withoutMutualTlsAClientNeedsNoCertificate() {
        Listener listener = echo(base.withTls(TLS));
        assertEchoes(listener, base.withTls(NO_CERTIFICATE));
    }

    @Test
    void aCertificateTheClientDoesNotTrustIsRefusedAndTheListenerKeepsServing() throws Exception {
        Listener listener = echo(base.withTls(TLS));
        TlsOptions trustsOnlyAStranger = TlsOptions.keyStores(null, null, TestTls.stranger().trustStore(),
                TestTls.stranger().password());
        assertThatThrownBy(() -> roundTrip(listener, base.withTls(trustsOnlyAStranger)))
                .isInstanceOf(TlsException.class).hasMessageContaining("not trusted");
        assertThat(serverFailure()).isInstanceOf(TlsException.class);
        assertEchoes(listener, base.withTls(TLS));
    }

    @Test
    void aClientCertificateTheListenerDoesNotTrustIsRefused() throws Exception {
        Listener listener = echo(base.withTls(TLS.withMutualAuth(true)));
        // Presents the stranger's certificate, trusts the cluster's: the listener refuses it.
        TlsOptions stranger = TlsOptions.keyStores(TestTls.stranger().keyStore(), TestTls.stranger().password(),
                CLUSTER.trustStore(), CLUSTER.password());
        assertThatThrownBy(() -> roundTrip(listener, base.withTls(stranger))).isInstanceOf(TlsException.class);
        assertThat(serverFailure()).isInstanceOf(TlsException.class).hasMessageContaining("not trusted");
        assertEchoes(listener, base.withTls(TLS));
    }

    @Test
    void aPlaintextPeerOnATlsListenerIsRefusedAndTheListenerKeepsAccepting() throws Exception {
        Listener listener = echo(base.withTls(TLS));
        Address plain = Address.tcp("127.0.0.1", listener.listenAddress().port());
        assertThatThrownBy(() -> roundTrip(plain, base)).isInstanceOf(CommClosedException.class)
                .hasMessageContaining("connect with a tls:// address");
        assertThat(serverFailure()).isInstanceOf(TlsException.class).hasMessageContaining("does not speak TLS");
        // A raw socket that writes HTTP and reads: the listener closes it without a hang.
        try (Socket raw = new Socket("127.0.0.1", listener.listenAddress().port())) {
            raw.setSoTimeout(10_000);
            OutputStream out = raw.getOutputStream();
            out.write("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = raw.getInputStream();
            try {
                while (in.read() >= 0) {
                    // Drain the alert, if any, until the listener closes.
                }
            } catch (SocketException reset) {
                // Closed by a reset: as good as an end of stream here.
            }
        }
        assertThat(serverFailure()).isInstanceOf(TlsException.class);
        assertEchoes(listener, base.withTls(TLS));
    }

    @Test
    void aTlsClientOfAPlaintextListenerIsToldSo() throws Exception {
        Listener listener = track(Comms.listen(Address.tcp("127.0.0.1", 0), base, comm -> { }, serverFailures::add));
        Address tls = Address.tls("127.0.0.1", listener.listenAddress().port());
        assertThatThrownBy(() -> roundTrip(tls, base.withTls(TLS)))
                .isInstanceOf(TlsException.class).hasMessageContaining("does not speak TLS");
        assertThat(serverFailure()).isInstanceOf(ProtocolException.class).hasMessageContaining("peer speaks TLS");
    }

    @Test
    void aCertificateThatDoesNotNameTheHostIsRefusedUnlessVerificationIsOff() throws Exception {
        // 127.0.0.2 is loopback too, but the certificate names only localhost, 127.0.0.1 and ::1.
        Listener listener = track(Comms.listen(Address.tls("127.0.0.2", 0), base.withTls(TLS), comm -> Thread.ofVirtual()
                .start(() -> echoAll(comm)), serverFailures::add));
        assertThatThrownBy(() -> roundTrip(listener, base.withTls(TLS)))
                .isInstanceOf(TlsException.class).hasMessageContaining("does not name the host");
        assertThat(serverFailure()).isInstanceOf(TlsException.class);
        assertEchoes(listener, base.withTls(TLS.withHostnameVerification(false)));
    }

    @Test
    void pemFilesWorkLikeKeyStores() {
        TlsOptions pem = TlsOptions.of(CLUSTER.pemFiles()).withMutualAuth(true);
        Listener listener = echo(base.withTls(pem));
        assertEchoes(listener, base.withTls(pem));
        assertEchoes(listener, base.withTls(TLS));
    }

    @Test
    void theSecretHandshakeStillRunsInsideTls() throws Exception {
        Listener listener = echo(base.withTls(TLS));
        CommOptions otherSecret = base.withSecret("another secret of 128 bits or more").withTls(TLS);
        assertThatThrownBy(() -> roundTrip(listener, otherSecret)).isInstanceOf(AuthenticationException.class);
        assertThat(serverFailure()).isInstanceOf(AuthenticationException.class);
    }

    @Test
    void aListenerNeedsASecretUnlessMutualTlsStandsInForIt() {
        CommOptions noSecret = CommOptions.fromEnvironment(Map.of());
        assertThatThrownBy(() -> Comms.listen(Address.tls("127.0.0.1", 0), noSecret.withTls(TLS.withSecretHandshake(false)),
                Comm::abort)).isInstanceOf(AuthenticationException.class);
        TlsOptions certificatesOnly = TLS.withMutualAuth(true).withSecretHandshake(false);
        Listener listener = echo(noSecret.withTls(certificatesOnly));
        assertEchoes(listener, noSecret.withTls(certificatesOnly));
        assertThatThrownBy(() -> roundTrip(listener, noSecret.withTls(NO_CERTIFICATE))).isInstanceOf(TlsException.class);
    }

    @Test
    void aListenerWithoutACertificateDoesNotStart() {
        assertThatThrownBy(() -> Comms.listen(Address.tls("127.0.0.1", 0), base.withTls(NO_CERTIFICATE), Comm::abort))
                .isInstanceOf(TlsException.class).hasMessageContaining("without a certificate");
        assertThatThrownBy(() -> Comms.listen(Address.tls("127.0.0.1", 0), base, Comm::abort))
                .isInstanceOf(TlsException.class).hasMessageContaining("need TLS options");
    }

    private Listener echo(CommOptions options) {
        return track(Comms.listen(Address.tls("127.0.0.1", 0), options, comm -> Thread.ofVirtual()
                .start(() -> echoAll(comm)), serverFailures::add));
    }

    private static void echoAll(Comm comm) {
        try {
            while (true) {
                comm.write(comm.read());
            }
        } catch (CommException closed) {
            comm.abort();
        }
    }

    private Listener track(Listener listener) {
        listeners.add(listener);
        return listener;
    }

    private void assertEchoes(Listener listener, CommOptions client) {
        assertThat(roundTrip(listener, client).op()).isEqualTo("ping");
    }

    private static Message roundTrip(Listener listener, CommOptions client) {
        return roundTrip(listener.contactAddress(), client);
    }

    private static Message roundTrip(Address address, CommOptions client) {
        try (Comm comm = Comms.connect(address, client)) {
            comm.write(Message.of("ping", Map.of("n", 1L)));
            return comm.read();
        }
    }

    private CommException serverFailure() throws InterruptedException {
        CommException failure = serverFailures.poll(20, TimeUnit.SECONDS);
        assertThat(failure).as("the listener reports the failed handshake").isNotNull();
        return failure;
    }
}
