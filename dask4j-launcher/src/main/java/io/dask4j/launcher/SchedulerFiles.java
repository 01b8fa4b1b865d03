package io.dask4j.launcher;

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
 * The scheduler file of an MPI-launched cluster: the runtime's format ({@code address}, {@code
 * addresses}, {@code pid}, readable by {@code Client.connect} and {@code WorkerMain}) plus {@code run_id},
 * a fresh random id per job that the scheduler rank also broadcasts to its ranks over MPI, and {@code
 * ranks}. A stale file is deleted when the scheduler rank starts (so nobody picks it up during start-up)
 * and replaced atomically (temporary file renamed into place) once the scheduler listens; the ranks of
 * the job take the address from the MPI broadcast, never from the file. Stateless and thread-safe.
 */
public final class SchedulerFiles {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** What a scheduler file says; {@code secret} is the cluster's, or null when it runs without authentication. */
    public record Content(List<Address> addresses, String runId, long pid, String secret) {
        /** The first {@code tcp://} or {@code tls://} address (reachable from other hosts), or the first address if none is. */
        public Address socketAddress() {
            return addresses.stream().filter(a -> RankListeners.isSocket(a.scheme())).findFirst().orElse(addresses.getFirst());
        }
    }

    private SchedulerFiles() {
    }

    /** Removes a file left by an earlier run; returns true if there was one. */
    public static boolean deleteStale(Path file) {
        try {
            return Files.deleteIfExists(file);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot remove the old scheduler file " + file, e);
        }
    }

    /**
     * Writes {@code addresses} (outside-reachable first) and the cluster's {@code secret} (null for none) atomically,
     * replacing any file there; readable by its owner only (0600, as a temporary file is created).
     */
    public static void write(Path file, List<Address> addresses, String runId, int ranks, String secret) {
        Map<String, Object> content = new LinkedHashMap<>();
        content.put("address", addresses.getFirst().toString());
        content.put("addresses", addresses.stream().map(Address::toString).toList());
        content.put("pid", ProcessHandle.current().pid());
        content.put("run_id", runId);
        content.put("ranks", ranks);
        if (secret != null) {
            content.put("secret", secret);
        }
        try {
            Path dir = file.toAbsolutePath().getParent();
            Files.createDirectories(dir);
            Path tmp = Files.createTempFile(dir, "." + file.getFileName(), ".tmp");
            try {
                JSON.writerWithDefaultPrettyPrinter().writeValue(tmp.toFile(), content);
                Files.move(tmp, file.toAbsolutePath(), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } finally {
                Files.deleteIfExists(tmp);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the scheduler file " + file, e);
        }
    }

    /** Reads {@code file}, waiting up to {@code timeout} for it to appear. */
    public static Content read(Path file, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            try {
                JsonNode node = JSON.readTree(Files.readAllBytes(file));
                List<Address> addresses = new ArrayList<>();
                if (node.has("addresses")) {
                    node.get("addresses").forEach(a -> addresses.add(Address.parse(a.asText())));
                }
                if (addresses.isEmpty() && node.has("address")) {
                    addresses.add(Address.parse(node.get("address").asText()));
                }
                if (addresses.isEmpty()) {
                    throw new IllegalArgumentException("scheduler file " + file + " names no address");
                }
                return new Content(List.copyOf(addresses), node.path("run_id").asText(""), node.path("pid").asLong(-1),
                        node.hasNonNull("secret") ? node.get("secret").asText() : null);
            } catch (NoSuchFileException e) {
                if (System.nanoTime() - deadline >= 0) {
                    throw new IllegalStateException("scheduler file " + file + " did not appear within " + timeout);
                }
                try {
                    Thread.sleep(50);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while waiting for " + file, ie);
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read the scheduler file " + file, e);
            }
        }
    }
}
