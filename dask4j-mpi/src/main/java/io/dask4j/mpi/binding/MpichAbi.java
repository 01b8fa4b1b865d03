package io.dask4j.mpi.binding;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * MPICH's ABI, shared by Intel MPI, MVAPICH and Cray MPICH: handles are {@code int}s with fixed values,
 * the status is 20 bytes with SOURCE at 8, MPI_ANY_SOURCE is -2 and MPI_PROC_NULL is -1, and
 * MPI_STATUS_IGNORE is the pointer 1. Values from MPICH 4.0's {@code mpi.h}.
 */
public record MpichAbi() implements MpiAbi {

    @Override
    public String family() {
        return "mpich";
    }

    @Override
    public MemoryLayout handleLayout() {
        return ValueLayout.JAVA_INT;
    }

    @Override
    public long handleBytes() {
        return 4;
    }

    @Override
    public long commWorld() {
        return 0x44000000;
    }

    @Override
    public long byteType() {
        return 0x4c00010d;
    }

    @Override
    public long requestNull() {
        return 0x2c000000;
    }

    @Override
    public long messageNoProc() {
        return 0x6c000000;
    }

    @Override
    public long errorsReturn() {
        return 0x54000001;
    }

    @Override
    public int anySource() {
        return -2;
    }

    @Override
    public int anyTag() {
        return -1;
    }

    @Override
    public int procNull() {
        return -1;
    }

    @Override
    public int undefined() {
        return -32766;
    }

    @Override
    public MemorySegment statusIgnore() {
        return MemorySegment.ofAddress(1);
    }

    @Override
    public long statusBytes() {
        return 20;
    }

    @Override
    public long statusSourceOffset() {
        return 8;
    }

    @Override
    public long statusTagOffset() {
        return 12;
    }

    @Override
    public long statusErrorOffset() {
        return 16;
    }

    @Override
    public long readHandle(MemorySegment array, long index) {
        return array.getAtIndex(ValueLayout.JAVA_INT, index);
    }

    @Override
    public void writeHandle(MemorySegment array, long index, long handle) {
        array.setAtIndex(ValueLayout.JAVA_INT, index, (int) handle);
    }
}
