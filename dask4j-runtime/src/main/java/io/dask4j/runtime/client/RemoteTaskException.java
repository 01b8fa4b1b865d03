package io.dask4j.runtime.client;

import io.dask4j.runtime.protocol.ErrorInfo;

/**
 * A task raised an exception on a worker. Keeps the remote exception's class name ({@link
 * #remoteType()}), message, the worker that ran it and the failing task's key; the remote stack trace
 * is this exception's cause, so a printed stack shows both the client side and the worker side. A
 * dependent task fails with the same information as the task that failed first.
 */
public class RemoteTaskException extends RuntimeException {
    private final String key;
    private final String failedKey;
    private final String remoteType;
    private final String remoteMessage;
    private final String worker;

    public RemoteTaskException(String key, ErrorInfo error) {
        super(error.type() + ": " + error.message() + " (task " + error.key()
                + (error.worker().isEmpty() ? "" : " on worker " + error.worker())
                + (key.equals(error.key()) ? "" : ", needed by " + key) + ")", new RemoteCause(error));
        this.key = key;
        this.failedKey = error.key();
        this.remoteType = error.type();
        this.remoteMessage = error.message();
        this.worker = error.worker();
    }

    /** The key of the future that raised this. */
    public String key() {
        return key;
    }

    /** The key of the task whose code threw (differs from {@link #key()} for dependents). */
    public String failedKey() {
        return failedKey;
    }

    /** Fully qualified class name of the exception thrown on the worker. */
    public String remoteType() {
        return remoteType;
    }

    public String remoteMessage() {
        return remoteMessage;
    }

    /** Address of the worker that ran the failing task ("" if the failure was the cluster's, e.g. lost data). */
    public String worker() {
        return worker;
    }

    /** The worker-side exception, rebuilt as text: its type, message and stack frames. */
    static final class RemoteCause extends RuntimeException {
        private final String type;

        RemoteCause(ErrorInfo error) {
            super(error.message(), null, false, true);
            this.type = error.type();
            setStackTrace(error.stackTrace());
        }

        @Override
        public String toString() {
            return type + ": " + getMessage();
        }
    }
}
