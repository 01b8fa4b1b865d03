package io.dask4j.comm.tcp;

import io.dask4j.comm.TlsException;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateException;
import javax.net.ssl.SSLException;

/**
 * Turns the JDK's {@link SSLException}s into {@link TlsException}s that say, in the user's terms, what went wrong
 * and what to do: a peer that does not speak TLS, a certificate that is not trusted or does not name the host, a
 * client certificate missing or refused. Stateless; any thread.
 */
final class TlsErrors {

    private TlsErrors() {
    }

    static TlsException translate(SSLException error, String context) {
        return new TlsException(context + ": TLS failed: " + reason(error), error);
    }

    private static String reason(SSLException error) {
        String message = String.valueOf(error.getMessage());
        if (message.contains("Unsupported or unrecognized SSL message") || message.contains("plaintext connection")) {
            return "the peer does not speak TLS (a tcp:// endpoint? both ends must use tls://) (" + message + ")";
        }
        if (message.contains("Received fatal alert")) {
            // The peer's verdict on us.
            if (message.contains("certificate_required")) {
                return "mutual TLS: the listener requires a client certificate and this client sent none; give it a "
                        + "key store (or PEM certificate and key) signed by a certificate the listener trusts ("
                        + message + ")";
            }
            if (message.contains("bad_certificate") || message.contains("certificate_unknown")
                    || message.contains("unknown_ca")) {
                return "the peer refused this side's certificate: its trust store does not trust it (" + message + ")";
            }
            if (message.contains("protocol_version")) {
                return "the peer offers no protocol in common (dask4j speaks TLS 1.3 only) (" + message + ")";
            }
            return message;
        }
        if (message.contains("Empty client certificate chain") || message.contains("certificate_required")) {
            return "mutual TLS: this listener requires a client certificate and the peer sent none (" + message + ")";
        }
        for (Throwable cause = error; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
            String causeMessage = String.valueOf(cause.getMessage());
            if (causeMessage.contains("No subject alternative") || causeMessage.contains("No name matching")) {
                return "the peer's certificate does not name the host connected to (" + causeMessage + "); connect "
                        + "with a name or address in its certificate, or turn hostname verification off "
                        + "(TlsOptions.withHostnameVerification(false), --tls-no-hostname-check) on test clusters";
            }
        }
        for (Throwable cause = error; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
            if (cause instanceof CertPathValidatorException || cause instanceof CertificateException) {
                return "the peer's certificate is not trusted: no certificate of this side's trust store (CA bundle) "
                        + "signed it (" + message + ")";
            }
        }
        if (message.contains("No appropriate protocol") || message.contains("protocol_version")) {
            return "the peer offers no protocol in common (dask4j speaks TLS 1.3 only) (" + message + ")";
        }
        return message;
    }
}
