package io.dask4j.runtime.scheduler;

import io.dask4j.comm.Address;
import io.dask4j.comm.Comm;
import io.dask4j.comm.CommClosedException;
import io.dask4j.comm.CommOptions;
import io.dask4j.comm.Comms;
import io.dask4j.comm.Message;
import io.dask4j.runtime.protocol.Batches;
import io.dask4j.runtime.protocol.Ops;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Malformed messages to a running scheduler get an error reply or a dropped connection; it keeps serving. */
@Timeout(20)
class BadMessagesTest {
    private Scheduler scheduler;

    @BeforeEach
    void start() {
        scheduler = Scheduler.start(SchedulerConfig.listeningOn(Address.tcp("127.0.0.1", 0)));
    }

    @AfterEach
    void stop() {
        scheduler.close();
    }

    /** The scheduler listens on tcp without a given secret, so it generated one: a peer needs it to connect. */
    private Comm connect() {
        return Comms.connect(scheduler.address(), CommOptions.defaults().withSecret(scheduler.config().options().secret()));
    }

    private Comm registeredClient() {
        Comm c = connect();
        c.write(Message.of(Ops.REGISTER_CLIENT));
        assertThat(c.read().op()).isEqualTo(Ops.REGISTERED);
        return c;
    }

    private static Message nextReply(Comm c) {
        return Batches.unpack(c.read()).getFirst();
    }

    @Test
    void anUnknownOpGetsAnErrorReplyAndTheConnectionStaysUsable() {
        try (Comm c = registeredClient()) {
            c.write(Message.of("frobnicate", Map.of("x", 1)));
            Message reply = nextReply(c);
            assertThat(reply.op()).isEqualTo(Ops.ERROR);
            assertThat(reply.getString("message")).contains("frobnicate");
            c.write(Message.of(Ops.GET_WORKERS, Map.of("req", 7)));
            assertThat(nextReply(c).op()).isEqualTo(Ops.WORKERS);
        }
    }

    @Test
    void aMessageMissingFieldsGetsAnErrorReply() {
        try (Comm c = registeredClient()) {
            c.write(Message.of(Ops.UPDATE_GRAPH, Map.of("keys", List.of("x"))));
            Message reply = nextReply(c);
            assertThat(reply.op()).isEqualTo(Ops.ERROR);
            assertThat(reply.getString("message")).contains("lacks required field");
            c.write(Message.of(Ops.RELEASE_KEYS, Map.of("keys", "not-a-list")));
            assertThat(nextReply(c).op()).isEqualTo(Ops.ERROR);
        }
    }

    @Test
    void aBatchWithGarbageItemsGetsAnErrorReply() {
        try (Comm c = registeredClient()) {
            c.write(Message.of(Batches.OP, Map.of("msgs", List.of("no map here"))));
            assertThat(nextReply(c).op()).isEqualTo(Ops.ERROR);
        }
    }

    @Test
    void aPeerThatDoesNotRegisterIsToldAndDropped() {
        try (Comm c = connect()) {
            c.write(Message.of(Ops.UPDATE_GRAPH));
            assertThat(c.read().op()).isEqualTo(Ops.ERROR);
            assertThatThrownBy(c::read).isInstanceOf(CommClosedException.class);
        }
    }

    @Test
    void aWorkerWithABadRegistrationIsRefused() {
        try (Comm c = connect()) {
            c.write(Message.of(Ops.REGISTER_WORKER, Map.of("nthreads", "many")));
            assertThat(nextReply(c).op()).isEqualTo(Ops.ERROR);
        }
        assertThat(scheduler.snapshot().workers()).isEmpty();
    }

    @Test
    void theSchedulerKeepsServingOtherClientsAfterBadMessages() {
        try (Comm bad = registeredClient(); Comm good = registeredClient()) {
            for (int i = 0; i < 5; i++) {
                bad.write(Message.of("nonsense-" + i));
            }
            good.write(Message.of(Ops.GET_WORKERS, Map.of("req", 1)));
            assertThat(nextReply(good).op()).isEqualTo(Ops.WORKERS);
            assertThat(scheduler.snapshot().clients()).isEqualTo(2);
        }
    }
}
