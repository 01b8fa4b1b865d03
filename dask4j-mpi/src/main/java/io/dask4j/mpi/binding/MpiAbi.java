package io.dask4j.mpi.binding;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;

/**
 * The facts that differ between MPI ABI families: how handles are passed, the values of predefined
 * handles and constants, and the layout of {@code MPI_Status}. The rest of the binding is written once
 * against this interface. Handles are carried in Java as {@code long}: a pointer for Open MPI, a
 * sign-extended {@code int} for MPICH.
 *
 * <p>Immutable and thread-safe.
 */
public sealed interface MpiAbi permits OpenMpiAbi, MpichAbi {

    /**
     * Whether sends to one rank must be kept within a window while one is incomplete ({@code PeerSendOrder} of the
     * mpi backend): Open MPI 4.1's ob1 matches the wrong message once 65536 later ones to a rank overtake one it
     * held back (16-bit sequence numbers); MPICH has no such limit.
     */
    default boolean needsPeerSendOrder() {
        return false;
    }

    /** A short name of the family, {@code "openmpi"} or {@code "mpich"}. */
    String family();

    /** The C layout of a handle argument: ADDRESS for Open MPI, JAVA_INT for MPICH. */
    MemoryLayout handleLayout();

    /** Bytes of one handle in memory (request arrays, out-parameters). */
    long handleBytes();

    long commWorld();

    long byteType();

    long requestNull();

    long messageNoProc();

    long errorsReturn();

    int anySource();

    int anyTag();

    int procNull();

    int undefined();

    /** The pointer passed for MPI_STATUS_IGNORE and MPI_STATUSES_IGNORE. */
    MemorySegment statusIgnore();

    long statusBytes();

    long statusSourceOffset();

    long statusTagOffset();

    long statusErrorOffset();

    /** Reads the handle at {@code index} of an array of handles. */
    long readHandle(MemorySegment array, long index);

    /** Writes the handle at {@code index} of an array of handles. */
    void writeHandle(MemorySegment array, long index, long handle);

    default int statusSource(MemorySegment status) {
        return status.get(java.lang.foreign.ValueLayout.JAVA_INT, statusSourceOffset());
    }

    default int statusTag(MemorySegment status) {
        return status.get(java.lang.foreign.ValueLayout.JAVA_INT, statusTagOffset());
    }

    default int statusError(MemorySegment status) {
        return status.get(java.lang.foreign.ValueLayout.JAVA_INT, statusErrorOffset());
    }
}
