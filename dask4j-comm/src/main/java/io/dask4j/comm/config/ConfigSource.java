package io.dask4j.comm.config;

import java.util.HashMap;
import java.util.Map;
import java.util.Properties;

/**
 * Where {@link Setting}s are read from: a snapshot of system properties and of environment variables. Production code
 * takes {@link #system()} once, when a runtime, a cluster or a command starts, and builds its options records from
 * it; tests build their own with {@link #of}. Immutable; any thread.
 *
 * @param properties system properties by name
 * @param environment environment variables by name
 */
public record ConfigSource(Map<String, String> properties, Map<String, String> environment) {

    public ConfigSource {
        properties = Map.copyOf(properties);
        environment = Map.copyOf(environment);
    }

    /** This process's system properties and environment, as they are now. */
    public static ConfigSource system() {
        return new ConfigSource(copy(System.getProperties()), System.getenv());
    }

    /** The given properties and environment (tests, tools). */
    public static ConfigSource of(Map<String, String> properties, Map<String, String> environment) {
        return new ConfigSource(properties, environment);
    }

    /** Only the given environment, no system properties. */
    public static ConfigSource ofEnvironment(Map<String, String> environment) {
        return new ConfigSource(Map.of(), environment);
    }

    /** Only the given system properties, no environment. */
    public static ConfigSource ofProperties(Map<String, String> properties) {
        return new ConfigSource(properties, Map.of());
    }

    /** This source with one more system property. */
    public ConfigSource withProperty(String name, String value) {
        Map<String, String> more = new HashMap<>(properties);
        more.put(name, value);
        return new ConfigSource(more, environment);
    }

    private static Map<String, String> copy(Properties system) {
        Map<String, String> copy = new HashMap<>();
        for (String name : system.stringPropertyNames()) {
            String value = system.getProperty(name);
            if (value != null) {
                copy.put(name, value);
            }
        }
        return copy;
    }
}
