package io.dask4j.comm.tcp;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalInt;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * Finds the file descriptor of a connected socket channel through Linux's {@code /proc}, for the one socket option
 * Java has no name for ({@link TcpUserTimeout}). Java does not hand out a channel's descriptor except through
 * {@code sun.nio.ch}, which would add an {@code --add-exports} to every command line that runs dask4j; this needs
 * nothing: the connection's addresses name one line of {@code /proc/self/net/tcp} or {@code tcp6}, whose inode
 * names one entry of {@code /proc/self/fd}. The two ends of a connection within one process are told apart since
 * their local and remote addresses are swapped.
 *
 * <p>It finds listening sockets too ({@link #findListening}): Linux copies {@code TCP_USER_TIMEOUT} from a listening
 * socket to each connection it accepts, so a listener pays for one lookup when it starts, not one per accept.
 *
 * <p>Stateless; any thread. Costs a read of the connection tables (the network namespace's, every process's) and a
 * link read per open descriptor of this process, about 3 ms with 400 sockets open: meant for a comm's set-up, not
 * its traffic. The answer holds while the channel stays open, as only closing
 * it frees the descriptor.
 */
final class SocketDescriptors {
    private static final boolean LITTLE_ENDIAN = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;
    private static final Path FDS = Path.of("/proc/self/fd");
    private static final List<Path> TABLES = List.of(Path.of("/proc/self/net/tcp"), Path.of("/proc/self/net/tcp6"));

    private SocketDescriptors() {
    }

    /** The descriptor of the connection from {@code local} to {@code remote}, or empty where /proc does not tell. */
    static OptionalInt find(InetSocketAddress local, InetSocketAddress remote) {
        return find(local, remote.getPort(), field -> sameAddress(field, remote));
    }

    /**
     * The descriptor of the listening socket bound to {@code local}, or empty where /proc does not tell. Its table line
     * names no remote end (address zero, port 0).
     */
    static OptionalInt findListening(InetSocketAddress local) {
        return find(local, 0, SocketDescriptors::noAddress);
    }

    private static OptionalInt find(InetSocketAddress local, int remotePort, Predicate<String> remoteMatches) {
        try {
            long inode = inodeOf(local, remotePort, remoteMatches);
            return inode > 0 ? descriptorOf("socket:[" + inode + "]") : OptionalInt.empty();
        } catch (IOException | RuntimeException e) {
            // A system without this /proc layout: the caller goes without the option, as on any other platform.
            return OptionalInt.empty();
        }
    }

    /** The inode of the socket from the connection tables, or 0. */
    private static long inodeOf(InetSocketAddress local, int remotePortNumber, Predicate<String> remoteMatches)
            throws IOException {
        // Both ports as the tables print them: most lines are rejected by these before being split.
        String localPort = String.format(":%04X ", local.getPort());
        String remotePort = String.format(":%04X ", remotePortNumber);
        for (Path table : TABLES) {
            if (!Files.isReadable(table)) {
                continue;
            }
            for (String line : Files.readAllLines(table)) {
                if (line.contains(localPort) && line.contains(remotePort)) {
                    long inode = inodeOf(line, local, remoteMatches);
                    if (inode > 0) {
                        return inode;
                    }
                }
            }
        }
        return 0;
    }

    /** The descriptor whose link reads {@code target}, or empty. */
    private static OptionalInt descriptorOf(String target) throws IOException {
        try (Stream<Path> fds = Files.list(FDS)) {
            for (Path fd : (Iterable<Path>) fds::iterator) {
                try {
                    if (Files.readSymbolicLink(fd).toString().equals(target)) {
                        return OptionalInt.of(Integer.parseInt(fd.getFileName().toString()));
                    }
                } catch (IOException closedMeanwhile) {
                    // another thread's descriptor, closed since the listing: not ours
                }
            }
        }
        return OptionalInt.empty();
    }

    /**
     * The inode of a connection-table line if it is the connection from {@code local} to {@code remote}, else 0.
     * A line reads {@code sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode ...}, with
     * addresses as {@code HEX:PORT}, the address in 32-bit words of the host's byte order.
     */
    static long inodeOf(String line, InetSocketAddress local, InetSocketAddress remote) {
        return inodeOf(line, local, field -> sameAddress(field, remote));
    }

    private static long inodeOf(String line, InetSocketAddress local, Predicate<String> remoteMatches) {
        String[] f = line.strip().split("\\s+");
        if (f.length < 10 || !f[0].endsWith(":")) {
            return 0;     // the header
        }
        return sameAddress(f[1], local) && remoteMatches.test(f[2]) ? Long.parseLong(f[9]) : 0;
    }

    /** A remote field of a listening socket: all zeros, port 0, in either family. */
    private static boolean noAddress(String field) {
        return field.chars().allMatch(c -> c == '0' || c == ':');
    }

    private static boolean sameAddress(String field, InetSocketAddress address) {
        int colon = field.indexOf(':');
        if (Integer.parseInt(field.substring(colon + 1), 16) != address.getPort()) {
            return false;
        }
        try {
            return InetAddress.getByAddress(addressBytes(field.substring(0, colon))).equals(address.getAddress());
        } catch (UnknownHostException e) {
            return false;
        }
    }

    /**
     * The address bytes of a table's hex field: each group of eight hex digits is a 32-bit word printed as a number
     * of the host's byte order, so little-endian hosts (x86, ARM) print its bytes reversed. {@link InetAddress#getByAddress} turns an IPv4-mapped IPv6 address into the IPv4 one, as
     * Java reports the addresses of a dual-stack socket.
     */
    private static byte[] addressBytes(String hex) {
        byte[] bytes = new byte[hex.length() / 2];
        for (int word = 0; word < bytes.length / 4; word++) {
            for (int b = 0; b < 4; b++) {
                int at = word * 8 + (LITTLE_ENDIAN ? 3 - b : b) * 2;
                bytes[word * 4 + b] = (byte) Integer.parseInt(hex.substring(at, at + 2), 16);
            }
        }
        return bytes;
    }
}
