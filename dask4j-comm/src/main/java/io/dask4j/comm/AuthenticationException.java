package io.dask4j.comm;

/** The handshake's HMAC challenge failed on one side, or one side requires a secret the other lacks. */
public class AuthenticationException extends FatalCommClosedException {
    public AuthenticationException(String message) {
        super(message);
    }
}
