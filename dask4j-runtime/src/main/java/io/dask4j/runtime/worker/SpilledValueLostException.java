package io.dask4j.runtime.worker;

/**
 * The value of a key that a {@link DataStore} had spilled could not be read back (its file was corrupt,
 * truncated or gone). The store has already dropped the key and corrected its counters; the scheduler is
 * told the key is lost from this worker, so it is recomputed where its inputs allow, as a key lost with a
 * worker would be.
 */
public final class SpilledValueLostException extends RuntimeException {

    private final String key;

    public SpilledValueLostException(String key, Throwable cause) {
        super("spilled value of " + key + " is lost: " + cause.getMessage(), cause);
        this.key = key;
    }

    public String key() {
        return key;
    }
}
