package io.dask4j.comm.serialize;

import io.dask4j.comm.config.ConfigSource;
import io.dask4j.comm.config.Settings;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Which classes this process's {@link Deserializer} may build from frames a peer sent. Always allowed: the
 * runtime's own types (package {@code io.dask4j} and below), the JDK's value types ({@link JdkValueTypes}:
 * boxed primitives, {@code String}, the common collections, {@code java.time}, {@code BigDecimal}, a few
 * exceptions), arrays of allowed types and primitive arrays. The user adds their task classes: whole
 * packages ({@code com.acme.*}, sub-packages included) or single classes ({@code com.acme.Task}, its nested
 * classes included). A serializable lambda is allowed when the class that wrote it (its capturing class)
 * is; the values it captured are checked like any other.
 *
 * <p>{@link #defaults()} adds the package of the program's main class (so a program that starts its own
 * {@code LocalCluster} or runs under {@code MpiCluster} works as written) and the entries of
 * {@code DASK4J_ALLOWED_CLASSES}. Immutable and thread-safe.
 *
 * @param packages package prefixes, each ending in a dot ({@code com.acme.}); a class in one, or in one of
 *     its sub-packages, is allowed
 * @param classes fully qualified class names; each, and the classes nested in it, is allowed
 */
public record ClassAllowList(List<String> packages, Set<String> classes) {

    /** Environment variable with extra entries, comma-separated: {@code com.acme.*,org.lab.Kernel}. */
    public static final String ENV = Settings.ALLOWED_CLASSES_VARIABLE;

    private static final String RUNTIME_PACKAGE = "io.dask4j.";
    private static final Pattern QUALIFIED_NAME = Pattern.compile("[\\p{L}_$][\\p{L}\\p{N}_$]*(\\.[\\p{L}_$][\\p{L}\\p{N}_$]*)*");

    public ClassAllowList {
        packages = List.copyOf(packages);
        classes = Set.copyOf(new LinkedHashSet<>(classes));
        for (String p : packages) {
            if (!p.endsWith(".") || !QUALIFIED_NAME.matcher(p.substring(0, p.length() - 1)).matches()) {
                throw new IllegalArgumentException("not a package prefix (want e.g. com.acme.): '" + p + "'");
            }
        }
        for (String c : classes) {
            if (!QUALIFIED_NAME.matcher(c).matches()) {
                throw new IllegalArgumentException("not a class name: '" + c + "'");
            }
        }
    }

    /** Only the runtime's own types and the JDK's value types: nothing of the user's. */
    public static ClassAllowList builtInOnly() {
        return new ClassAllowList(List.of(), Set.of());
    }

    /** The built-in types, the main class's package ({@link MainClassPackage}) and the entries of {@code DASK4J_ALLOWED_CLASSES}. */
    public static ClassAllowList defaults() {
        return fromEnvironment(System.getenv(), MainClassPackage.ofThisProcess());
    }

    /**
     * The built-in types plus {@code mainEntry} (the main class's package or class, as an entry of {@link
     * #parse}) and the entries of {@code DASK4J_ALLOWED_CLASSES} in {@code env}.
     */
    public static ClassAllowList fromEnvironment(Map<String, String> env, Optional<String> mainEntry) {
        ClassAllowList list = builtInOnly();
        if (mainEntry.isPresent()) {
            list = list.with(parse(mainEntry.get()));
        }
        String extra = Settings.ALLOWED_CLASSES.stringValue(ConfigSource.ofEnvironment(env), null);
        return extra == null ? list : list.with(parse(extra));
    }

    /**
     * Parses entries separated by commas or white space: {@code com.acme.*} allows a package and its
     * sub-packages, anything else names one class (and its nested classes).
     *
     * @throws IllegalArgumentException for an entry that is not a Java name, and for {@code *} alone
     */
    public static ClassAllowList parse(String spec) {
        List<String> packages = new ArrayList<>();
        Set<String> classes = new LinkedHashSet<>();
        for (String entry : spec.trim().split("[,\\s]+")) {
            if (entry.isEmpty()) {
                continue;
            }
            if (entry.equals("*") || entry.equals(".*")) {
                throw new IllegalArgumentException("'" + entry + "' would allow every class on the class path; list your packages");
            }
            if (entry.endsWith(".*")) {
                packages.add(entry.substring(0, entry.length() - 1));
            } else {
                classes.add(entry);
            }
        }
        return new ClassAllowList(packages, classes);
    }

    /** This list with {@code other}'s entries added. */
    public ClassAllowList with(ClassAllowList other) {
        List<String> p = new ArrayList<>(packages);
        for (String q : other.packages) {
            if (!p.contains(q)) {
                p.add(q);
            }
        }
        Set<String> c = new LinkedHashSet<>(classes);
        c.addAll(other.classes);
        return new ClassAllowList(p, c);
    }

    /** This list with the packages of {@code types} (and their sub-packages) added. */
    public ClassAllowList withPackagesOf(Class<?>... types) {
        List<String> p = new ArrayList<>();
        for (Class<?> t : types) {
            p.add(t.getPackageName() + ".");
        }
        return with(new ClassAllowList(p, Set.of()));
    }

    /** This list with {@code types} (and their nested classes) added. */
    public ClassAllowList withClasses(Class<?>... types) {
        Set<String> c = new LinkedHashSet<>();
        for (Class<?> t : types) {
            c.add(t.getName());
        }
        return with(new ClassAllowList(List.of(), c));
    }

    /** The user's entries in {@link #parse}'s syntax (the built-in types are implied), for a worker's command line. */
    public String toSpec() {
        List<String> entries = new ArrayList<>();
        for (String p : packages) {
            entries.add(p + "*");
        }
        entries.addAll(classes);
        return String.join(",", entries);
    }

    /**
     * Whether a class of this name (as {@link Class#getName()} spells it, arrays included) may be built.
     * Decides on the name alone, so a refused class is never loaded.
     */
    public boolean allows(String className) {
        String name = elementName(className);
        if (name == null) {
            return true;   // a primitive array
        }
        if (name.startsWith(RUNTIME_PACKAGE) || JdkValueTypes.contains(name)) {
            return true;
        }
        for (String p : packages) {
            if (name.startsWith(p)) {
                return true;
            }
        }
        if (classes.contains(name)) {
            return true;
        }
        for (int dollar = name.indexOf('$'); dollar > 0; dollar = name.indexOf('$', dollar + 1)) {
            if (classes.contains(name.substring(0, dollar))) {
                return true;
            }
        }
        return false;
    }

    /** The element class's name of an array type name ({@code [[Lcom.acme.Foo;}), null for primitive arrays. */
    private static String elementName(String className) {
        if (!className.startsWith("[")) {
            return className;
        }
        String element = className.substring(className.lastIndexOf('[') + 1);
        if (element.startsWith("L") && element.endsWith(";")) {
            return element.substring(1, element.length() - 1);
        }
        return element.length() == 1 && "ZBCSIJFD".contains(element) ? null : className;
    }
}
