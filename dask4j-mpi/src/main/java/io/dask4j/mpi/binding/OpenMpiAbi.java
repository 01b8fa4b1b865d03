package io.dask4j.mpi.binding;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;

/**
 * Open MPI's ABI (and Spectrum MPI's): handles are pointers to exported {@code ompi_*} globals, the
 * status is 24 bytes with SOURCE, TAG, ERROR first, MPI_ANY_SOURCE is -1 and MPI_PROC_NULL is -2.
 */
public record OpenMpiAbi(long commWorld, long byteType, long requestNull, long messageNoProc, long errorsReturn)
        implements MpiAbi {

    /** Reads the addresses of the predefined handles from the loaded library. */
    static OpenMpiAbi from(SymbolLookup symbols) {
        return new OpenMpiAbi(address(symbols, "ompi_mpi_comm_world"), address(symbols, "ompi_mpi_byte"),
                address(symbols, "ompi_request_null"), address(symbols, "ompi_message_no_proc"),
                address(symbols, "ompi_mpi_errors_return"));
    }

    private static long address(SymbolLookup symbols, String name) {
        return symbols.find(name).orElseThrow(() -> new MpiException("Open MPI library lacks symbol " + name)).address();
    }

    @Override
    public boolean needsPeerSendOrder() {
        return true;
    }

    @Override
    public String family() {
        return "openmpi";
    }

    @Override
    public MemoryLayout handleLayout() {
        return ValueLayout.ADDRESS;
    }

    @Override
    public long handleBytes() {
        return 8;
    }

    @Override
    public int anySource() {
        return -1;
    }

    @Override
    public int anyTag() {
        return -1;
    }

    @Override
    public int procNull() {
        return -2;
    }

    @Override
    public int undefined() {
        return -32766;
    }

    @Override
    public MemorySegment statusIgnore() {
        return MemorySegment.NULL;
    }

    @Override
    public long statusBytes() {
        return 24;
    }

    @Override
    public long statusSourceOffset() {
        return 0;
    }

    @Override
    public long statusTagOffset() {
        return 4;
    }

    @Override
    public long statusErrorOffset() {
        return 8;
    }

    @Override
    public long readHandle(MemorySegment array, long index) {
        return array.getAtIndex(ValueLayout.JAVA_LONG, index);
    }

    @Override
    public void writeHandle(MemorySegment array, long index, long handle) {
        array.setAtIndex(ValueLayout.JAVA_LONG, index, handle);
    }
}
