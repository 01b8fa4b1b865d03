package io.dask4j.runtime.dashboard;

import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Decides whether a request's {@code Host} header may reach the dashboard: the defence against DNS
 * rebinding, where a web page makes a name it controls resolve to 127.0.0.1 and then reads the dashboard
 * as its own origin. Such a request carries the attacker's name, so only names no attacker controls pass:
 * {@code localhost} (and {@code *.localhost}), IP address literals (a page cannot make the browser send an
 * address as Host unless the page itself was loaded from that address), the names configured in {@link
 * DashboardConfig#allowedHosts()}, and, when the dashboard listens beyond loopback, this machine's host name.
 * A missing header is refused. Immutable; any thread.
 */
final class HostHeaderCheck {

    private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");
    private static final Pattern IPV6 = Pattern.compile("\\[[0-9a-fA-F:.]+(%[0-9A-Za-z._-]+)?]");

    private final Set<String> names = new HashSet<>();

    /**
     * @param configured the extra names users reach the dashboard by
     * @param machineNames this machine's names, allowed too (pass none when the dashboard listens on loopback)
     */
    HostHeaderCheck(List<String> configured, List<String> machineNames) {
        for (String n : configured) {
            names.add(n.toLowerCase(Locale.ROOT));
        }
        for (String n : machineNames) {
            names.add(n.toLowerCase(Locale.ROOT));
        }
    }

    /** Whether a request with this {@code Host} header (null when absent) is answered. */
    boolean allows(String hostHeader) {
        if (hostHeader == null || hostHeader.isBlank()) {
            return false;
        }
        String host = stripPort(hostHeader.strip()).toLowerCase(Locale.ROOT);
        if (host.endsWith(".")) {
            host = host.substring(0, host.length() - 1);   // "localhost." is the same name
        }
        return host.equals("localhost") || host.endsWith(".localhost") || IPV4.matcher(host).matches()
                || IPV6.matcher(host).matches() || names.contains(host);
    }

    private static String stripPort(String hostAndPort) {
        if (hostAndPort.startsWith("[")) {
            int close = hostAndPort.indexOf(']');
            return close < 0 ? hostAndPort : hostAndPort.substring(0, close + 1);
        }
        int colon = hostAndPort.lastIndexOf(':');
        return colon < 0 ? hostAndPort : hostAndPort.substring(0, colon);
    }
}
