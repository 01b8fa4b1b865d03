package io.dask4j.mpi.it;

import io.dask4j.comm.Address;
import io.dask4j.comm.Comm;
import io.dask4j.comm.CommClosedException;
import io.dask4j.comm.Comms;
import io.dask4j.comm.Message;
import io.dask4j.mpi.MpiRuntime;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static io.dask4j.mpi.it.RankJob.check;

/**
 * Two ranks. A thread of rank 0 blocked in {@code read()} on a comm from rank 1 is interrupted: it must get a
 * {@link CommClosedException} promptly with its interrupt flag still set (before, its parks returned at once
 * and it spun a core forever). The comm stays usable: the next read gets rank 1's message. Prints {@code
 * RANK r OK} or a failure.
 */
public final class InterruptMain {

    private InterruptMain() {
    }

    public static void main(String[] args) throws Exception {
        MpiRuntime mpi = MpiRuntime.start();
        int rank = mpi.rank();
        RankJob.listening(mpi, (options, accepted) -> {
            if (rank == 0) {
                Comm comm = accepted.poll(20, TimeUnit.SECONDS);
                check(comm != null, "rank 1's comm was accepted");
                interruptedReader(mpi, comm);
                mpi.barrier(); // rank 1 writes now
                check(comm.read().op().equals("after"), "the comm still reads after the interrupt");
                comm.close();
            } else {
                Comm comm = Comms.connect(Address.mpi(0), options);
                mpi.barrier(Duration.ofSeconds(60));
                comm.write(Message.of("after"));
                comm.close();
            }
            mpi.barrier();
        });
    }

    private static void interruptedReader(MpiRuntime mpi, Comm comm) throws Exception {
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        AtomicReference<Boolean> flagSet = new AtomicReference<>();
        Thread reader = Thread.ofPlatform().daemon().start(() -> {
            try {
                comm.read();
            } catch (Throwable t) {
                thrown.set(t);
                flagSet.set(Thread.currentThread().isInterrupted());
            }
        });
        // Past the caller's spin: the reader is parked, waiting for the engine.
        Progress.until(() -> Progress.parkedOn(reader, mpi.engine()), Duration.ofSeconds(60), "the reader parked on the engine");
        reader.interrupt();
        reader.join(30_000); // a reader that ignores the interrupt never returns (rank 1 writes only later)
        check(!reader.isAlive(), "the interrupted reader returned");
        check(thrown.get() instanceof CommClosedException, "the interrupted read threw CommClosedException: " + thrown.get());
        check(Boolean.TRUE.equals(flagSet.get()), "the reader's interrupt flag is still set");
        System.out.println("READ INTERRUPTED " + thrown.get().getMessage());
    }
}
