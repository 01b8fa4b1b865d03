package io.dask4j.comm;

import java.util.ArrayList;
import java.util.List;

/**
 * The JVM options a dask4j process is started with: the one list that the {@code dask4j} script's twin, the
 * benchmark and demo jobs, the local cluster's worker processes and the tests' MPI jobs all take their options
 * from. Constants; any thread.
 */
public final class JvmFlags {

    /** The MPI binding (FFM) and the tcp backend's {@code TCP_USER_TIMEOUT} call native code. */
    public static final String NATIVE_ACCESS = "--enable-native-access=ALL-UNNAMED";
    /** Lets Kryo rebuild serialized lambdas (task functions) through {@code SerializedLambda#readResolve}. */
    public static final String OPEN_LAMBDAS = "--add-opens=java.base/java.lang.invoke=ALL-UNNAMED";
    /** Every dask4j JVM: without these, MPI cannot load and task lambdas cannot be deserialized. */
    public static final List<String> REQUIRED = List.of(NATIVE_ACCESS, OPEN_LAMBDAS);
    /**
     * Short-lived JVMs of tests: the serial collector and the C1 compiler only start fastest, and a rank per
     * core on a small machine leaves no core for a parallel collector's threads.
     */
    public static final List<String> QUICK_START = List.of("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");
    /** The thread stack size of job ranks and test JVMs (the JDK's default on Linux x64, spelt out for every platform). */
    public static final String STACK = "-Xss1m";

    private JvmFlags() {
    }

    /**
     * The class path options, {@code -cp classPath --class-path classPath}, which a java command line for
     * {@code mpirun} must have first after the java executable. Open MPI 4.1's mpirun, when the program is
     * {@code java}, takes the first argument containing "cp" for a class path flag, prepends its working directory
     * ({@code <cwd>:}) to the argument after it, and stops there. Here that is the {@code -cp}'s value, which the
     * JVM then ignores: the last class path option wins, and {@code --class-path} contains no "cp". So the JVM's
     * class path is exactly {@code classPath} (a working directory on it would shadow the job's classes and
     * resources, a {@code logback.xml} say, and the JDK refuses to create an AOT cache with a non-empty directory on
     * the class path), and the JVM options, main class and program arguments after them arrive unchanged, whatever
     * "cp" they contain (a class path through {@code /home/cpaul}, a {@code -Dlogs=/tmp/tcp}, a protocol
     * {@code tcp}); anywhere else, the first such "cp" would mangle the argument after it, the main class say.
     * MPICH and Slurm rewrite nothing.
     */
    public static List<String> classPathFirst(String classPath) {
        return List.of("-cp", classPath, "--class-path", classPath);
    }

    /**
     * The command line of a JVM: {@code java}, the class path ({@link #classPathFirst}), {@link #REQUIRED},
     * {@code jvmArgs}, the main class and its arguments.
     */
    public static List<String> javaCommand(String java, List<String> jvmArgs, String classPath, String mainClass,
                                           List<String> args) {
        List<String> line = new ArrayList<>();
        line.add(java);
        line.addAll(classPathFirst(classPath));
        line.addAll(REQUIRED);
        line.addAll(jvmArgs);
        line.add(mainClass);
        line.addAll(args);
        return line;
    }

    /** This JVM's java executable, for the JVMs a job starts. */
    public static String thisJava() {
        return ProcessHandle.current().info().command().orElse("java");
    }
}
