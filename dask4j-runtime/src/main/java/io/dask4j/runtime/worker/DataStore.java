package io.dask4j.runtime.worker;

import io.dask4j.comm.serialize.Deserializer;
import io.dask4j.runtime.protocol.Codec;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A worker's key -> value store with byte accounting and spilling. When the bytes held in memory pass
 * {@code spillFraction x memoryLimit}, the least recently used values are written to files in the
 * spill directory (arrays and buffers as their raw bytes, through the serializer's raw-frame path, no
 * object serializer) and read back on the next {@link #get}. A value read back is equal to the one
 * spilled. A memory limit of 0 means no limit and no spilling.
 *
 * <p>A value that cannot be spilled (the disk is full or unwritable, or the serializer refuses it) stays in
 * memory and is not tried again: spilling only relieves memory, so its failure costs memory, never a value.
 * Each spill file carries a CRC32C ({@link SpillFile}); one that reads back altered, truncated or not at all
 * loses its key: {@link #get} drops it, corrects the counters, tells {@link #onLost}'s listener (the worker
 * reports it to the scheduler, which recomputes it where its inputs allow) and throws {@link
 * SpilledValueLostException}.
 *
 * <p>Thread-safe: every method synchronizes on the store (task threads, transfer threads and the
 * scheduler stream all use it). Spilling happens under the lock, so a value is never half-spilled.
 */
public final class DataStore {
    private static final Logger LOG = LoggerFactory.getLogger(DataStore.class);

    private final long memoryLimit;
    private final double spillFraction;
    private final Path directory;
    private final Deserializer decoder;
    private final LinkedHashMap<String, Entry> memory = new LinkedHashMap<>(64, 0.75f, true);
    private final Map<String, Spilled> disk = new HashMap<>();
    private long memoryBytes;
    private long spilledBytes;
    private long spillCount;
    private long unspillCount;
    private long fileSeq;
    /** Keys whose values could not be written to disk: kept in memory, not tried again. */
    private final Set<String> unspillable = new HashSet<>();
    private long spillFailures;
    private long spillReadFailures;
    private volatile Consumer<String> lostListener = key -> { };

    private record Entry(Object value, long nbytes) {
    }

    private record Spilled(Path file, long nbytes) {
    }

    public DataStore(long memoryLimit, double spillFraction, Path directory, Deserializer decoder) {
        this.decoder = decoder;
        this.memoryLimit = memoryLimit;
        this.spillFraction = spillFraction;
        this.directory = directory;
    }

    public synchronized void put(String key, Object value, long nbytes) {
        remove(key);
        memory.put(key, new Entry(value, nbytes));
        memoryBytes += nbytes;
        maybeSpill(key);
    }

    /**
     * Who hears of keys whose spilled value was lost (see {@link SpilledValueLostException}); called with the
     * store's lock held, so it must only hand the key on (e.g. queue a message).
     */
    public void onLost(Consumer<String> listener) {
        this.lostListener = listener;
    }

    /**
     * The value, read back from disk if it was spilled; {@code null} if absent.
     *
     * @throws SpilledValueLostException if it was spilled and its file cannot be read back intact; the key is
     *     then gone from this store
     */
    public synchronized Object get(String key) {
        Entry e = memory.get(key);
        if (e != null) {
            return e.value;
        }
        Spilled s = disk.remove(key);
        if (s == null) {
            return null;
        }
        spilledBytes -= s.nbytes;
        Object value;
        try {
            value = readBack(s.file);
        } catch (IOException | RuntimeException failure) {
            // Gone for good: the key is dropped (counters included) and the scheduler told, so it is recomputed
            // like a key lost with a worker rather than read wrong or waited for.
            deleteQuietly(s.file);
            spillReadFailures++;
            LOG.warn("spilled value of {} cannot be read back ({}); the key is dropped and reported lost", key, failure.toString());
            lostListener.accept(key);
            throw new SpilledValueLostException(key, failure);
        }
        unspillCount++;
        memory.put(key, new Entry(value, s.nbytes));
        memoryBytes += s.nbytes;
        maybeSpill(key);
        return value;
    }

    public synchronized boolean contains(String key) {
        return memory.containsKey(key) || disk.containsKey(key);
    }

    public synchronized long nbytes(String key) {
        Entry e = memory.get(key);
        if (e != null) {
            return e.nbytes;
        }
        Spilled s = disk.get(key);
        return s == null ? 0 : s.nbytes;
    }

    public synchronized boolean isSpilled(String key) {
        return disk.containsKey(key);
    }

    public synchronized void remove(String key) {
        unspillable.remove(key);
        Entry e = memory.remove(key);
        if (e != null) {
            memoryBytes -= e.nbytes;
        }
        Spilled s = disk.remove(key);
        if (s != null) {
            spilledBytes -= s.nbytes;
            deleteQuietly(s.file);
        }
    }

    public synchronized Set<String> keys() {
        Set<String> out = new TreeSet<>(memory.keySet());
        out.addAll(disk.keySet());
        return out;
    }

    public synchronized long memoryBytes() {
        return memoryBytes;
    }

    public synchronized long spilledBytes() {
        return spilledBytes;
    }

    public synchronized long spillCount() {
        return spillCount;
    }

    /** Spilled values that could not be read back (corrupt, truncated or missing files). */
    public synchronized long spillReadFailures() {
        return spillReadFailures;
    }

    /** Values that could not be written to disk (they stayed in memory). */
    public synchronized long spillWriteFailures() {
        return spillFailures;
    }

    public synchronized long unspillCount() {
        return unspillCount;
    }

    /** Deletes every spill file. */
    public synchronized void clear() {
        for (String key : new ArrayList<>(disk.keySet())) {
            remove(key);
        }
        memory.clear();
        memoryBytes = 0;
        unspillable.clear();
    }

    private void maybeSpill(String keep) {
        if (memoryLimit <= 0) {
            return;
        }
        long target = (long) (memoryLimit * spillFraction);
        Iterator<Map.Entry<String, Entry>> it = memory.entrySet().iterator();
        while (memoryBytes > target && it.hasNext()) {
            Map.Entry<String, Entry> eldest = it.next();
            if (eldest.getKey().equals(keep) || unspillable.contains(eldest.getKey())) {
                continue;
            }
            Path file = directory.resolve("spill-" + (++fileSeq) + ".bin");
            try {
                write(file, eldest.getValue().value);
            } catch (RuntimeException e) {
                deleteQuietly(file);
                unspillable.add(eldest.getKey());
                // The first failure says why; a full disk would otherwise log once per value.
                if (spillFailures++ == 0) {
                    LOG.warn("cannot spill {}; it stays in memory (later spill failures are logged at debug level)",
                            eldest.getKey(), e);
                } else {
                    LOG.debug("cannot spill {}; it stays in memory", eldest.getKey(), e);
                }
                continue;
            }
            long n = eldest.getValue().nbytes;
            disk.put(eldest.getKey(), new Spilled(file, n));
            it.remove();
            memoryBytes -= n;
            spilledBytes += n;
            spillCount++;
        }
    }

    private static void write(Path file, Object value) {
        try {
            SpillFile.write(file, Codec.encode(value));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot spill to " + file, e);
        }
    }

    private Object readBack(Path file) throws IOException {
        Object value = Codec.decode(SpillFile.read(file), decoder);
        deleteQuietly(file);
        return value;
    }

    private static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException ignored) {
            // a leftover spill file is removed with the directory at shutdown
        }
    }
}
