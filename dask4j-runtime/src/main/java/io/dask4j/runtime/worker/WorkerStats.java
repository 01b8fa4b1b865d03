package io.dask4j.runtime.worker;

/**
 * Counters of one worker at a moment: tasks run, and data moved to and from peers. Immutable.
 *
 * @param transfersIn get-data requests this worker made to peers
 * @param keysFetched values it received from peers
 * @param transfersOut get-data requests it answered (from peers or clients)
 * @param functionsHeld serialized task functions it keeps (until the scheduler says no task needs them)
 */
public record WorkerStats(long tasksRun, long tasksFailed, long transfersIn, long keysFetched, long bytesFetched,
                          long transfersOut, long keysServed, long memoryBytes, long spilledBytes, long spillCount,
                          long unspillCount, int functionsHeld) {
}
