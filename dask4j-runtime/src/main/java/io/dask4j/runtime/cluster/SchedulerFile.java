package io.dask4j.runtime.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dask4j.comm.Address;

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

/**
 * The scheduler file: JSON naming where a scheduler listens, {@code {"address": "tcp://...",
 * "addresses": [...], "pid": 123, "host": "node1"}}. Written atomically (a temporary file renamed into
 * place) once the scheduler listens, so a reader never sees half a file; deleted when the scheduler
 * closes. A stale file left by a scheduler that died (its pid no longer runs on this host) is ignored
 * while waiting for a fresh one, so workers are not sent to a dead scheduler. Stateless, thread-safe.
 */
public final class SchedulerFile {
    private static final ObjectMapper JSON = new ObjectMapper();

    private SchedulerFile() {
    }

    public static void write(Path file, List<Address> addresses) {
        Map<String, Object> content = new LinkedHashMap<>();
        content.put("address", addresses.getFirst().toString());
        content.put("addresses", addresses.stream().map(Address::toString).toList());
        content.put("pid", ProcessHandle.current().pid());
        content.put("host", hostName());
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

    public static List<Address> readAll(Path file, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
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
                    if (System.nanoTime() - deadline >= 0) {
                        throw new IllegalStateException("scheduler file " + file + " is stale: its scheduler (pid "
                                + node.get("pid").asLong() + " on this host) is not running");
                    }
                    sleep(file);
                    continue;
                }
                return out;
            } catch (NoSuchFileException e) {
                if (System.nanoTime() - deadline >= 0) {
                    throw new IllegalStateException("scheduler file " + file + " did not appear within " + timeout);
                }
                sleep(file);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read scheduler file " + file, e);
            }
        }
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
