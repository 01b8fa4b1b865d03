package io.dask4j.comm.serialize;

import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.jar.JarFile;

/**
 * The allow-list entry {@link ClassAllowList#defaults()} adds for the program's main class: its package and
 * sub-packages ({@code com.acme.app.*}) when the package has at least two parts, otherwise the main class
 * alone (a one-part package such as {@code com} would let in every library under it). Main classes of the
 * JDK's and of tools' packages add nothing: there the user's code is not the main class (the runtime's own
 * CLI, a test runner, jshell), and the user declares their packages. Stateless.
 */
final class MainClassPackage {

    /** Packages whose main class is a launcher, not the user's program. */
    private static final List<String> LAUNCHERS = List.of("java.", "javax.", "jdk.", "sun.", "com.sun.", "io.dask4j.",
            "org.apache.maven.", "org.junit.", "org.gradle.", "com.intellij.", "org.eclipse.");

    private MainClassPackage() {
    }

    /** From the command that started this JVM (HotSpot's {@code sun.java.command}); empty when unknown. */
    static Optional<String> ofThisProcess() {
        return ofCommand(System.getProperty("sun.java.command"));
    }

    /**
     * From a launch command as HotSpot records it: a main class, a {@code module/class}, or a jar file
     * (whose manifest names the main class), followed by the program's arguments.
     */
    static Optional<String> ofCommand(String command) {
        if (command == null || command.isBlank()) {
            return Optional.empty();
        }
        String first = command.trim().split("\\s+", 2)[0];
        String mainClass = first.endsWith(".jar") ? manifestMainClass(first) : first.substring(first.indexOf('/') + 1);
        return mainClass == null ? Optional.empty() : entryFor(mainClass);
    }

    static Optional<String> entryFor(String mainClass) {
        for (String launcher : LAUNCHERS) {
            if (mainClass.startsWith(launcher)) {
                return Optional.empty();
            }
        }
        int dot = mainClass.lastIndexOf('.');
        String pkg = dot < 0 ? "" : mainClass.substring(0, dot);
        return pkg.indexOf('.') > 0 ? Optional.of(pkg + ".*") : Optional.of(mainClass);
    }

    private static String manifestMainClass(String jar) {
        try (JarFile file = new JarFile(jar)) {
            return file.getManifest() == null ? null : file.getManifest().getMainAttributes().getValue("Main-Class");
        } catch (IOException | SecurityException e) {
            return null;
        }
    }
}
