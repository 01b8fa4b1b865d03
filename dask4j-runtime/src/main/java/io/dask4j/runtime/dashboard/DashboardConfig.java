package io.dask4j.runtime.dashboard;

import java.util.List;
import java.util.Objects;

/**
 * Whether and where a scheduler serves its dashboard. Immutable.
 *
 * <p>Defaults as Dask: port {@value #DEFAULT_PORT}, loopback only. Binding any other interface logs a
 * warning (the page shows worker addresses, pids and task keys to whoever reaches it). Requests whose
 * {@code Host} header names something else than loopback, an IP address or {@link #allowedHosts()} are
 * refused, so a web page cannot reach the dashboard through a DNS name it controls (DNS rebinding). Port 0 picks a free port. When the
 * asked-for port is taken, the dashboard falls back to a free port and says so (a second scheduler on a
 * laptop, parallel test JVMs) rather than failing the scheduler.
 *
 * @param enabled false: no dashboard at all
 * @param host the interface to bind ({@code 127.0.0.1} by default; {@code 0.0.0.0} for every interface)
 * @param port the TCP port, 0 for any free one
 * @param allowedHosts host names, besides loopback names and IP addresses, that requests may carry in their
 *     {@code Host} header ({@link HostHeaderCheck}): the names users reach the dashboard by when it listens
 *     beyond loopback, e.g. behind a proxy or an SSH tunnel's name
 */
public record DashboardConfig(boolean enabled, String host, int port, List<String> allowedHosts) {
    public static final int DEFAULT_PORT = 8787;
    public static final String DEFAULT_HOST = "127.0.0.1";

    public DashboardConfig {
        Objects.requireNonNull(host, "host");
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("dashboard port must be 0-65535: " + port);
        }
        allowedHosts = List.copyOf(allowedHosts);
    }

    /** No extra host names: loopback names and IP addresses only. */
    public DashboardConfig(boolean enabled, String host, int port) {
        this(enabled, host, port, List.of());
    }

    /** This configuration, also answering requests whose {@code Host} header names one of {@code names}. */
    public DashboardConfig withAllowedHosts(List<String> names) {
        return new DashboardConfig(enabled, host, port, names);
    }

    /** On, at 127.0.0.1:8787. */
    public static DashboardConfig defaults() {
        return new DashboardConfig(true, DEFAULT_HOST, DEFAULT_PORT);
    }

    public static DashboardConfig disabled() {
        return new DashboardConfig(false, DEFAULT_HOST, DEFAULT_PORT);
    }

    /**
     * An enabled dashboard at {@code address}: {@code host:port}, {@code :port} (loopback), {@code port},
     * or {@code [v6-address]:port}.
     *
     * @throws IllegalArgumentException naming the address when it is not one of those forms
     */
    public static DashboardConfig parse(String address) {
        String a = address.strip();
        String host = DEFAULT_HOST;
        String port = a;
        int colon = a.lastIndexOf(':');
        if (colon >= 0) {
            host = a.substring(0, colon);
            port = a.substring(colon + 1);
            if (host.startsWith("[") && host.endsWith("]")) {
                host = host.substring(1, host.length() - 1);
            }
            if (host.isEmpty()) {
                host = DEFAULT_HOST;
            }
        }
        try {
            return new DashboardConfig(true, host, Integer.parseInt(port));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("bad dashboard address '" + address + "': expected host:port, :port or port");
        }
    }
}
