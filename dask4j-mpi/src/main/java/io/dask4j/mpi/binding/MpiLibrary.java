package io.dask4j.mpi.binding;

import io.dask4j.comm.config.ConfigSource;
import io.dask4j.comm.config.Settings;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Finds, loads and identifies the MPI library of this process: the library named by the override
 * ({@code dask4j.mpi.lib} system property, else the {@code DASK4J_MPI_LIB} environment variable; a soname or a
 * path), else the library matching the launcher's environment (Open MPI's {@code mpirun} sets {@code
 * OMPI_COMM_WORLD_SIZE}, MPICH's Hydra sets {@code PMI_RANK}), else the first of the known sonames that
 * loads. It is loaded with {@code dlopen(RTLD_NOW | RTLD_GLOBAL)} so that Open MPI's plugins resolve
 * libmpi's symbols, and the ABI family is told by the presence of the symbol {@code ompi_mpi_comm_world}.
 *
 * <p>Before loading, {@code UCX_ERROR_SIGNALS} is set to empty unless the user set it: UCX (used by
 * Debian's MPICH and by Open MPI on InfiniBand) otherwise installs a SIGSEGV handler that kills the JVM
 * at its first implicit null check.
 *
 * <p>{@link #load(String)} loads once per process and is thread-safe; the override comes from the caller's options
 * ({@code io.dask4j.mpi.MpiOptions}), which read it from the settings with {@link #override(ConfigSource)}.
 */
public record MpiLibrary(String name, MpiAbi abi, SymbolLookup symbols) {

    public static final String LIB_ENV = Settings.MPI_LIB_ENV.name();
    public static final String LIB_PROPERTY = Settings.MPI_LIB.name();
    /** Sonames of Open MPI's library, the one Debian installs first. */
    public static final List<String> OPEN_MPI_NAMES = List.of("libmpi.so.40", "libmpi.so");
    /** Sonames of MPICH's library (and of MPICH-ABI MPIs such as Intel MPI), the one Debian installs first. */
    public static final List<String> MPICH_NAMES = List.of("libmpich.so.12", "libmpi.so.12", "libmpich.so");

    private static volatile MpiLibrary loaded;

    /**
     * The process's MPI library, loaded on first call: {@code override} (a soname or a path) if not null, else the one
     * matching the launcher's environment. Later calls return that library whatever they ask for.
     */
    public static MpiLibrary load(String override) {
        MpiLibrary lib = loaded;
        if (lib == null) {
            synchronized (MpiLibrary.class) {
                lib = loaded;
                if (lib == null) {
                    // The launcher's own variables (OMPI_COMM_WORLD_SIZE, PMI_RANK), not dask4j settings.
                    lib = open(candidates(override, System.getenv()));
                    loaded = lib;
                }
            }
        }
        return lib;
    }

    /** The library {@link #load(String)} loaded; an IllegalStateException before that. */
    public static MpiLibrary loaded() {
        MpiLibrary lib = loaded;
        if (lib == null) {
            throw new IllegalStateException("no MPI library loaded yet: call MpiLibrary.load first");
        }
        return lib;
    }

    /** The library the settings name ({@code dask4j.mpi.lib}, then {@code DASK4J_MPI_LIB}), or null for none. */
    public static String override(ConfigSource source) {
        return Settings.MPI_LIB.stringValue(source, Settings.MPI_LIB_ENV.stringValue(source, null));
    }

    /** The library names to try, in order, for the settings ({@code dask4j.mpi.lib}, then DASK4J_MPI_LIB) and environment. */
    static List<String> candidates(ConfigSource source) {
        return candidates(override(source), source.environment());
    }

    /** The library names to try, in order: {@code override} alone if not null, else as the launcher's {@code env} says. */
    static List<String> candidates(String override, Map<String, String> env) {
        if (override != null) {
            return List.of(override);
        }
        List<String> names = new ArrayList<>();
        if (env.containsKey("OMPI_COMM_WORLD_SIZE")) {
            names.addAll(OPEN_MPI_NAMES);
            names.addAll(MPICH_NAMES);
        } else {
            // Hydra (MPICH) sets PMI_RANK/PMI_FD; with no launcher at all either family can run a singleton.
            boolean hydra = env.containsKey("PMI_RANK") || env.containsKey("PMI_FD") || env.containsKey("HYDI_CONTROL_FD");
            names.addAll(hydra ? MPICH_NAMES : OPEN_MPI_NAMES);
            names.addAll(hydra ? OPEN_MPI_NAMES : MPICH_NAMES);
        }
        return names.stream().distinct().toList();
    }

    static MpiLibrary open(List<String> names) {
        if (System.getenv("UCX_ERROR_SIGNALS") == null) {
            Posix.setenv("UCX_ERROR_SIGNALS", "", false);
        }
        List<String> failures = new ArrayList<>();
        for (String name : names) {
            MemorySegment handle = Posix.dlopen(name, Posix.RTLD_NOW | Posix.RTLD_GLOBAL);
            if (handle.equals(MemorySegment.NULL)) {
                failures.add(name + " (" + Posix.dlerror() + ")");
                continue;
            }
            SymbolLookup symbols = symbol -> {
                MemorySegment address = Posix.dlsym(handle, symbol);
                return address.equals(MemorySegment.NULL) ? Optional.empty() : Optional.of(address);
            };
            if (symbols.find("MPI_Init_thread").isEmpty()) {
                failures.add(name + " (loaded, but it has no MPI_Init_thread: not an MPI library)");
                continue;
            }
            MpiAbi abi = symbols.find("ompi_mpi_comm_world").isPresent() ? OpenMpiAbi.from(symbols) : new MpichAbi();
            return new MpiLibrary(name, abi, symbols);
        }
        throw new MpiException("no MPI library found; tried: " + String.join(", ", failures)
                + ". Install Open MPI (libmpi.so.40) or MPICH (libmpich.so.12), or name the library with the "
                + LIB_ENV + " environment variable or the -D" + LIB_PROPERTY + "=... system property"
                + " (a soname such as libmpi.so.40, or an absolute path).");
    }
}
