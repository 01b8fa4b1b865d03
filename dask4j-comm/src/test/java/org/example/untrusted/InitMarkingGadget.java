package org.example.untrusted;

/**
 * A gadget no test names as a type, only as a string in hand-written frames: its static initializer (which
 * building an object of it would run) leaves a mark in a system property, so a test can tell whether
 * deserialization ever got that far.
 */
public final class InitMarkingGadget {

    public static final String INITIALIZED_PROPERTY = "dask4j.test.gadget.initialized";

    static {
        System.setProperty(INITIALIZED_PROPERTY, "true");
    }

    public String command = "touch /tmp/pwned";
}
