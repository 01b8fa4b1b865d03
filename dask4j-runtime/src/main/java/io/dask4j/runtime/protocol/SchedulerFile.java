package io.dask4j.runtime.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dask4j.comm.Address;
import io.dask4j.comm.CommOptions;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The scheduler file: JSON naming where a scheduler listens, {@code {"address": "tcp://...",
 * "addresses": [...], "pid": 123, "host": "node1", "secret": "..."}}, the secret being the cluster's (given or
 * generated; absent when the cluster runs without authentication). Readable by its owner only (0600, as a
 * temporary file is created). Written atomically (a temporary file renamed into
 * place) once the scheduler listens, so a reader never sees half a file; deleted when the scheduler
 * closes. A stale file left by a scheduler that died (its pid no longer runs on this host) is ignored
 * while waiting for a fresh one, so workers are not sent to a dead scheduler. A reader that waits says so
 * (to a {@code progress} sink, such as the worker command's standard error) when it starts waiting and every
 * {@link #PROGRESS_INTERVAL}, since a mistyped path otherwise looks like a hang. Stateless, thread-safe.
 */
public final class SchedulerFile {
    /** How often a reader that waits for the file says that it still waits. */
    public static final Duration PROGRESS_INTERVAL = Duration.ofSeconds(30);
    private static final ObjectMapper JSON = new ObjectMapper();

    private SchedulerFile() {
    }

    /** What a scheduler file says: where the scheduler listens, and the cluster's secret (null for none). */
    public record Contents(List<Address> addresses, String secret) {
        public Contents {
            addresses = List.copyOf(addresses);
        }

        /** {@code base} with this file's secret, if it has one (it is the cluster's, whatever the environment says). */
        public CommOptions options(CommOptions base) {
            return secret == null ? base : base.withSecret(secret);
        }
    }

    /** Writes where the scheduler listens and the cluster's secret ({@code options}'s, if any). */
    public static void write(Path file, List<Address> addresses, CommOptions options) {
        Map<String, Object> content = new LinkedHashMap<>();
        content.put("address", addresses.getFirst().toString());
        content.put("addresses", addresses.stream().map(Address::toString).toList());
        content.put("pid", ProcessHandle.current().pid());
        content.put("host", hostName());
        if (options.hasSecret()) {
            content.put("secret", options.secretText());
        }
        try {
            Path dir = file.toAbsolutePath().getParent();
            Files.createDirectories(dir);
            Path tmp = Files.createTempFile(dir, file.getFileName().toString(), ".tmp");
            try {
                JSON.writerWithDefaultPrettyPrinter().writeValue(tmp.toFile(), content);
                Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } finally {
                Files.deleteIfExists(tmp);   // a failed write leaves no half file behind (after a move it is gone)
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write scheduler file " + file, e);
        }
    }

    /** The first address in {@code file}, waiting up to {@code timeout} for the file to appear. */
    public static Address read(Path file, Duration timeout) {
        return readAll(file, timeout).getFirst();
    }

    /** {@link #read(Path, Duration)}, saying on {@code progress} that it waits, if it does, and every 30 s. */
    public static Address read(Path file, Duration timeout, Consumer<String> progress) {
        return readContents(file, timeout, progress).addresses().getFirst();
    }

    /** Every address in {@code file}, waiting up to {@code timeout} for the file to appear. */
    public static List<Address> readAll(Path file, Duration timeout) {
        return readAll(file, timeout, line -> { }, PROGRESS_INTERVAL).addresses();
    }

    /** Addresses and secret, saying on {@code progress} that it waits, if it does, and every 30 s. */
    public static Contents readContents(Path file, Duration timeout, Consumer<String> progress) {
        return readAll(file, timeout, progress, PROGRESS_INTERVAL);
    }

    /** {@link #readContents}, saying on {@code progress} that it waits when it starts to and every {@code interval}. */
    static Contents readAll(Path file, Duration timeout, Consumer<String> progress, Duration interval) {
        long deadline = System.nanoTime() + timeout.toNanos();
        WaitReport waiting = new WaitReport(file, progress, interval);
        while (true) {
            try {
                JsonNode node = JSON.readTree(Files.readAllBytes(file));
                List<Address> out = new ArrayList<>();
                if (node.has("addresses")) {
                    node.get("addresses").forEach(a -> out.add(Address.parse(a.asText())));
                }
                if (out.isEmpty() && node.has("address")) {
                    out.add(Address.parse(node.get("address").asText()));
                }
                if (out.isEmpty()) {
                    throw new IllegalArgumentException("scheduler file " + file + " names no address");
                }
                if (isStale(node)) {
                    // Left behind by a scheduler that died without cleaning up: wait for a fresh one.
                    String stale = "scheduler file " + file + " is stale: its scheduler (pid " + node.get("pid").asLong()
                            + " on this host) is not running";
                    if (System.nanoTime() - deadline >= 0) {
                        throw new IllegalStateException(stale);
                    }
                    waiting.say(stale + "; waiting up to " + seconds(timeout) + " for a fresh one");
                    sleep(file);
                    continue;
                }
                return new Contents(out, node.hasNonNull("secret") ? node.get("secret").asText() : null);
            } catch (NoSuchFileException e) {
                if (System.nanoTime() - deadline >= 0) {
                    throw new IllegalStateException("scheduler file " + file + " did not appear within " + seconds(timeout));
                }
                waiting.say("waiting up to " + seconds(timeout) + " for scheduler file " + file + " to appear");
                sleep(file);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read scheduler file " + file, e);
            }
        }
    }

    /** What one reader says while it waits: why, when it starts, then that it still waits once every interval. */
    private static final class WaitReport {
        private final Path file;
        private final Consumer<String> progress;
        private final long intervalNs;
        private final long startNs = System.nanoTime();
        private long nextNs;
        private boolean started;

        WaitReport(Path file, Consumer<String> progress, Duration interval) {
            this.file = file;
            this.progress = progress;
            this.intervalNs = interval.toNanos();
        }

        /** Called on each try that has to wait: says {@code why} on the first, later only when an interval passed. */
        void say(String why) {
            long now = System.nanoTime();
            if (!started) {
                started = true;
                progress.accept(why);
            } else if (now - nextNs >= 0) {
                progress.accept("still waiting for scheduler file " + file + " (" + seconds(Duration.ofNanos(now - startNs)) + " so far)");
            } else {
                return;
            }
            nextNs = now + intervalNs;
        }
    }

    /** {@code 60 s}, {@code 30 s}; below 10 s with a decimal ({@code 0.3 s}), for short waits. */
    private static String seconds(Duration d) {
        long ms = d.toMillis();
        return ms >= 10_000 ? (ms / 1000) + " s" : String.format(java.util.Locale.ROOT, "%.1f s", ms / 1000.0);
    }

    /** True if the file names a process on this host (same host name) that no longer runs. */
    private static boolean isStale(JsonNode node) {
        if (!node.has("pid") || !node.has("host")) {
            return false;
        }
        if (!node.get("host").asText().equals(hostName())) {
            return false;
        }
        return ProcessHandle.of(node.get("pid").asLong()).map(p -> !p.isAlive()).orElse(true);
    }

    private static String hostName() {
        try {
            return java.net.InetAddress.getLocalHost().getHostName();
        } catch (java.net.UnknownHostException e) {
            return "localhost";
        }
    }

    private static void sleep(Path file) {
        try {
            Thread.sleep(50);
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for " + file);
        }
    }

    public static void delete(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException ignored) {
            // a leftover file is overwritten by the next scheduler
        }
    }
}
