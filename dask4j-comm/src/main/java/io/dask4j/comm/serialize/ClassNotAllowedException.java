package io.dask4j.comm.serialize;

/**
 * Frames named a class that this process's {@link ClassAllowList} does not allow. Raised while reading the
 * class name, before the class is loaded or any object of it is built, so nothing of the refused class ran.
 * The message says how to allow the class if it is the user's own.
 */
public final class ClassNotAllowedException extends SerializationException {

    private final String className;

    public ClassNotAllowedException(String className) {
        super("class " + className + " is not on the deserialization allow-list; if it is yours, allow its package with "
                + ClassAllowList.ENV + "=" + suggestion(className) + " (or --allow-classes, or ClassAllowList in code)");
        this.className = className;
    }

    private ClassNotAllowedException(String className, String message, Throwable cause) {
        super(message, cause);
        this.className = className;
    }

    /** The same refusal with the context of where it happened (Kryo's trace of the fields being read). */
    ClassNotAllowedException withContext(String context, Throwable cause) {
        return new ClassNotAllowedException(className, getMessage() + " (" + context + ")", cause);
    }

    /** The fully qualified name the frames asked for, as written in them. */
    public String className() {
        return className;
    }

    private static String suggestion(String className) {
        int dot = className.lastIndexOf('.');
        return dot < 0 ? className : className.substring(0, dot) + ".*";
    }
}
