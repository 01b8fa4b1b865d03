package io.dask4j.runtime.worker;

import java.io.IOException;
import java.nio.file.Path;

/** A spill file does not hold what was written to it: truncated, altered, or not a spill file. */
public final class SpillFileCorruptException extends IOException {

    public SpillFileCorruptException(Path file, String reason) {
        super("spill file " + file + " is corrupt: " + reason);
    }
}
