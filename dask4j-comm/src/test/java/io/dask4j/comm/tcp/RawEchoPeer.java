package io.dask4j.comm.tcp;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;

/**
 * A peer for {@link TcpFrozenPeerTest}, run in its own network namespace: accepts one connection on the address
 * and port of its arguments, prints "listening" once it can be dialled, and sends back every byte it reads, so
 * a comm's message comes back to it whole. Plain {@code java.net} and no dependencies, so that it starts from the
 * test classes directory alone.
 */
public final class RawEchoPeer {
    private RawEchoPeer() {
    }

    public static void main(String[] args) throws Exception {
        try (ServerSocket server = new ServerSocket(Integer.parseInt(args[1]), 1, InetAddress.getByName(args[0]))) {
            System.out.println("listening");
            System.out.flush();
            try (Socket socket = server.accept(); InputStream in = socket.getInputStream();
                 OutputStream out = socket.getOutputStream()) {
                byte[] buffer = new byte[65536];
                for (int n; (n = in.read(buffer)) > 0; ) {
                    out.write(buffer, 0, n);
                }
            }
        }
    }
}
