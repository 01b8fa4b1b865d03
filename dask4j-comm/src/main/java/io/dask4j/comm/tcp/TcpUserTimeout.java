package io.dask4j.comm.tcp;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.Locale;
import java.util.OptionalInt;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sets Linux's {@code TCP_USER_TIMEOUT} on a comm's socket, as Dask does with {@code distributed.comm.timeouts.tcp}:
 * data left unacknowledged that long makes the kernel drop the connection. Without it, a comm that sent a few
 * bytes to a host that then froze (no FIN, no reset: power lost, network cut) and waits for the answer waits for
 * the kernel's retransmission timeout, about 15 minutes, since keepalive stays silent while sent data is
 * unacknowledged ({@link TcpKeepAlive}). Java has no name for the option, so it is set through libc's {@code
 * setsockopt} on the descriptor that {@link SocketDescriptors} finds.
 *
 * <p>Needs Linux and native access ({@code --enable-native-access=ALL-UNNAMED}, which dask4j's MPI transport needs
 * anyway); elsewhere comms go without it, and say so once in the log. {@link WriteStallChecker} still bounds a write
 * that blocks, whether or not the option is set. Stateless after its first use; any thread.
 */
final class TcpUserTimeout {
    private static final Logger LOG = LoggerFactory.getLogger(TcpUserTimeout.class);
    /** From Linux's {@code <netinet/in.h>} and {@code <netinet/tcp.h>}; the same on every Linux architecture. */
    static final int IPPROTO_TCP = 6;
    static final int TCP_USER_TIMEOUT = 18;
    private static final AtomicBoolean TOLD = new AtomicBoolean();

    private TcpUserTimeout() {
    }

    /** The libc functions, linked on first use so that a platform without them never links them. */
    private static final class Libc {
        static final MethodHandle SETSOCKOPT;
        static final MethodHandle GETSOCKOPT;

        static {
            Linker linker = Linker.nativeLinker();
            SETSOCKOPT = linker.downcallHandle(linker.defaultLookup().find("setsockopt").orElseThrow(),
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
                            ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT));
            GETSOCKOPT = linker.downcallHandle(linker.defaultLookup().find("getsockopt").orElseThrow(),
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
                            ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.ADDRESS));
        }
    }

    /**
     * Sets the timeout on {@code channel} (connected), unless {@code timeout} is zero. Never fails the comm: where
     * the option cannot be set, the comm works as before and the log says why, once per process.
     *
     * @return whether the option is now set
     */
    static boolean apply(SocketChannel channel, Duration timeout) {
        if (timeout.isZero()) {
            return false;
        }
        String missing = unavailableBecause();
        OptionalInt fd = missing == null ? descriptor(channel) : OptionalInt.empty();
        if (missing == null && fd.isEmpty()) {
            missing = "its socket's descriptor was not found in /proc/self";
        }
        return set(fd, timeout, missing, channel);
    }

    /** Sets the option on {@code fd} unless {@code missing} says why not; logs why not once per process. */
    private static boolean set(OptionalInt fd, Duration timeout, String missing, Object socket) {
        if (missing == null) {
            int millis = (int) Math.min(timeout.toMillis(), Integer.MAX_VALUE);
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment value = arena.allocateFrom(ValueLayout.JAVA_INT, millis);
                int rc = (int) Libc.SETSOCKOPT.invokeExact(fd.getAsInt(), IPPROTO_TCP, TCP_USER_TIMEOUT, value,
                        (int) ValueLayout.JAVA_INT.byteSize());
                if (rc == 0) {
                    return true;
                }
                missing = "setsockopt refused it";
            } catch (Throwable e) {
                missing = "setsockopt failed: " + e;
            }
        }
        if (TOLD.compareAndSet(false, true)) {
            LOG.info("tcp comms go without TCP_USER_TIMEOUT ({}): a comm that sent to a host that froze and waits for "
                    + "its answer fails after the kernel's retransmission timeout, about 15 minutes, instead of {} s",
                    missing, timeout.toMillis() / 1000.0);
        } else {
            LOG.debug("TCP_USER_TIMEOUT not set on {}: {}", socket, missing);
        }
        return false;
    }

    /**
     * Sets the timeout on a bound listening socket, unless {@code timeout} is zero; Linux copies it to every connection
     * the socket accepts, which then need no lookup of their own. Never fails the listener.
     *
     * @return whether the option is now set (else accepted connections go without it, as the log says once)
     */
    static boolean applyToListener(ServerSocketChannel server, Duration timeout) {
        if (timeout.isZero()) {
            return false;
        }
        String missing = unavailableBecause();
        OptionalInt fd = OptionalInt.empty();
        if (missing == null) {
            try {
                fd = SocketDescriptors.findListening((InetSocketAddress) server.getLocalAddress());
            } catch (java.io.IOException | RuntimeException e) {
                fd = OptionalInt.empty();
            }
            if (fd.isEmpty()) {
                missing = "the listening socket's descriptor was not found in /proc/self";
            }
        }
        return set(fd, timeout, missing, server);
    }

    /** The option's value on {@code channel} in milliseconds (0: the system's default), or empty if unreadable. */
    static OptionalInt read(SocketChannel channel) {
        OptionalInt fd = unavailableBecause() == null ? descriptor(channel) : OptionalInt.empty();
        if (fd.isEmpty()) {
            return OptionalInt.empty();
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment value = arena.allocate(ValueLayout.JAVA_INT);
            MemorySegment length = arena.allocateFrom(ValueLayout.JAVA_INT, (int) ValueLayout.JAVA_INT.byteSize());
            int rc = (int) Libc.GETSOCKOPT.invokeExact(fd.getAsInt(), IPPROTO_TCP, TCP_USER_TIMEOUT, value, length);
            return rc == 0 ? OptionalInt.of(value.get(ValueLayout.JAVA_INT, 0)) : OptionalInt.empty();
        } catch (Throwable e) {
            return OptionalInt.empty();
        }
    }

    /** Why this process cannot set the option, or null if it can. */
    private static String unavailableBecause() {
        if (!System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux")) {
            return "not Linux";
        }
        if (!TcpUserTimeout.class.getModule().isNativeAccessEnabled()) {
            return "no native access: run java with --enable-native-access=ALL-UNNAMED";
        }
        return null;
    }

    private static OptionalInt descriptor(SocketChannel channel) {
        try {
            return SocketDescriptors.find((InetSocketAddress) channel.getLocalAddress(),
                    (InetSocketAddress) channel.getRemoteAddress());
        } catch (java.io.IOException | RuntimeException e) {
            return OptionalInt.empty();
        }
    }
}
