package io.dask4j.comm;

/**
 * Progress that a waiting thread can make itself. A transport that moves messages only while some thread calls
 * into it (MPI: nothing arrives until someone calls {@code MPI_Test} or {@code MPI_Improbe}) has its own thread for
 * that, which sleeps when idle and costs a wake-up (tens of microseconds on a small machine) for each message
 * that finds it asleep. A thread that is awake anyway because it expects an answer soon (a client waiting for a
 * result, an idle task thread waiting for its next task) can instead drive the transport between its checks, as
 * Aeron's {@code AgentInvoker} lets an application thread run an agent's duty cycle: the answer is then received,
 * and its handlers run, on the waiting thread itself, with no hand-off at all.
 *
 * <p>Usage: {@code try (CallerProgress.Driving d = progress.begin()) { while (!ready) { d.drive(); ... } }}. While
 * any thread drives, the transport's own thread stays out of the way (one busy thread per waiting process); when
 * the last stops, it takes over. {@link #NONE} is for transports that deliver on their own (inproc, tcp).
 *
 * <p>Any thread may call {@link #begin}; a {@link Driving} belongs to the thread that began it. A virtual thread
 * never drives (a native call would hold its carrier): its {@code drive()} does nothing.
 */
public interface CallerProgress {

    /** Progress that needs no caller: {@code drive()} does nothing. */
    CallerProgress NONE = () -> Driving.IDLE;

    /** Starts driving on the calling thread; close the result when done waiting. */
    Driving begin();

    /** One thread's spell of driving the transport. */
    interface Driving extends AutoCloseable {

        /** Drives nothing. */
        Driving IDLE = new Driving() {
            @Override
            public boolean drive() {
                return false;
            }

            @Override
            public void close() {
            }
        };

        /** One pass of the transport's progress, if no other thread is making one right now; true if it found work. */
        boolean drive();

        /** Stops driving: the transport's own thread takes over. */
        @Override
        void close();
    }
}
