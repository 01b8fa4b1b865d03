package io.dask4j.mpi.it;

import io.dask4j.comm.Address;
import io.dask4j.comm.Comm;
import io.dask4j.comm.CommOptions;
import io.dask4j.comm.Comms;
import io.dask4j.comm.Listener;
import io.dask4j.comm.Message;
import io.dask4j.mpi.MpiRuntime;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A singleton rank whose progress engine meets an Error (as an OutOfMemoryError allocating a received frame
 * would be): the engine must fail loudly, and a reader waiting on a comm must get an exception, not wait
 * forever. Prints {@code ENGINE FAILED <failure>} and {@code READ THREW <exception>}, or {@code READ HUNG}.
 */
public final class EngineFailureMain {

    private EngineFailureMain() {
    }

    public static void main(String[] args) throws Exception {
        MpiRuntime mpi = MpiRuntime.start();
        CommOptions options = CommOptions.fromEnvironment(Map.of());
        CountDownLatch accepted = new CountDownLatch(1);
        Listener listener = Comms.listen(Address.mpi(mpi.rank()), options, comm -> {
            comm.write(comm.read());
            accepted.countDown();
        });
        Comm comm = Comms.connect(Address.mpi(mpi.rank()), options);
        comm.write(Message.of("echo"));
        System.out.println("ECHO " + comm.read().op());
        accepted.await(30, TimeUnit.SECONDS);

        Thread reader = Thread.ofPlatform().start(() -> {
            try {
                Message m = comm.read();
                System.out.println("READ RETURNED " + m.op());
            } catch (RuntimeException e) {
                System.out.println("READ THREW " + e.getClass().getSimpleName() + ": " + e.getMessage());
            }
        });
        // The reader waits on the engine (parked, past its spin) when the engine fails.
        Progress.until(() -> Progress.parkedOn(reader, mpi.engine()), Duration.ofSeconds(60), "the reader parked on the engine");
        mpi.engine().submit(engine -> {
            throw new OutOfMemoryError("simulated: no heap for a received frame");
        });
        reader.join(TimeUnit.SECONDS.toMillis(20));
        if (reader.isAlive()) {
            System.out.println("READ HUNG");
        }
        System.out.println("ENGINE FAILED " + mpi.engine().failure());
        System.out.flush();
        listener.stop();
        Runtime.getRuntime().halt(0); // MPI state is unknown after the failure: do not finalize
    }
}
