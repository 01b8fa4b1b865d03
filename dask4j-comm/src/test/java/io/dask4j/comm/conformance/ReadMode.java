package io.dask4j.comm.conformance;

/** How the conformance suite reads its comms: every behaviour runs once each way. */
public enum ReadMode {
    /** {@link io.dask4j.comm.Comm#read()} on the test's thread. */
    BLOCKING,
    /** {@link io.dask4j.comm.Comm#receive} with a {@link PushedMessages} handler; reads take from its queue. */
    PUSH
}
