package io.dask4j.runtime.client;

/**
 * A worker refused values the client sent it ({@link Client#scatter}): most often a value of a class the worker's
 * allow-list does not let it build ({@link #className()} then names it; allow it on the workers with
 * {@code --allow-classes} or {@code DASK4J_ALLOWED_CLASSES}). The worker stored none of the values of that request
 * and serves on. Thrown on the thread that called {@code scatter}.
 */
public class DataRefusedException extends IllegalStateException {
    private final String worker;
    private final String remoteType;
    private final String className;

    /**
     * @param worker the worker's address
     * @param remoteType the class name of the exception the worker raised (empty if it did not say)
     * @param className the class the worker may not build, or null if that was not the reason
     * @param message what the worker said
     */
    public DataRefusedException(String worker, String remoteType, String className, String message) {
        super("worker " + worker + " refused scattered data: " + (remoteType.isEmpty() ? "" : remoteType + ": ") + message);
        this.worker = worker;
        this.remoteType = remoteType;
        this.className = className;
    }

    /** The address of the worker that refused. */
    public String worker() {
        return worker;
    }

    /** The class name of the exception the worker raised, e.g. {@code io.dask4j.comm.serialize.ClassNotAllowedException}. */
    public String remoteType() {
        return remoteType;
    }

    /** The class of a value the worker may not build, or null if the refusal had another reason. */
    public String className() {
        return className;
    }
}
