package io.dask4j.comm.conformance;

import io.dask4j.comm.Address;

/** The conformance suite over {@code inproc://}. */
class InprocConformanceTest extends CommConformanceSuite {

    @Override
    protected Address listenAddress() {
        return Address.inproc("conformance-*");
    }

    @Override
    protected Address deadAddress() {
        return Address.inproc("nobody-listens-here");
    }
}
