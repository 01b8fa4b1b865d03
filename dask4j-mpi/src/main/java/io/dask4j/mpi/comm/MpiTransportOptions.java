package io.dask4j.mpi.comm;

import io.dask4j.comm.config.ConfigSource;
import io.dask4j.comm.config.Setting;
import io.dask4j.comm.config.Settings;
import io.dask4j.mpi.binding.MpiAbi;

/**
 * Every limit of the mpi backend's transport, passed to {@link MpiTransport}'s constructor. Immutable.
 *
 * @param readWindow        the receive window of a comm in messages: how many its peer may have sent and its reader
 *                          not yet credited back ({@link CreditWindow}); at least two credit batches
 * @param inboxBytes        the receive window of a comm in bytes (frames plus 256 per message); one message larger
 *                          than the whole window still passes, alone
 * @param peerSendWindow    sends to one rank that may be posted while an earlier one to it is incomplete
 *                          ({@link PeerSendOrder}); 0 turns the guard off (MPIs without Open MPI's 16-bit window)
 * @param chunkBytes        the largest MPI message a frame is sent in (MPI counts are {@code int}s); both ends must
 *                          agree, so only tests change it
 * @param heapFrameBytes    heap-origin frames up to this size are received into a Java array of their kind
 * @param pooledFrameBytes  native-origin frames of at least this size are received into pooled native memory
 * @param pooledBudgetBytes above this many bytes out in unreleased pooled frames, native frames arrive in arrays
 * @param blockingReceives  receive large frames with a blocking MPI_Mrecv once matched, not MPI_Imrecv
 * @param poolRetainBytes   native buffer memory the pool keeps for reuse
 * @param poolGcTriggerBytes native buffer memory lent out past which the pool asks the GC for lost buffers
 */
public record MpiTransportOptions(int readWindow, long inboxBytes, int peerSendWindow, long chunkBytes, long heapFrameBytes, long pooledFrameBytes,
                                  long pooledBudgetBytes, boolean blockingReceives, long poolRetainBytes,
                                  long poolGcTriggerBytes) {

    /** Open MPI's ob1 matches wrong once 65536 later sends to a rank overtake an incomplete one: half of that. */
    public static final int OPEN_MPI_PEER_SEND_WINDOW = 32768;
    public static final long MAX_CHUNK_BYTES = 1L << 30;

    public MpiTransportOptions {
        if (readWindow < 2 * MpiComm.CREDIT_BATCH || inboxBytes < CreditWindow.INITIAL_BYTES || peerSendWindow < 0 || chunkBytes <= 0 || chunkBytes > MAX_CHUNK_BYTES || heapFrameBytes < 0
                || pooledFrameBytes < 0 || pooledBudgetBytes < 0 || poolRetainBytes < 0 || poolGcTriggerBytes < 0) {
            throw new IllegalArgumentException("bad mpi transport options: " + MpiTransportOptions.this.toString()
                    + " (readWindow must be at least " + 2 * MpiComm.CREDIT_BATCH + ", inboxBytes at least "
                    + CreditWindow.INITIAL_BYTES + ", chunkBytes 1.." + MAX_CHUNK_BYTES + ")");
        }
    }

    /** The built-in limits, with the ordering guard on (as Open MPI needs). */
    public static MpiTransportOptions defaults() {
        return new MpiTransportOptions(16384, 256L << 20, OPEN_MPI_PEER_SEND_WINDOW,
                MAX_CHUNK_BYTES, 256L << 20, 1L << 20, 1024L << 20, false, 512L << 20, 1024L << 20);
    }

    /**
     * The built-in limits overridden by the {@code dask4j.mpi.*} {@link Settings} of {@code source}, with the ordering
     * guard on only where {@code abi} needs it ({@link MpiAbi#needsPeerSendOrder}).
     */
    public static MpiTransportOptions fromSettings(MpiAbi abi, ConfigSource source) {
        int peerWindow = abi.needsPeerSendOrder() ? OPEN_MPI_PEER_SEND_WINDOW : 0;
        return fromSettings(source).withPeerSendWindow(Settings.PEER_SEND_WINDOW.intValue(source, peerWindow));
    }

    /**
     * The built-in limits overridden by the {@code dask4j.mpi.*} {@link Settings} of {@code source}, the peer send
     * window as {@code dask4j.mpi.peerSendWindow} sets it, else Open MPI's (before the library, and so whether it needs
     * one, is known: {@code io.dask4j.mpi.MpiOptions} settles it once MPI is loaded).
     */
    public static MpiTransportOptions fromSettings(ConfigSource source) {
        MpiTransportOptions d = defaults();
        return new MpiTransportOptions(
                Math.max(2 * MpiComm.CREDIT_BATCH, Settings.READ_WINDOW.intValue(source, d.readWindow)),
                mib(Settings.INBOX_MIB, source, d.inboxBytes),
                Settings.PEER_SEND_WINDOW.intValue(source, d.peerSendWindow), d.chunkBytes,
                Settings.HEAP_FRAME_BYTES.longValue(source, d.heapFrameBytes),
                Settings.POOLED_FRAME_BYTES.longValue(source, d.pooledFrameBytes),
                mib(Settings.POOLED_FRAME_BUDGET_MIB, source, d.pooledBudgetBytes),
                Settings.BLOCKING_RECEIVES.booleanValue(source, false),
                mib(Settings.POOL_RETAIN_MIB, source, d.poolRetainBytes),
                mib(Settings.POOL_GC_TRIGGER_MIB, source, d.poolGcTriggerBytes));
    }

    private static long mib(Setting setting, ConfigSource source, long defaultBytes) {
        return setting.longValue(source, defaultBytes >> 20) << 20;
    }

    public MpiTransportOptions withReadWindow(int messages) {
        return new MpiTransportOptions(messages, inboxBytes, peerSendWindow, chunkBytes, heapFrameBytes, pooledFrameBytes,
                pooledBudgetBytes, blockingReceives, poolRetainBytes, poolGcTriggerBytes);
    }

    public MpiTransportOptions withInboxBytes(long bytes) {
        return new MpiTransportOptions(readWindow, bytes, peerSendWindow, chunkBytes, heapFrameBytes, pooledFrameBytes,
                pooledBudgetBytes, blockingReceives, poolRetainBytes, poolGcTriggerBytes);
    }

    public MpiTransportOptions withPeerSendWindow(int sends) {
        return new MpiTransportOptions(readWindow, inboxBytes, sends, chunkBytes, heapFrameBytes, pooledFrameBytes,
                pooledBudgetBytes, blockingReceives, poolRetainBytes, poolGcTriggerBytes);
    }

    public MpiTransportOptions withChunkBytes(long bytes) {
        return new MpiTransportOptions(readWindow, inboxBytes, peerSendWindow, bytes, heapFrameBytes, pooledFrameBytes,
                pooledBudgetBytes, blockingReceives, poolRetainBytes, poolGcTriggerBytes);
    }
}
