package io.dask4j.runtime.dashboard;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;

/**
 * Keeps the dashboard answering when the JDK HTTP server's dispatcher thread dies. That one thread accepts every
 * connection and catches only {@code Exception}s: an {@code Error} there (an {@code OutOfMemoryError} while the heap
 * is full) ends it, and the server then accepts nothing more while the process lives on, alive but deaf. The watch
 * waits for the thread to end and, unless the dashboard was closed, logs an ERROR and runs the restart it was given
 * (a fresh server on the same address).
 *
 * <p>The dispatcher is found by the name the JDK gives it ({@value #DISPATCHER_NAME}), as the one new thread of that
 * name after a server starts; starts go through {@link #startAndFind} one at a time. On a JDK that names it otherwise
 * nothing is watched. Threads: {@link #startAndFind} and {@link #watch} from any thread; each watch waits on its own
 * virtual thread.
 */
final class HttpDispatcherWatch {
    private static final Logger LOG = LoggerFactory.getLogger(HttpDispatcherWatch.class);
    /** The name of {@code sun.net.httpserver.ServerImpl}'s dispatcher thread. */
    static final String DISPATCHER_NAME = "HTTP-Dispatcher";

    private HttpDispatcherWatch() {
    }

    /** Runs {@code start} (an HTTP server's start) and returns the dispatcher thread it started, or null if none is told apart. */
    static synchronized Thread startAndFind(Runnable start) {
        Set<Thread> before = dispatchers();
        start.run();
        return dispatchers().stream().filter(t -> !before.contains(t)).findFirst().orElse(null);
    }

    private static Set<Thread> dispatchers() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().equals(DISPATCHER_NAME) && t.isAlive())
                .collect(Collectors.toSet());
    }

    /**
     * Waits on a virtual thread for {@code dispatcher} to end; if {@code closed} is then false, logs an ERROR and runs
     * {@code restart}. Returns the waiting thread.
     */
    static Thread watch(Thread dispatcher, String what, BooleanSupplier closed, Runnable restart) {
        return Thread.ofVirtual().name("dask4j-dashboard-watch").start(() -> {
            try {
                dispatcher.join();
            } catch (InterruptedException e) {
                return;
            }
            if (!closed.getAsBoolean()) {
                LOG.error("the HTTP thread of {} died (an Error such as OutOfMemoryError, printed above); it accepted "
                        + "no connection since: restarting it on the same address", what);
                restart.run();
            }
        });
    }
}
