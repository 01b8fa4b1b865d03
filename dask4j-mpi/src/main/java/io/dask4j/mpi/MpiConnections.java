package io.dask4j.mpi;

import io.dask4j.mpi.binding.Posix;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * The TCP connections this process opened after a point (before MPI_Init), so that a stalled MPI_Finalize can be
 * freed by ending them. MPICH 4.0's UCX finalize closes its endpoints while progressing UCX and only then meets the
 * other ranks in a PMI barrier, where it stops progressing UCX; over UCX's tcp transport one rank's close sometimes
 * waits for an answer from a rank already in that barrier, and both wait for good (docs/multi-node.md). Ending that
 * rank's UCX connections makes the close fail at once, as it does when the peer process exits; the rank then joins
 * the barrier and every rank finalizes normally.
 *
 * <p>Which sockets are MPI's: those open now that were not open at {@link #snapshot()} (sockets are told apart
 * by their inode, as descriptor numbers are reused), that are TCP and not listening, and that are not the launcher's
 * PMI connection ({@code PMI_FD}). By the time {@link MpiRuntime} uses this, dask4j's own connections are closed;
 * a TCP connection the application opened after MPI started and still uses would be ended too.
 *
 * <p>Reads {@code /proc/self/fd} (Linux); elsewhere the snapshot is empty and {@link #shutDownOpenedSince} ends
 * nothing. Immutable; any thread.
 */
final class MpiConnections {

    private static final Path FDS = Path.of("/proc/self/fd");

    private final Set<String> before;

    private MpiConnections(Set<String> before) {
        this.before = before;
    }

    /** The sockets open now; take it before MPI_Init. */
    static MpiConnections snapshot() {
        return new MpiConnections(sockets().keySet());
    }

    /**
     * Shuts down (both directions) every TCP connection opened since the snapshot, except the PMI connection named
     * by {@code pmiFd} (null if none); returns how many.
     */
    int shutDownOpenedSince(String pmiFd) {
        int pmi = pmiFd != null && pmiFd.strip().matches("\\d{1,9}") ? Integer.parseInt(pmiFd.strip()) : -1;
        int cut = 0;
        for (Map.Entry<String, Integer> socket : sockets().entrySet()) {
            int fd = socket.getValue();
            if (!before.contains(socket.getKey()) && fd != pmi && Posix.isTcpConnection(fd) && Posix.shutdown(fd)) {
                cut++;
            }
        }
        return cut;
    }

    /** This process's open sockets: "socket:[inode]" to descriptor number. */
    private static Map<String, Integer> sockets() {
        Map<String, Integer> sockets = new HashMap<>();
        try (DirectoryStream<Path> fds = Files.newDirectoryStream(FDS)) {
            for (Path fd : fds) {
                try {
                    String target = Files.readSymbolicLink(fd).toString();
                    if (target.startsWith("socket:")) {
                        sockets.put(target, Integer.parseInt(fd.getFileName().toString()));
                    }
                } catch (IOException | NumberFormatException closedMeanwhile) {
                    // the descriptor went away while listing (the directory stream's own among them)
                }
            }
        } catch (IOException | UnsupportedOperationException noProc) {
            // not Linux: nothing known, nothing to end
        }
        return sockets;
    }
}
