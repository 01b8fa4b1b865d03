package io.dask4j.bench.comm;

import io.dask4j.comm.Address;
import io.dask4j.comm.Comm;
import io.dask4j.comm.CommClosedException;
import io.dask4j.comm.CommOptions;
import io.dask4j.comm.Comms;
import io.dask4j.comm.Listener;
import io.dask4j.comm.Message;
import java.io.IOException;

/**
 * The far end of {@code bench comm}: listens, and echoes every message back in the client's {@link ReceiveMode}
 * (told by its handshake identity): a read loop on a platform thread per comm (a blocking read on a platform thread
 * wakes up sooner than a virtual thread behind the poller), or from inside a push handler.
 *
 * <p>As a program ({@code main}), it listens on the address given (default {@code tcp://127.0.0.1:0}),
 * prints {@code LISTENING <address>} on stdout, and exits when its stdin closes, so it never outlives
 * the benchmark that started it.
 */
public final class CommEchoServer {

    static final String READY = "LISTENING ";

    private CommEchoServer() {
    }

    /** Starts an echo listener in this process. */
    public static Listener start(Address address, CommOptions options) {
        return Comms.listen(address, options.withIdentity("bench-echo"),
                comm -> ReceiveMode.ofClient(comm.peerIdentity()).echo(comm));
    }

    static void echo(Comm comm) {
        try {
            while (true) {
                Message m = comm.read();
                comm.write(m);
                m.release(); // the write returned: the transport no longer reads the frames
            }
        } catch (CommClosedException closed) {
            comm.abort();
        }
    }

    public static void main(String[] args) throws IOException {
        Address address = Address.parse(args.length > 0 ? args[0] : "tcp://127.0.0.1:0");
        Listener listener = start(address, CommOptions.defaults());
        System.out.println(READY + listener.contactAddress());
        System.out.flush();
        while (System.in.read() >= 0) {
            // wait for the parent to close our stdin (or die)
        }
        listener.stop();
        System.exit(0);
    }
}
