package io.dask4j.comm;

import java.util.Locale;
import java.util.Objects;

/**
 * A parsed comm address, {@code scheme://location}: {@code tcp://127.0.0.1:8786}, {@code tcp://[::1]:0},
 * {@code tls://node1:8786}, {@code inproc://scheduler-1}, {@code mpi://3}, {@code mpi://3:7} (rank 3, port 7: one rank may listen on
 * several mpi addresses, told apart by port).
 *
 * <p>Immutable and thread-safe. {@link #parse} and {@link #toString} round-trip: {@code
 * Address.parse(a.toString()).equals(a)}. A malformed address raises {@link IllegalArgumentException}
 * naming it; scheme-specific checks (a TCP port in range, an MPI rank that is a number) happen here so
 * that a bad address fails where the user typed it, not deep inside a backend.
 */
public record Address(String scheme, String location) {

    public Address {
        Objects.requireNonNull(scheme, "scheme");
        Objects.requireNonNull(location, "location");
        scheme = scheme.toLowerCase(Locale.ROOT);
        if (scheme.isEmpty() || !scheme.chars().allMatch(c -> Character.isLetterOrDigit(c) || c == '+' || c == '-' || c == '.')) {
            throw new IllegalArgumentException("bad address scheme '" + scheme + "' in " + scheme + "://" + location);
        }
        validate(scheme, location);
    }

    /** Parses {@code scheme://location}; a bare {@code host:port} is taken as tcp, as Dask does. */
    public static Address parse(String text) {
        Objects.requireNonNull(text, "address");
        String trimmed = text.strip();
        int sep = trimmed.indexOf("://");
        if (sep < 0) {
            if (trimmed.isEmpty()) {
                throw new IllegalArgumentException("empty address");
            }
            return new Address("tcp", trimmed);
        }
        return new Address(trimmed.substring(0, sep), trimmed.substring(sep + 3));
    }

    public static Address tcp(String host, int port) {
        return hostPort("tcp", host, port);
    }

    public static Address tls(String host, int port) {
        return hostPort("tls", host, port);
    }

    /** {@code scheme://host:port}, an IPv6 host in brackets. */
    public static Address hostPort(String scheme, String host, int port) {
        String h = host.indexOf(':') >= 0 && !host.startsWith("[") ? "[" + host + "]" : host;
        return new Address(scheme, h + ":" + port);
    }

    public static Address inproc(String name) {
        return new Address("inproc", name);
    }

    public static Address mpi(int rank) {
        return new Address("mpi", Integer.toString(rank));
    }

    /** The host of a {@code host:port} location, without IPv6 brackets. */
    public String host() {
        String loc = location;
        if (loc.startsWith("[")) {
            return loc.substring(1, loc.indexOf(']'));
        }
        int colon = loc.lastIndexOf(':');
        return colon < 0 ? loc : loc.substring(0, colon);
    }

    /** The port of a {@code host:port} location. */
    public int port() {
        int colon = location.lastIndexOf(':');
        if (colon < 0 || colon < location.lastIndexOf(']')) {
            throw new IllegalArgumentException("address " + this + " has no port");
        }
        return Integer.parseInt(location.substring(colon + 1));
    }

    /** The rank of an {@code mpi://rank[:port]} address. */
    public int rank() {
        if (!scheme.equals("mpi")) {
            throw new IllegalArgumentException("address " + this + " is not an mpi:// address");
        }
        int colon = location.indexOf(':');
        return Integer.parseInt(colon < 0 ? location : location.substring(0, colon));
    }

    @Override
    public String toString() {
        return scheme + "://" + location;
    }

    private static void validate(String scheme, String location) {
        String text = scheme + "://" + location;
        switch (scheme) {
            case "tcp", "tls" -> validateHostPort(text, location);
            case "mpi" -> {
                if (!location.matches("\\d{1,9}(:\\d{1,9})?")) {
                    throw new IllegalArgumentException("bad mpi address '" + text + "': expected mpi://<rank>[:<port>]");
                }
            }
            case "inproc" -> {
                if (location.isEmpty() || location.chars().anyMatch(Character::isWhitespace)) {
                    throw new IllegalArgumentException("bad inproc address '" + text + "'");
                }
            }
            default -> { /* other schemes are checked by their backend */ }
        }
    }

    private static void validateHostPort(String text, String location) {
        String host;
        String port;
        if (location.startsWith("[")) {
            int close = location.indexOf(']');
            if (close < 0 || close + 1 >= location.length() || location.charAt(close + 1) != ':') {
                throw new IllegalArgumentException("bad tcp address '" + text + "': expected tcp://[ipv6]:port");
            }
            host = location.substring(1, close);
            port = location.substring(close + 2);
        } else {
            int colon = location.lastIndexOf(':');
            if (colon < 0 || location.indexOf(':') != colon) {
                throw new IllegalArgumentException("bad tcp address '" + text + "': expected tcp://host:port (IPv6 in brackets)");
            }
            host = location.substring(0, colon);
            port = location.substring(colon + 1);
        }
        if (host.isEmpty() || host.chars().anyMatch(Character::isWhitespace)) {
            throw new IllegalArgumentException("bad tcp address '" + text + "': empty or blank host");
        }
        if (!port.matches("\\d{1,5}") || Integer.parseInt(port) > 65535) {
            throw new IllegalArgumentException("bad tcp address '" + text + "': port must be 0-65535");
        }
    }
}
