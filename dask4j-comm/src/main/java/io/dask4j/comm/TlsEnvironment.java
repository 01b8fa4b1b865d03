package io.dask4j.comm;

import io.dask4j.comm.config.ConfigSource;
import io.dask4j.comm.config.Setting;
import io.dask4j.comm.config.Settings;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@link TlsOptions} from the {@code DASK4J_TLS_*} environment variables ({@link Settings#TLS_KEYSTORE} and the
 * others), as {@link CommOptions#fromEnvironment} reads them beside the secret, and back, for the environment of the
 * worker processes a cluster starts. Key stores or PEM files, not both. Passwords belong in the environment (or a
 * file only you read), never on a command line, which every user of the host can read. Stateless; any thread.
 */
public final class TlsEnvironment {
    /** The variables naming key material (the rest are passwords and flags). */
    private static final List<Setting> FILES = List.of(Settings.TLS_KEYSTORE, Settings.TLS_TRUSTSTORE, Settings.TLS_CERT,
            Settings.TLS_KEY, Settings.TLS_CA);
    /** Every variable this class reads. */
    public static final List<Setting> ALL = List.of(Settings.TLS_KEYSTORE, Settings.TLS_KEYSTORE_PASSWORD,
            Settings.TLS_TRUSTSTORE, Settings.TLS_TRUSTSTORE_PASSWORD, Settings.TLS_CERT, Settings.TLS_KEY,
            Settings.TLS_CA, Settings.TLS_MUTUAL, Settings.TLS_VERIFY_HOSTNAME, Settings.TLS_SECRET_HANDSHAKE);

    private TlsEnvironment() {
    }

    /**
     * The TLS options {@code env} describes, or null if it names no key material.
     *
     * @throws TlsException if the files cannot be loaded; IllegalArgumentException if key stores and PEM files are
     *     mixed or a flag is neither true nor false
     */
    public static TlsOptions read(Map<String, String> env) {
        ConfigSource source = ConfigSource.ofEnvironment(env);
        Path keyStore = path(source, Settings.TLS_KEYSTORE);
        Path trustStore = path(source, Settings.TLS_TRUSTSTORE);
        Path cert = path(source, Settings.TLS_CERT);
        Path key = path(source, Settings.TLS_KEY);
        Path ca = path(source, Settings.TLS_CA);
        boolean stores = keyStore != null || trustStore != null;
        boolean pem = cert != null || key != null || ca != null;
        if (!stores && !pem) {
            return null;
        }
        if (stores && pem) {
            throw new IllegalArgumentException("give TLS key stores (" + Settings.TLS_KEYSTORE.name() + ", "
                    + Settings.TLS_TRUSTSTORE.name() + ") or PEM files (" + Settings.TLS_CERT.name() + ", "
                    + Settings.TLS_KEY.name() + ", " + Settings.TLS_CA.name() + "), not both");
        }
        TlsMaterial material = stores
                ? new TlsMaterial.KeyStores(keyStore, Settings.TLS_KEYSTORE_PASSWORD.exact(source), trustStore,
                        Settings.TLS_TRUSTSTORE_PASSWORD.exact(source))
                : new TlsMaterial.Pem(cert, key, ca);
        return TlsOptions.of(material).withMutualAuth(Settings.TLS_MUTUAL.booleanValue(source, false))
                .withHostnameVerification(Settings.TLS_VERIFY_HOSTNAME.booleanValue(source, true))
                .withSecretHandshake(Settings.TLS_SECRET_HANDSHAKE.booleanValue(source, true));
    }

    /**
     * The TLS options of a command: those {@code env} describes, with {@code given} (settings from the command line:
     * paths, flags) in their place. Files given replace every file {@code env} names, so key stores and PEM files from
     * the two are never mixed; passwords still come from {@code env}. Null if neither names key material.
     *
     * @throws TlsException if the files cannot be loaded; IllegalArgumentException as {@link #read(Map)}
     */
    public static TlsOptions read(Map<String, String> env, Map<Setting, ?> given) {
        boolean filesGiven = given.keySet().stream().anyMatch(FILES::contains);
        Map<String, String> settings = filesGiven ? withoutFiles(env) : new LinkedHashMap<>(env);
        given.forEach((setting, value) -> put(settings, setting, value));
        return read(settings);
    }

    /** {@code env} without the variables that name key material: for files given another way that replace them. */
    public static Map<String, String> withoutFiles(Map<String, String> env) {
        Map<String, String> rest = new LinkedHashMap<>(env);
        FILES.forEach(s -> rest.remove(s.name()));
        return rest;
    }

    /** The variables that make {@link #read} return options equal to {@code tls}: for a child process's environment. */
    public static Map<String, String> variables(TlsOptions tls) {
        Map<String, String> env = new LinkedHashMap<>();
        switch (tls.material()) {
            case TlsMaterial.KeyStores s -> {
                put(env, Settings.TLS_KEYSTORE, s.keyStore());
                put(env, Settings.TLS_KEYSTORE_PASSWORD, s.keyStorePassword());
                put(env, Settings.TLS_TRUSTSTORE, s.trustStore());
                put(env, Settings.TLS_TRUSTSTORE_PASSWORD, s.trustStorePassword());
            }
            case TlsMaterial.Pem p -> {
                put(env, Settings.TLS_CERT, p.certificateChain());
                put(env, Settings.TLS_KEY, p.privateKey());
                put(env, Settings.TLS_CA, p.caBundle());
            }
        }
        put(env, Settings.TLS_MUTUAL, tls.mutualAuth());
        put(env, Settings.TLS_VERIFY_HOSTNAME, tls.verifyHostname());
        put(env, Settings.TLS_SECRET_HANDSHAKE, tls.secretHandshake());
        return env;
    }

    /** {@code env} with {@code setting} set to {@code value} (a path, text or flag). */
    public static void put(Map<String, String> env, Setting setting, Object value) {
        if (value != null) {
            env.put(setting.name(), value.toString());
        }
    }

    private static Path path(ConfigSource source, Setting setting) {
        String value = setting.raw(source);
        return value == null ? null : Path.of(value);
    }
}
