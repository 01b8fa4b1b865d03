package io.dask4j.comm;

/**
 * TLS could not be set up: unusable key material (a key store or PEM file missing, unreadable, or locked by another
 * password), or a TLS handshake that failed (a certificate the other side does not trust, no client certificate where
 * mutual TLS requires one, a certificate that does not name the host, or a peer that does not speak TLS at all).
 * The message names the file or the peer and the reason. Retrying does not help; the listener that saw it keeps
 * serving others.
 */
public class TlsException extends FatalCommClosedException {
    public TlsException(String message) {
        super(message);
    }

    public TlsException(String message, Throwable cause) {
        super(message, cause);
    }
}
