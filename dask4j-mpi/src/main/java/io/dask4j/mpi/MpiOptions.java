package io.dask4j.mpi;

import io.dask4j.comm.config.ConfigSource;
import io.dask4j.comm.config.Settings;
import io.dask4j.mpi.binding.MpiAbi;
import io.dask4j.mpi.binding.MpiLibrary;
import io.dask4j.mpi.comm.MpiTransportOptions;
import io.dask4j.mpi.engine.EngineOptions;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * Everything {@link MpiRuntime#start(MpiOptions)} takes from outside: which MPI library to load, the progress
 * engine's options, the transport's limits, the doorbells and Open MPI's idle yield. Immutable. A process's entry
 * point (the launcher's {@code MpiClusterOptions}, {@link MpiRuntime#start()}) reads them once from the settings
 * with {@link #fromSettings}; nothing below it reads a system property or an environment variable.
 *
 * @param library the MPI library to load, a soname or an absolute path; null for the one matching the launcher's
 *     environment ({@code dask4j.mpi.lib}, {@code DASK4J_MPI_LIB})
 * @param engine the progress engine's options
 * @param transport the mpi transport's limits, except its peer send window, which {@code peerSendWindow} gives
 * @param peerSendWindow sends to one rank that may be posted while an earlier one to it is incomplete; empty for what
 *     the loaded library needs (Open MPI's window under Open MPI, none under MPICH; {@code dask4j.mpi.peerSendWindow})
 * @param doorbells whether ranks of one node wake each other's idle engines through shared-memory futexes
 *     ({@code dask4j.mpi.doorbells})
 * @param openMpiIdleYield whether Open MPI yields the core in idle progress calls ({@code dask4j.mpi.openMpiIdleYield})
 */
public record MpiOptions(String library, EngineOptions engine, MpiTransportOptions transport, OptionalInt peerSendWindow,
                         boolean doorbells, IdleYield openMpiIdleYield) {

    /** Open MPI's idle yield: switched by the engine by the message rate, or always on, or always off. */
    public enum IdleYield { ADAPTIVE, ON, OFF }

    public MpiOptions {
        Objects.requireNonNull(engine, "engine");
        Objects.requireNonNull(transport, "transport");
        Objects.requireNonNull(peerSendWindow, "peerSendWindow");
        Objects.requireNonNull(openMpiIdleYield, "openMpiIdleYield");
        if (peerSendWindow.isPresent() && peerSendWindow.getAsInt() < 0) {
            throw new IllegalArgumentException("peer send window must be >= 0 (0 = off): " + peerSendWindow.getAsInt());
        }
    }

    /**
     * The built-in options overridden by the {@code dask4j.mpi.*} settings (and {@code DASK4J_MPI_LIB}) of
     * {@code source}; the engine's defaults also depend on how many ranks the launcher put on this node (its
     * environment in {@code source}). A value that does not parse is an {@link IllegalArgumentException} naming it.
     */
    public static MpiOptions fromSettings(ConfigSource source) {
        OptionalInt window = Settings.PEER_SEND_WINDOW.isSet(source)
                ? OptionalInt.of(Settings.PEER_SEND_WINDOW.intValue(source, 0)) : OptionalInt.empty();
        if (window.orElse(0) < 0) {
            throw new IllegalArgumentException(Settings.PEER_SEND_WINDOW.name() + " must be >= 0 (0 = off): "
                    + window.getAsInt());
        }
        IdleYield yield = switch (Settings.OPEN_MPI_IDLE_YIELD.choiceValue(source, Settings.OPEN_MPI_IDLE_YIELD_CHOICES,
                "adaptive")) {
            case "true" -> IdleYield.ON;
            case "false" -> IdleYield.OFF;
            default -> IdleYield.ADAPTIVE;
        };
        return new MpiOptions(MpiLibrary.override(source), EngineOptions.defaults(source),
                MpiTransportOptions.fromSettings(source), window, Settings.DOORBELLS.booleanValue(source, true), yield);
    }

    /** The transport's limits for a library of {@code abi}: with the ordering guard where it needs one. */
    public MpiTransportOptions transportFor(MpiAbi abi) {
        int window = peerSendWindow.orElse(abi.needsPeerSendOrder() ? MpiTransportOptions.OPEN_MPI_PEER_SEND_WINDOW : 0);
        return transport.withPeerSendWindow(window);
    }

    public MpiOptions withLibrary(String soname) {
        return new MpiOptions(soname, engine, transport, peerSendWindow, doorbells, openMpiIdleYield);
    }

    public MpiOptions withEngine(EngineOptions options) {
        return new MpiOptions(library, options, transport, peerSendWindow, doorbells, openMpiIdleYield);
    }

    public MpiOptions withTransport(MpiTransportOptions options) {
        return new MpiOptions(library, engine, options, peerSendWindow, doorbells, openMpiIdleYield);
    }

    public MpiOptions withPeerSendWindow(int sends) {
        return new MpiOptions(library, engine, transport, OptionalInt.of(sends), doorbells, openMpiIdleYield);
    }

    public MpiOptions withDoorbells(boolean on) {
        return new MpiOptions(library, engine, transport, peerSendWindow, on, openMpiIdleYield);
    }

    public MpiOptions withOpenMpiIdleYield(IdleYield yield) {
        return new MpiOptions(library, engine, transport, peerSendWindow, doorbells, yield);
    }
}
