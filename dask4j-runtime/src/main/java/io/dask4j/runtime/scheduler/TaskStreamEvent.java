package io.dask4j.runtime.scheduler;

/**
 * One finished task for the dashboard's task stream: which worker ran it and when (the worker's clock,
 * microseconds since the epoch). Immutable.
 *
 * @param seq increasing number of the event in the scheduler's stream (a page asks for events after one)
 */
public record TaskStreamEvent(long seq, String worker, String group, String key, long startMicros, long stopMicros) {
}
