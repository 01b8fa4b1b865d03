package io.dask4j.comm.tcp;

import io.dask4j.comm.CommClosedException;
import io.dask4j.comm.CommException;
import io.dask4j.comm.FatalCommClosedException;
import java.io.IOException;
import java.net.BindException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.UnresolvedAddressException;
import java.nio.channels.UnsupportedAddressTypeException;
import javax.net.ssl.SSLException;

/**
 * The one place where the tcp backend turns native errors into the comm layer's: what retrying might
 * fix (refused, unreachable for now, timed out, reset) becomes {@link CommClosedException}; what it
 * cannot (unknown host, unsupported address) becomes {@link FatalCommClosedException}.
 */
final class TcpErrors {

    private TcpErrors() {
    }

    static CommException translate(Throwable error, String context) {
        String text = context + ": " + describe(error);
        return switch (error) {
            case CommException already -> already;
            case SSLException e -> TlsErrors.translate(e, context);
            case UnknownHostException e -> new FatalCommClosedException(text, e);
            case UnresolvedAddressException e -> new FatalCommClosedException(text, e);
            case UnsupportedAddressTypeException e -> new FatalCommClosedException(text, e);
            case BindException e -> new CommException(text, e);
            case ConnectException e -> new CommClosedException(text, e);
            case NoRouteToHostException e -> new CommClosedException(text, e);
            case SocketTimeoutException e -> new CommClosedException(text, e);
            case AsynchronousCloseException e -> new CommClosedException(context + ": closed", e);
            case ClosedChannelException e -> new CommClosedException(context + ": closed", e);
            case IOException e -> new CommClosedException(text, e);
            default -> new CommClosedException(text, error);
        };
    }

    private static String describe(Throwable error) {
        String message = error.getMessage();
        return error.getClass().getSimpleName() + (message == null ? "" : " (" + message + ")");
    }
}
