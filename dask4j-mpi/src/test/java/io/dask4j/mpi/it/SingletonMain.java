package io.dask4j.mpi.it;

import io.dask4j.comm.Address;
import io.dask4j.comm.Comm;
import io.dask4j.comm.CommOptions;
import io.dask4j.comm.Comms;
import io.dask4j.comm.Listener;
import io.dask4j.comm.Message;
import io.dask4j.mpi.MpiRuntime;

import java.util.Map;

/**
 * Started without mpirun (or under a launcher of another MPI, to see the mismatch error): MPI starts as a
 * singleton of one rank, and the rank talks to itself through the mpi backend. Prints {@code SINGLETON
 * rank/size OK}; on failure prints {@code ERROR <message>} and exits 3.
 */
public final class SingletonMain {

    private SingletonMain() {
    }

    public static void main(String[] args) {
        MpiRuntime mpi;
        try {
            mpi = MpiRuntime.start();
        } catch (RuntimeException e) {
            System.out.println("ERROR " + e.getMessage());
            System.out.flush();
            Runtime.getRuntime().halt(3);
            return;
        }
        CommOptions options = CommOptions.fromEnvironment(Map.of());
        Listener listener = Comms.listen(Address.mpi(mpi.rank()), options, comm -> {
            comm.write(comm.read());
            comm.close();
        });
        Comm comm = Comms.connect(Address.mpi(mpi.rank()), options);
        comm.write(Message.of("self"));
        String op = comm.read().op();
        comm.close();
        listener.stop();
        System.out.println("SINGLETON " + mpi.rank() + "/" + mpi.size() + " " + op + " OK "
                + mpi.mpi().library().name());
        // Open MPI's idle-yield switch is found (libopen-pal exports it); other MPIs have none.
        System.out.println("IDLE-YIELD-SWITCH " + mpi.mpi().openMpiIdleYield(false));
        mpi.close();
    }
}
