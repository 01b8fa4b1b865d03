package io.dask4j.comm.config;

import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Function;

/**
 * One {@code dask4j.*} system property or {@code DASK4J_*} environment variable the product reads, declared once in
 * {@link Settings} with its type, its default (as text: some defaults depend on the node), its unit and what it
 * means; docs/configuration.md is generated from these declarations ({@link ConfigurationReference}).
 *
 * <p>The typed readers take the value from a {@link ConfigSource}, or return the caller's {@code fallback} when it is
 * unset or blank; a value that does not parse as the setting's type is an {@link IllegalArgumentException} naming the
 * setting, never silently the default. Immutable; any thread.
 *
 * @param name        the property or variable name
 * @param kind        a system property or an environment variable
 * @param type        how the value is read
 * @param defaultText the default as users see it, e.g. {@code 50 (0 on an oversubscribed node)}
 * @param unit        the unit of a number ({@code µs}, {@code MiB}, ...), or empty
 * @param meaning     one line: what it changes
 * @param section     the heading of docs/configuration.md it is listed under
 */
public record Setting(String name, Kind kind, Type type, String defaultText, String unit, String meaning,
                      Section section) {

    /** Whether a setting is a system property ({@code -Dname=value}) or an environment variable. */
    public enum Kind { PROPERTY, ENVIRONMENT }

    /** The value types settings have. */
    public enum Type {
        INT("integer"), LONG("integer"), BOOLEAN("true or false"), TEXT("text"), PATH("path"), LEVEL("log level"),
        CHOICE("one of");

        private final String label;

        Type(String label) {
            this.label = label;
        }

        /** How docs/configuration.md names this type. */
        public String label() {
            return label;
        }
    }

    /** Headings of docs/configuration.md, in order. */
    public enum Section {
        GENERAL("Running dask4j"),
        MPI("MPI transport"),
        TESTS("Tests");

        private final String title;

        Section(String title) {
            this.title = title;
        }

        public String title() {
            return title;
        }
    }

    public Setting {
        Objects.requireNonNull(name);
        Objects.requireNonNull(kind);
        Objects.requireNonNull(type);
        Objects.requireNonNull(defaultText);
        Objects.requireNonNull(unit);
        Objects.requireNonNull(meaning);
        Objects.requireNonNull(section);
        boolean property = name.startsWith("dask4j.");
        boolean variable = name.startsWith("DASK4J_");
        if (kind == Kind.PROPERTY ? !property : !variable) {
            throw new IllegalArgumentException("a " + kind.name().toLowerCase(Locale.ROOT) + " setting is named "
                    + (kind == Kind.PROPERTY ? "dask4j.*" : "DASK4J_*") + ": " + name);
        }
    }

    /** A system property. */
    static Setting property(String name, Type type, String defaultText, String unit, String meaning, Section section) {
        return new Setting(name, Kind.PROPERTY, type, defaultText, unit, meaning, section);
    }

    /** An environment variable. */
    static Setting variable(String name, Type type, String defaultText, String unit, String meaning, Section section) {
        return new Setting(name, Kind.ENVIRONMENT, type, defaultText, unit, meaning, section);
    }

    /** The raw value in {@code source}, or null when unset or blank. */
    public String raw(ConfigSource source) {
        String value = exact(source);
        return value == null || value.isBlank() ? null : value.strip();
    }

    /** The value in {@code source} exactly as given (blank included), or null when unset. */
    public String exact(ConfigSource source) {
        return (kind == Kind.PROPERTY ? source.properties() : source.environment()).get(name);
    }

    /** Whether {@code source} sets this setting (to something not blank). */
    public boolean isSet(ConfigSource source) {
        return raw(source) != null;
    }

    public int intValue(ConfigSource source, int fallback) {
        return parsed(source, fallback, Integer::parseInt, "an integer");
    }

    public long longValue(ConfigSource source, long fallback) {
        return parsed(source, fallback, Long::parseLong, "an integer");
    }

    public boolean booleanValue(ConfigSource source, boolean fallback) {
        return parsed(source, fallback, value -> switch (value.toLowerCase(Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new IllegalArgumentException(value);
        }, "true or false");
    }

    public String stringValue(ConfigSource source, String fallback) {
        String value = raw(source);
        return value == null ? fallback : value;
    }

    /** The value, which must be one of {@code choices} (case-insensitive, returned in lower case), or the fallback. */
    public String choiceValue(ConfigSource source, List<String> choices, String fallback) {
        String value = raw(source);
        if (value == null) {
            return fallback;
        }
        String lower = value.toLowerCase(Locale.ROOT);
        if (!choices.contains(lower)) {
            throw bad(value, "one of " + String.join(", ", choices));
        }
        return lower;
    }

    /** How a user sets it: {@code -Dname=…} or {@code NAME=…}. */
    public String usage() {
        return kind == Kind.PROPERTY ? "-D" + name : name;
    }

    private <T> T parsed(ConfigSource source, T fallback, Function<String, T> parser, String expected) {
        String value = raw(source);
        if (value == null) {
            return fallback;
        }
        try {
            return parser.apply(value);
        } catch (IllegalArgumentException e) { // NumberFormatException included
            throw bad(value, expected);
        }
    }

    private IllegalArgumentException bad(String value, String expected) {
        return new IllegalArgumentException(usage() + "=" + value + " is not " + expected + " (" + meaning + ")");
    }
}
