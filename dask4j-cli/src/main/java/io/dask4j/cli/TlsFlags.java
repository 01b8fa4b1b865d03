package io.dask4j.cli;

import io.dask4j.comm.CommOptions;
import io.dask4j.comm.TlsEnvironment;
import io.dask4j.comm.TlsOptions;
import io.dask4j.comm.config.Setting;
import io.dask4j.comm.config.Settings;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import picocli.CommandLine.Option;

/**
 * The {@code --tls-*} options of {@code scheduler}, {@code worker} and {@code mpi} (a picocli mixin): where the key material is,
 * and how strict TLS is. They override the {@code DASK4J_TLS_*} variables ({@link TlsEnvironment}); passwords come only from the environment
 * ({@code DASK4J_TLS_KEYSTORE_PASSWORD}, {@code DASK4J_TLS_TRUSTSTORE_PASSWORD}), never from a command line
 * that every user of the host can read. Filled in by picocli, then read once by the command's thread.
 */
public final class TlsFlags {

    @Option(names = "--tls-keystore", paramLabel = "FILE", description = "PKCS12 or JKS key store with this process's "
            + "certificate and private key (password in " + Settings.TLS_KEYSTORE_PASSWORD_VARIABLE + ")")
    Path keyStore;

    @Option(names = "--tls-truststore", paramLabel = "FILE", description = "PKCS12 or JKS trust store: the certificates "
            + "that sign peers' certificates (password, if any, in " + Settings.TLS_TRUSTSTORE_PASSWORD_VARIABLE + ")")
    Path trustStore;

    @Option(names = "--tls-cert", paramLabel = "FILE", description = "PEM certificate chain of this process (with --tls-key)")
    Path certificate;

    @Option(names = "--tls-key", paramLabel = "FILE", description = "PEM private key of this process, unencrypted PKCS#8")
    Path privateKey;

    @Option(names = "--tls-ca-file", paramLabel = "FILE", description = "PEM CA bundle: the certificates that sign peers'")
    Path caBundle;

    @Option(names = "--tls-mutual", description = "listeners require client certificates (mutual TLS)")
    boolean mutual;

    @Option(names = "--tls-no-hostname-check", description = "do not check that a listener's certificate names its "
            + "host (for test clusters whose certificates name no host; the certificate must still be trusted)")
    boolean noHostnameCheck;

    @Option(names = "--tls-no-secret", description = "with --tls-mutual: client certificates alone admit peers, no "
            + "cluster secret")
    boolean noSecret;

    /**
     * {@code base} with the TLS options these flags and {@code env} describe (the flags' files replace the
     * environment's), or with none if neither names key material.
     *
     * @throws io.dask4j.comm.TlsException if the files cannot be loaded
     */
    CommOptions apply(CommOptions base, Map<String, String> env) {
        Map<Setting, Object> given = new LinkedHashMap<>();
        given.put(Settings.TLS_KEYSTORE, keyStore);
        given.put(Settings.TLS_TRUSTSTORE, trustStore);
        given.put(Settings.TLS_CERT, certificate);
        given.put(Settings.TLS_KEY, privateKey);
        given.put(Settings.TLS_CA, caBundle);
        given.put(Settings.TLS_MUTUAL, mutual ? true : null);
        given.put(Settings.TLS_VERIFY_HOSTNAME, noHostnameCheck ? false : null);
        given.put(Settings.TLS_SECRET_HANDSHAKE, noSecret ? false : null);
        given.values().removeIf(Objects::isNull);
        TlsOptions tls = TlsEnvironment.read(env, given);
        if (tls == null && (mutual || noHostnameCheck || noSecret)) {
            throw new IllegalArgumentException("--tls-mutual, --tls-no-hostname-check and --tls-no-secret need key "
                    + "material: --tls-keystore/--tls-truststore or --tls-cert/--tls-key/--tls-ca-file");
        }
        return base.withTls(tls);
    }
}
