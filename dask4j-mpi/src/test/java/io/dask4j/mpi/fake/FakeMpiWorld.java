package io.dask4j.mpi.fake;

import io.dask4j.mpi.binding.Mpi;
import io.dask4j.mpi.binding.MpiAbi;
import io.dask4j.mpi.binding.OpenMpiAbi;
import io.dask4j.mpi.binding.PointToPoint;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * MPI point-to-point in one JVM: {@link #rank(int)} is the {@link PointToPoint} of one rank, and ranks are
 * whatever threads call them. Messages are copied at {@code MPI_Isend}; a send of at most {@link
 * Options#eagerBytes} completes at once (MPI's eager protocol), a larger one only once the receiver has
 * received it (rendezvous), so the engine's in-flight tracking is exercised as under a real MPI.
 *
 * <p><b>Order.</b> MPI's rule is kept: two messages from one source that both match a probe are matched in
 * the order they were sent. With {@link Options#reorderSeed} set, a probe over several sources picks among
 * the sources' oldest matching messages at random, and a probe for one tag takes that tag's oldest message
 * past older ones of other tags, both of which MPI allows.
 *
 * <p><b>Failures.</b> {@link #failNext} makes the next call of a given name on a given rank return an error
 * code, as a broken MPI would.
 *
 * <p>Every call is synchronized on the world: any thread may call any rank.
 */
public final class FakeMpiWorld {

    /** The communicator handle the fake knows (any other is an error). */
    public static final long COMM = 0x44000000L;
    public static final long BYTE = 0x4c00010dL;
    public static final int ERR_OTHER = 15;
    private static final long REQUEST_NULL = 0;
    private static final long MESSAGE_NO_PROC = 0x6c000000L;
    private static final long COUNT_OFFSET = 16;
    /** Open MPI's layout (8-byte handles, 24-byte status), with handle values that are not addresses. */
    public static final MpiAbi ABI = new OpenMpiAbi(COMM, BYTE, REQUEST_NULL, MESSAGE_NO_PROC, 0x54000001L);

    /** @param eagerBytes sends up to this size complete at once; larger ones once received
     *  @param reorderSeed null for arrival order; otherwise the seed of the allowed reorderings */
    public record Options(long eagerBytes, Long reorderSeed) {
        public static Options defaults() {
            return new Options(64 << 10, null);
        }
    }

    private final Options options;
    private final Random random;
    private final Rank[] ranks;
    private final Map<Long, Request> requests = new HashMap<>();
    private final Map<Long, Sent> matched = new HashMap<>();
    private long nextHandle = 1;
    private long sends;
    private final Map<Integer, Long> sendsByTag = new HashMap<>();

    public FakeMpiWorld(int size, Options options) {
        this.options = options;
        this.random = options.reorderSeed() == null ? null : new Random(options.reorderSeed());
        this.ranks = new Rank[size];
        for (int r = 0; r < size; r++) {
            ranks[r] = new Rank(r);
        }
    }

    public FakeMpiWorld(int size) {
        this(size, Options.defaults());
    }

    public PointToPoint rank(int rank) {
        return ranks[rank];
    }

    /** The next call named {@code call} (e.g. "MPI_Isend", "MPI_Improbe") on {@code rank} returns {@code errorCode}. */
    public synchronized void failNext(int rank, String call, int errorCode) {
        ranks[rank].failures.put(call, errorCode);
    }

    /** Messages sent to {@code rank} that no probe has matched yet. */
    public synchronized int unmatched(int rank) {
        return ranks[rank].queue.size();
    }

    /** The MPI_Isends with {@code tag} of the world so far. */
    public synchronized long sends(int tag) {
        return sendsByTag.getOrDefault(tag, 0L);
    }

    /** Every MPI_Isend of the world so far. */
    public synchronized long sends() {
        return sends;
    }

    private record Sent(int source, int tag, byte[] data, long sendRequest) {
    }

    private static final class Request {
        boolean done;
        int source;
        int tag;
        int count;
        /** A posted receive not matched yet: where its data goes. */
        MemorySegment target;
        int wantSource;
        int wantTag;
    }

    private final class Rank implements PointToPoint {
        private final int rank;
        private final List<Sent> queue = new ArrayList<>();
        private final List<Long> postedReceives = new ArrayList<>();
        private final Map<String, Integer> failures = new HashMap<>();

        Rank(int rank) {
            this.rank = rank;
        }

        private int failure(String call) {
            Integer rc = failures.remove(call);
            return rc == null ? Mpi.SUCCESS : rc;
        }

        @Override
        public MpiAbi abi() {
            return ABI;
        }

        @Override
        public int commSize(long comm) {
            return ranks.length;
        }

        @Override
        public int isend(MemorySegment buf, int count, long datatype, int dest, int tag, long comm, MemorySegment request) {
            synchronized (FakeMpiWorld.this) {
                int rc = failure("MPI_Isend");
                if (rc != Mpi.SUCCESS || comm != COMM || dest < 0 || dest >= ranks.length || count < 0) {
                    return rc != Mpi.SUCCESS ? rc : ERR_OTHER;
                }
                sends++;
                sendsByTag.merge(tag, 1L, Long::sum);
                long handle = newRequest(count <= options.eagerBytes());
                ABI.writeHandle(request, 0, handle);
                Sent sent = new Sent(rank, tag, buf.asSlice(0, count).toArray(ValueLayout.JAVA_BYTE),
                        count <= options.eagerBytes() ? REQUEST_NULL : handle);
                ranks[dest].deliver(sent);
                return Mpi.SUCCESS;
            }
        }

        /** Hands {@code sent} to a posted receive that matches it, or queues it for a probe. World lock held. */
        private void deliver(Sent sent) {
            for (int i = 0; i < postedReceives.size(); i++) {
                Request r = requests.get(postedReceives.get(i));
                if (matches(r.wantSource, r.wantTag, sent)) {
                    postedReceives.remove(i);
                    receiveInto(r.target, r.count, sent, r);
                    return;
                }
            }
            queue.add(sent);
        }

        @Override
        public int irecv(MemorySegment buf, int count, long datatype, int source, int tag, long comm, MemorySegment request) {
            synchronized (FakeMpiWorld.this) {
                int rc = failure("MPI_Irecv");
                if (rc != Mpi.SUCCESS || comm != COMM) {
                    return rc != Mpi.SUCCESS ? rc : ERR_OTHER;
                }
                long handle = newRequest(false);
                ABI.writeHandle(request, 0, handle);
                Request r = requests.get(handle);
                Sent sent = take(source, tag);
                if (sent != null) {
                    receiveInto(buf, count, sent, r);
                } else {
                    r.target = buf;
                    r.count = count;
                    r.wantSource = source;
                    r.wantTag = tag;
                    postedReceives.add(handle);
                }
                return Mpi.SUCCESS;
            }
        }

        @Override
        public int improbe(int source, int tag, long comm, MemorySegment flag, MemorySegment message, MemorySegment status) {
            synchronized (FakeMpiWorld.this) {
                int rc = failure("MPI_Improbe");
                if (rc != Mpi.SUCCESS || comm != COMM) {
                    return rc != Mpi.SUCCESS ? rc : ERR_OTHER;
                }
                Sent sent = take(source, tag);
                if (sent == null) {
                    flag.set(JAVA_INT, 0, 0);
                    return Mpi.SUCCESS;
                }
                long handle = nextHandle++;
                matched.put(handle, sent);
                flag.set(JAVA_INT, 0, 1);
                ABI.writeHandle(message, 0, handle);
                writeStatus(status, sent);
                return Mpi.SUCCESS;
            }
        }

        /**
         * Removes the message a receive for ({@code source}, {@code tag}) matches now: per source the oldest
         * that matches; across sources the first in arrival order, or a random one when reordering.
         */
        private Sent take(int source, int tag) {
            if (random == null) {
                for (int i = 0; i < queue.size(); i++) {
                    if (matches(source, tag, queue.get(i))) {
                        return queue.remove(i); // the first that matches is the oldest of its source
                    }
                }
                return null;
            }
            List<Integer> heads = new ArrayList<>();
            boolean[] seen = new boolean[ranks.length];
            for (int i = 0; i < queue.size(); i++) {
                Sent s = queue.get(i);
                if (!seen[s.source()] && matches(source, tag, s)) {
                    seen[s.source()] = true;
                    heads.add(i);
                }
            }
            if (heads.isEmpty()) {
                return null;
            }
            int pick = random == null ? heads.getFirst() : heads.get(random.nextInt(heads.size()));
            return queue.remove(pick);
        }

        private boolean matches(int source, int tag, Sent s) {
            return (source == ABI.anySource() || source == s.source()) && (tag == ABI.anyTag() || tag == s.tag());
        }

        private void writeStatus(MemorySegment status, Sent sent) {
            if (status.equals(ABI.statusIgnore())) {
                return;
            }
            MemorySegment s = status.reinterpret(ABI.statusBytes());
            s.set(JAVA_INT, ABI.statusSourceOffset(), sent.source());
            s.set(JAVA_INT, ABI.statusTagOffset(), sent.tag());
            s.set(JAVA_INT, ABI.statusErrorOffset(), 0);
            s.set(JAVA_INT, COUNT_OFFSET, sent.data().length);
        }

        /** Copies a matched message into {@code buf} and completes its rendezvous send. World lock held. */
        private int receiveInto(MemorySegment buf, int count, Sent sent, Request receive) {
            if (sent.data().length > count) {
                return ERR_OTHER; // MPI_ERR_TRUNCATE
            }
            MemorySegment.copy(MemorySegment.ofArray(sent.data()), 0, buf, 0, sent.data().length);
            if (sent.sendRequest() != REQUEST_NULL) {
                requests.get(sent.sendRequest()).done = true;
            }
            if (receive != null) {
                receive.done = true;
                receive.source = sent.source();
                receive.tag = sent.tag();
            }
            return Mpi.SUCCESS;
        }

        private int mrecv(String call, MemorySegment buf, int count, MemorySegment message, MemorySegment status,
                          MemorySegment request) {
            synchronized (FakeMpiWorld.this) {
                int rc = failure(call);
                if (rc != Mpi.SUCCESS) {
                    return rc;
                }
                Sent sent = matched.remove(ABI.readHandle(message, 0));
                if (sent == null) {
                    return ERR_OTHER;
                }
                ABI.writeHandle(message, 0, MESSAGE_NO_PROC);
                Request receive = null;
                if (request != null) {
                    long handle = newRequest(false);
                    ABI.writeHandle(request, 0, handle);
                    receive = requests.get(handle);
                } else {
                    writeStatus(status, sent);
                }
                return receiveInto(buf, count, sent, receive);
            }
        }

        @Override
        public int mrecv(MemorySegment buf, int count, long datatype, MemorySegment message, MemorySegment status) {
            return mrecv("MPI_Mrecv", buf, count, message, status, null);
        }

        @Override
        public int mrecvBlocking(MemorySegment buf, int count, long datatype, MemorySegment message, MemorySegment status) {
            return mrecv("MPI_Mrecv", buf, count, message, status, null);
        }

        @Override
        public int mrecvHeap(MemorySegment buf, int count, long datatype, MemorySegment message, MemorySegment status) {
            return mrecv("MPI_Mrecv", buf, count, message, status, null);
        }

        @Override
        public int imrecv(MemorySegment buf, int count, long datatype, MemorySegment message, MemorySegment request) {
            return mrecv("MPI_Imrecv", buf, count, message, ABI.statusIgnore(), request);
        }

        @Override
        public int test(MemorySegment request, MemorySegment flag, MemorySegment status) {
            synchronized (FakeMpiWorld.this) {
                int rc = failure("MPI_Test");
                if (rc != Mpi.SUCCESS) {
                    return rc;
                }
                long handle = ABI.readHandle(request, 0);
                Request r = requests.get(handle);
                boolean done = handle == REQUEST_NULL || (r != null && r.done);
                flag.set(JAVA_INT, 0, done ? 1 : 0);
                if (done && r != null) {
                    requests.remove(handle);
                    ABI.writeHandle(request, 0, REQUEST_NULL);
                }
                return Mpi.SUCCESS;
            }
        }

        @Override
        public int testsome(int incount, MemorySegment handles, MemorySegment outcount, MemorySegment indices,
                            MemorySegment statuses) {
            synchronized (FakeMpiWorld.this) {
                int rc = failure("MPI_Testsome");
                if (rc != Mpi.SUCCESS) {
                    return rc;
                }
                int done = 0;
                boolean anyActive = false;
                for (int i = 0; i < incount; i++) {
                    long handle = ABI.readHandle(handles, i);
                    Request r = requests.get(handle);
                    if (r == null) {
                        continue;
                    }
                    anyActive = true;
                    if (r.done) {
                        requests.remove(handle);
                        ABI.writeHandle(handles, i, REQUEST_NULL);
                        indices.setAtIndex(JAVA_INT, done++, i);
                    }
                }
                outcount.set(JAVA_INT, 0, anyActive ? done : ABI.undefined());
                return Mpi.SUCCESS;
            }
        }

        @Override
        public int cancel(MemorySegment request) {
            synchronized (FakeMpiWorld.this) {
                long handle = ABI.readHandle(request, 0);
                if (postedReceives.remove(handle)) {
                    requests.get(handle).done = true;
                }
                return failure("MPI_Cancel");
            }
        }

        @Override
        public int getCount(MemorySegment status, long datatype, MemorySegment count) {
            count.set(JAVA_INT, 0, status.reinterpret(ABI.statusBytes()).get(JAVA_INT, COUNT_OFFSET));
            return Mpi.SUCCESS;
        }

        @Override
        public String errorString(int errorCode) {
            return "fake MPI error " + errorCode;
        }
    }

    private long newRequest(boolean done) {
        long handle = nextHandle++;
        Request r = new Request();
        r.done = done;
        requests.put(handle, r);
        return handle;
    }
}
