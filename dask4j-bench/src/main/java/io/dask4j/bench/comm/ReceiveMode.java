package io.dask4j.bench.comm;

import io.dask4j.comm.Comm;
import io.dask4j.comm.CommException;
import io.dask4j.comm.Message;
import io.dask4j.comm.MessageHandler;
import io.dask4j.comm.ReadLoopReceiver;
import java.util.Locale;

/**
 * How {@code bench comm} reads a comm, on both ends of the ping-pong: the blocking {@link Comm#read()} on a
 * platform thread, the transport's own push mode ({@link Comm#receive}), or push through the SPI's default
 * {@link ReadLoopReceiver} on a virtual thread. The server learns the client's mode from the client's identity.
 */
enum ReceiveMode {
    READ, PUSH, PUSH_VIRTUAL;

    private static final String IDENTITY_PREFIX = "bench-client-";

    /** The name on the command line and in the output: read, push, push-virtual. */
    String label() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    static ReceiveMode parse(String label) {
        for (ReceiveMode mode : values()) {
            if (mode.label().equals(label.strip().toLowerCase(Locale.ROOT))) {
                return mode;
            }
        }
        throw new IllegalArgumentException("unknown receive mode '" + label + "': expected read, push or push-virtual");
    }

    /** The identity a client in this mode gives in the handshake. */
    String clientIdentity() {
        return IDENTITY_PREFIX + label();
    }

    /** The mode of the client whose handshake identity is {@code identity}; read for anything else. */
    static ReceiveMode ofClient(String identity) {
        return identity.startsWith(IDENTITY_PREFIX) ? parse(identity.substring(IDENTITY_PREFIX.length())) : READ;
    }

    /** Starts delivering {@code comm}'s messages to {@code handler} in this push mode. */
    void receive(Comm comm, MessageHandler handler) {
        switch (this) {
            case READ -> throw new IllegalStateException("read mode has no handler");
            case PUSH -> comm.receive(handler);
            case PUSH_VIRTUAL -> ReadLoopReceiver.start(comm, handler);
        }
    }

    /** The echo end: writes every message back, then releases it, until the comm closes. */
    void echo(Comm comm) {
        if (this == READ) {
            Thread.ofPlatform().daemon().name("bench-echo").start(() -> CommEchoServer.echo(comm));
            return;
        }
        receive(comm, new MessageHandler() {
            @Override
            public void onMessage(Message m) {
                comm.write(m);
                m.release();
            }

            @Override
            public void onClose(CommException cause) {
                comm.abort();
            }
        });
    }
}
