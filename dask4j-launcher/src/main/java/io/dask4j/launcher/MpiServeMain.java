package io.dask4j.launcher;

import io.dask4j.comm.TlsEnvironment;
import io.dask4j.comm.TlsOptions;
import io.dask4j.comm.config.Setting;
import io.dask4j.comm.config.Settings;
import io.dask4j.runtime.cluster.MemorySize;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code dask4j mpi} without picocli, for running it directly under mpirun or from tests:
 * <pre>
 * CLASSPATH=CP mpirun -x CLASSPATH -np N "$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED
 *     io.dask4j.launcher.MpiServeMain [--scheduler-file F] [--no-scheduler] [--protocol mpi|tcp] [--nthreads T]
 *     [--memory-limit M] [--local-directory D] [--name PREFIX] [--host H] [--scheduler-port P] [--log-dir D]
 *     [--tls-keystore F --tls-truststore F | --tls-cert F --tls-key F --tls-ca-file F] [--tls-mutual]
 *     [--tls-no-hostname-check] [--tls-no-secret] [--insecure-no-auth]
 * </pre>
 * Rank 0 runs the scheduler (also listening on TCP for outside clients, and writing the scheduler file
 * once it listens), every other rank a worker; with {@code --no-scheduler} every rank is a worker of the
 * running scheduler named by the scheduler file. With TLS key material (the {@code --tls-*} options, which replace
 * the {@code DASK4J_TLS_*} variables' files, as for {@code dask4j scheduler}) every socket listener of the job is
 * {@code tls://} instead of {@code tcp://}. Exits 2 on bad arguments.
 */
public final class MpiServeMain {
    static final String USAGE = "usage: dask4j mpi [--scheduler-file F] [--no-scheduler] [--protocol mpi|tcp] [--nthreads T]"
            + " [--memory-limit M] [--local-directory D] [--name PREFIX] [--host H] [--scheduler-port P] [--log-dir D]"
            + " [--tls-keystore F --tls-truststore F | --tls-cert F --tls-key F --tls-ca-file F] [--tls-mutual]"
            + " [--tls-no-hostname-check] [--tls-no-secret] [--insecure-no-auth]";

    private MpiServeMain() {
    }

    public static void main(String[] args) {
        MpiClusterOptions options;
        try {
            options = parse(List.of(OpenMpiArguments.repair(args)));
        } catch (IllegalArgumentException e) {
            System.err.println("dask4j mpi: " + e.getMessage());
            System.err.println(USAGE);
            System.exit(2);
            return;
        }
        System.exit(MpiCluster.serve(options));
    }

    /** Parses the arguments into options for {@link MpiCluster#serve}. */
    static MpiClusterOptions parse(List<String> args) {
        MpiClusterOptions o = MpiClusterOptions.defaults().withClientRank(RankLayout.NONE);
        boolean noScheduler = false;
        Map<Setting, Object> tls = new LinkedHashMap<>();
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            switch (a) {
                case "--scheduler-file" -> o = o.withSchedulerFile(Path.of(value(args, ++i, a)));
                case "--no-scheduler" -> noScheduler = true;
                case "--protocol" -> o = o.withProtocol(MpiProtocol.parse(value(args, ++i, a)));
                case "--nthreads" -> o = o.withThreads(integer(value(args, ++i, a), a));
                case "--memory-limit" -> o = o.withMemoryLimit(MemorySize.parse(value(args, ++i, a)));
                case "--local-directory" -> o = o.withLocalDirectory(Path.of(value(args, ++i, a)));
                case "--name" -> o = o.withWorkerNamePrefix(value(args, ++i, a));
                case "--host" -> o = o.withHost(value(args, ++i, a));
                case "--scheduler-port" -> o = o.withTcpListener(true, integer(value(args, ++i, a), a));
                case "--log-dir" -> o = o.withLogDirectory(Path.of(value(args, ++i, a)));
                case "--insecure-no-auth" -> o = o.withComm(o.comm().withInsecureNoAuth(true));
                case "--tls-keystore" -> tls.put(Settings.TLS_KEYSTORE, Path.of(value(args, ++i, a)));
                case "--tls-truststore" -> tls.put(Settings.TLS_TRUSTSTORE, Path.of(value(args, ++i, a)));
                case "--tls-cert" -> tls.put(Settings.TLS_CERT, Path.of(value(args, ++i, a)));
                case "--tls-key" -> tls.put(Settings.TLS_KEY, Path.of(value(args, ++i, a)));
                case "--tls-ca-file" -> tls.put(Settings.TLS_CA, Path.of(value(args, ++i, a)));
                case "--tls-mutual" -> tls.put(Settings.TLS_MUTUAL, true);
                case "--tls-no-hostname-check" -> tls.put(Settings.TLS_VERIFY_HOSTNAME, false);
                case "--tls-no-secret" -> tls.put(Settings.TLS_SECRET_HANDSHAKE, false);
                default -> throw new IllegalArgumentException("unexpected argument '" + a + "'");
            }
        }
        if (!tls.isEmpty()) {
            TlsOptions options = TlsEnvironment.read(System.getenv(), tls);
            if (options == null) {
                throw new IllegalArgumentException("--tls-mutual, --tls-no-hostname-check and --tls-no-secret need key"
                        + " material: --tls-keystore/--tls-truststore or --tls-cert/--tls-key/--tls-ca-file");
            }
            o = o.withComm(o.comm().withTls(options));
        }
        if (noScheduler) {
            if (o.schedulerFile() == null) {
                throw new IllegalArgumentException("--no-scheduler needs the running scheduler's --scheduler-file");
            }
            o = o.withSchedulerRank(RankLayout.NONE);
        }
        return o;
    }

    private static String value(List<String> args, int i, String option) {
        if (i >= args.size()) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return args.get(i);
    }

    private static int integer(String text, String option) {
        try {
            return Integer.parseInt(text.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + " needs a number, not '" + text + "'");
        }
    }
}
