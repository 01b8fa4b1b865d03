package io.dask4j.comm.serialize;

import io.dask4j.comm.CommException;

/** A value could not be encoded (unsupported type, non-serializable lambda) or frames could not be decoded. */
public class SerializationException extends CommException {
    public SerializationException(String message) {
        super(message);
    }

    public SerializationException(String message, Throwable cause) {
        super(message, cause);
    }
}
