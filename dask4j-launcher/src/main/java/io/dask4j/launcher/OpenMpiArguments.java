package io.dask4j.launcher;

import java.util.Map;
import java.util.regex.Pattern;

/**
 * Undoes Open MPI 4.1's rewrite of a java command line's program arguments. When {@code mpirun} starts
 * {@code java}, it takes any argument containing {@code cp} (meant for {@code -cp}, but it also matches
 * {@code tcp}, {@code --protocol=tcp}, {@code scp}, ...) as a class path flag and prepends the current
 * directory (and Open MPI's own {@code mpi.jar}, if installed) to the next argument: {@code --protocol tcp
 * --nthreads 2} reaches main() as {@code --protocol tcp /cwd:--nthreads 2}. When such an argument is the
 * last one, {@code mpirun} itself crashes (segfault in {@code opal_argv_join}); nothing in the program can
 * help that, so do not end a java command line with an argument containing {@code cp} under Open MPI.
 *
 * <p>Started through a script ({@code mpirun ./dask4j mpi ...}) nothing is rewritten: mpirun only
 * rewrites commands whose program is {@code java}; nor are the arguments of a line that starts with the class
 * path options ({@code JvmFlags.classPathFirst}), as dask4j's own jobs do. What is left is a user's line with
 * the class path in {@code CLASSPATH}. Stateless and thread-safe.
 */
public final class OpenMpiArguments {
    private OpenMpiArguments() {
    }

    /** {@code args} as the user typed them, when this process was started by Open MPI's mpirun. */
    public static String[] repair(String[] args) {
        return repair(args, System.getenv(), System.getProperty("user.dir"));
    }

    static String[] repair(String[] args, Map<String, String> env, String workingDirectory) {
        if (!env.containsKey("OMPI_COMM_WORLD_SIZE") || workingDirectory == null) {
            return args;
        }
        Pattern prefix = Pattern.compile("^(?:[^:]*mpi\\.jar:)?" + Pattern.quote(workingDirectory) + ":");
        String[] out = args.clone();
        for (int i = 1; i < out.length; i++) {
            if (args[i - 1].contains("cp")) {
                out[i] = prefix.matcher(out[i]).replaceFirst("");
            }
        }
        return out;
    }
}
