package io.dask4j.comm;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The address by which other hosts reach this one, for listeners bound to every interface and for MPI jobs
 * that span hosts. The host name's address comes first, as long as it is not a loopback address: many
 * distributions map the host name to 127.0.0.1 or 127.0.1.1 in {@code /etc/hosts}, and a peer given that
 * address would connect to itself. Then an address of an interface that is up: IPv4 before IPv6, global before
 * link-local (which needs a scope to be dialled). Loopback only when there is nothing else. Stateless; any thread.
 */
public final class HostAddresses {
    private HostAddresses() {
    }

    /** This host's address for peers on other hosts, as text (IPv6 without brackets). */
    public static String forPeers() {
        InetAddress named;
        try {
            named = InetAddress.getLocalHost();
        } catch (UnknownHostException e) {
            named = null;
        }
        return choose(named, interfaceAddresses()).getHostAddress();
    }

    /** The pick among the host name's address (null if it does not resolve) and the interfaces' addresses. */
    static InetAddress choose(InetAddress named, List<InetAddress> interfaces) {
        if (named != null && !named.isLoopbackAddress() && !named.isAnyLocalAddress()) {
            return named;
        }
        InetAddress best = null;
        for (InetAddress a : interfaces) {
            if (a.isLoopbackAddress() || a.isAnyLocalAddress() || a.isMulticastAddress()) {
                continue;
            }
            if (best == null || rank(a) < rank(best)) {
                best = a;
            }
        }
        return best != null ? best : InetAddress.getLoopbackAddress();
    }

    /** Lower is better: global IPv4, link-local IPv4, global IPv6, link-local IPv6. */
    private static int rank(InetAddress a) {
        return (a instanceof Inet4Address ? 0 : 2) + (a.isLinkLocalAddress() ? 1 : 0);
    }

    private static List<InetAddress> interfaceAddresses() {
        List<InetAddress> out = new ArrayList<>();
        try {
            for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                if (nic.isUp() && !nic.isLoopback()) {
                    out.addAll(Collections.list(nic.getInetAddresses()));
                }
            }
        } catch (SocketException e) {
            // No interface list: the host name's address or loopback it is.
        }
        return out;
    }
}
