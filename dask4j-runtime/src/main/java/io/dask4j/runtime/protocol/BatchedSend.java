package io.dask4j.runtime.protocol;

import io.dask4j.comm.Comm;
import io.dask4j.comm.CommClosedException;
import io.dask4j.comm.Message;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * Coalesces small messages bound for one comm into {@link Batches batch} messages, written at most
 * once per interval (a few ms) or as soon as {@code maxBatch} messages are waiting. While the stream
 * is sparse (the previous write carried at most two messages) a message goes out at once, so single
 * round trips stay fast; once writes carry more, the stream coalesces, so floods cost few writes.
 *
 * <p>Two ways in. {@link #send} queues a message and wakes the sender thread, which writes: it never
 * blocks on I/O, so any thread may call it, a transport's delivery thread included. {@link #offer} only
 * queues, and {@link #flush} then writes what is queued <em>on the calling thread</em> while the stream is
 * sparse and no other write is under way (no sender-thread hop: the reply to a lone message leaves at once),
 * and otherwise leaves it to the sender thread, which coalesces. A flush may block in the comm's write, so
 * it is for threads that may wait for the peer: an event loop whose peers always read, a task thread, the
 * user's thread; never a delivery thread whose peer may be waiting for it. Writes never overlap and keep the
 * order of {@code send}/{@code offer} calls (and each write takes the {@link #addSource sources} after the
 * queued messages).
 *
 * <p>On a failed write the comm is aborted and the batch dropped, never retried: "we cannot safely retry a
 * write, as we have no idea what (if anything) was actually written" (Dask's batched.py).
 *
 * <p>A peer that stops reading must not make this process hold its messages without end: once {@code maxUnsent}
 * messages wait unsent (default {@value #DEFAULT_MAX_UNSENT}), they are dropped, the comm is aborted and {@code
 * onFailure} gets an {@link UnsentLimitException} naming the peer, as for a failed write. (The comm's own write-stall
 * check ends a peer that takes nothing for {@code deadPeerTimeout}; this bounds what piles up meanwhile.)
 */
public final class BatchedSend implements MessageSink {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(BatchedSend.class);
    private static final int SPARSE_BATCH = 2;
    /** Far above what a live peer leaves waiting (a batch is written every few ms, up to 20,000 messages each). */
    public static final int DEFAULT_MAX_UNSENT = 1 << 20;

    private final Comm comm;
    private final long intervalNs;
    private final int maxBatch;
    private final int maxUnsent;
    /** Set (under the lock) when the buffer overflowed; the writer that sees it fails the comm. */
    private boolean overflowed;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition wake = lock.newCondition();
    private List<Message> buffer = new ArrayList<>();
    private boolean closing;
    /** A write is under way (the sender's or a flush's): the other waits, so that writes keep their order. */
    private boolean writing;
    /** onFailure was called (at most once, by whichever writer failed first). */
    private boolean failureReported;
    private volatile boolean closed;
    /** Time and size of the previous write: written by the writer holding the turn, read under the lock. */
    private long lastWriteNs;
    /** Messages in the previous write: after a tiny one the stream is sparse and latency matters more. */
    private int lastBatchSize;
    private final Thread sender;
    private final Consumer<Throwable> onFailure;
    private final List<ColumnBatch> sources = new java.util.concurrent.CopyOnWriteArrayList<>();
    /**
     * When what {@link #pokeLater} asked for is due (0: nothing lazy waits), and whether anything asked for a
     * prompt write since the last one ({@link #send}, {@link #poke}, a full buffer). Under the lock.
     */
    private long lazyDeadline;
    private boolean urgent;
    /** The sender is in a wait that ends by {@link #lazyDeadline}. Under the lock. */
    private boolean lazyTimer;

    public BatchedSend(Comm comm, long intervalNs, int maxBatch, Consumer<Throwable> onFailure) {
        this(comm, intervalNs, maxBatch, DEFAULT_MAX_UNSENT, onFailure);
    }

    /** With at most {@code maxUnsent} messages waiting unsent before the peer counts as unresponsive. */
    public BatchedSend(Comm comm, long intervalNs, int maxBatch, int maxUnsent, Consumer<Throwable> onFailure) {
        if (maxUnsent < maxBatch) {
            throw new IllegalArgumentException("maxUnsent (" + maxUnsent + ") must be at least maxBatch (" + maxBatch + ")");
        }
        this.comm = comm;
        this.intervalNs = intervalNs;
        this.maxBatch = maxBatch;
        this.maxUnsent = maxUnsent;
        this.onFailure = onFailure;
        this.lastWriteNs = System.nanoTime() - intervalNs;
        this.sender = Thread.ofVirtual().name("batched-send " + comm.peerAddress()).start(this::run);
    }

    public static BatchedSend of(Comm comm, Consumer<Throwable> onFailure) {
        return new BatchedSend(comm, TimeUnit.MILLISECONDS.toNanos(2), 20_000, onFailure);
    }

    @Override
    public void send(Message message) {
        enqueue(message, true);
    }

    /** Queues {@code message} without waking the sender: the caller {@link #flush}es (or {@link #poke}s) after. */
    public void offer(Message message) {
        enqueue(message, false);
    }

    private void enqueue(Message message, boolean wakeSender) {
        lock.lock();
        try {
            if (closing) {
                return;
            }
            if (buffer.size() < maxUnsent) {
                buffer.add(message);
                if ((wakeSender && buffer.size() == 1) || buffer.size() >= maxBatch) {
                    urgent = true;
                    wake.signalAll();
                }
                return;
            }
            // The peer took nothing while this many piled up: drop them now (memory), and fail the comm below.
            overflowed = true;
            closing = true;
            buffer = new ArrayList<>();
            wake.signalAll();
        } finally {
            lock.unlock();
        }
        comm.abort();   // unblocks the writer, which then reports the overflow (see failed)
    }

    /**
     * Writes what is queued (and the sources' rows) now, on this thread, if the stream is sparse (the previous
     * write carried at most two messages, or was an interval ago) and no write is under way; otherwise wakes
     * the sender, which coalesces. See the class comment for who may call it.
     */
    public void flush() {
        List<Message> batch;
        lock.lock();
        try {
            if (writing || closing || !pending()) {
                if (!writing && pending()) {
                    wake.signalAll();
                }
                return;
            }
            if (lastBatchSize > SPARSE_BATCH && System.nanoTime() - lastWriteNs < intervalNs) {
                wake.signalAll();
                return;
            }
            writing = true;
            batch = buffer;
            buffer = new ArrayList<>(Math.max(16, batch.size()));
        } finally {
            lock.unlock();
        }
        try {
            write(batch);
        } catch (RuntimeException e) {
            failed(e);
        } finally {
            lock.lock();
            try {
                writing = false;
                if (pending()) {
                    wake.signalAll();
                }
            } finally {
                lock.unlock();
            }
        }
    }

    /**
     * Also drains {@code source} on every write (after the queued messages). Whoever adds the first
     * row to an empty source calls {@link #poke()}.
     */
    public void addSource(ColumnBatch source) {
        sources.add(source);
    }

    /** Wakes the sender because a source has rows. */
    public void poke() {
        lock.lock();
        try {
            urgent = true;
            wake.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * A source has rows that may wait up to one interval (a client's released keys): the sender writes them then
     * unless a write takes them first, as the next message's write does. It is woken at most once per interval
     * for them, not once per row: a loop of submit, result and release would otherwise wake it every round, and
     * on a small machine that wake-up takes a core from the round trip itself.
     */
    public void pokeLater() {
        lock.lock();
        try {
            if (lazyDeadline == 0) {
                lazyDeadline = System.nanoTime() + intervalNs;
                lazyDeadline = lazyDeadline == 0 ? 1 : lazyDeadline;   // 0 means none
            }
            if (!lazyTimer) {
                wake.signalAll();   // the sender sets its timer for the deadline
            }
        } finally {
            lock.unlock();
        }
    }

    private boolean pending() {
        if (!buffer.isEmpty()) {
            return true;
        }
        for (ColumnBatch c : sources) {
            if (!c.isEmpty()) {
                return true;
            }
        }
        return false;
    }

    public boolean isClosed() {
        return closed;
    }

    public Comm comm() {
        return comm;
    }

    private void run() {
        try {
            while (true) {
                List<Message> batch;
                lock.lock();
                try {
                    while (true) {
                        if (overflowed) {
                            throw new CommClosedException("aborted: too many messages unsent");
                        }
                        boolean lazyDue = lazyDeadline != 0 && System.nanoTime() - lazyDeadline >= 0;
                        if (writing) {
                            if (lazyDue) {
                                lazyDeadline = 0;   // the write under way takes them, or its end signals what is left
                            }
                            await(0);
                            continue;
                        }
                        if (!pending()) {
                            if (closing) {
                                return;
                            }
                            if (lazyDue) {
                                lazyDeadline = 0;
                            }
                            // Another write took the lazy rows: until their deadline, later ones need no wake-up.
                            await(0);
                            continue;
                        }
                        long waitNs = lastWriteNs + intervalNs - System.nanoTime();
                        boolean flood = lastBatchSize > SPARSE_BATCH;
                        if (flood && waitNs > 0 && buffer.size() < maxBatch && !closing) {
                            await(waitNs);
                            continue;
                        }
                        if (lazyDeadline != 0 && !lazyDue && !urgent && buffer.size() < maxBatch && !closing) {
                            await(0);   // only lazy rows wait: a write before their deadline takes them
                            continue;
                        }
                        break;
                    }
                    urgent = false;
                    lazyDeadline = 0;
                    batch = buffer;
                    buffer = new ArrayList<>(Math.max(16, batch.size()));
                    writing = true;
                } finally {
                    lock.unlock();
                }
                try {
                    write(batch);
                } finally {
                    lock.lock();
                    try {
                        writing = false;
                        wake.signalAll();
                    } finally {
                        lock.unlock();
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            failed(e);
        } finally {
            closed = true;
        }
    }

    /**
     * The sender waits for a signal, at most {@code boundNs} (0: no bound of its own) and never past the lazy rows'
     * deadline if one is set (the caller cleared a deadline that has passed): while it waits so, {@link #pokeLater}
     * need not wake it.
     */
    private void await(long boundNs) throws InterruptedException {
        long ns = boundNs;
        if (lazyDeadline != 0) {
            long lazyNs = Math.max(1, lazyDeadline - System.nanoTime());
            ns = ns == 0 ? lazyNs : Math.min(ns, lazyNs);
            lazyTimer = true;
        }
        try {
            if (ns == 0) {
                wake.await();
            } else {
                wake.awaitNanos(ns);
            }
        } finally {
            lazyTimer = false;
        }
    }

    /** Writes {@code batch} and the sources' rows as one message; the caller holds the write turn ({@code writing}). */
    private void write(List<Message> batch) {
        for (ColumnBatch c : sources) {
            Message m = c.take();
            if (m != null) {
                batch.add(m);
            }
        }
        if (batch.isEmpty()) {
            return;
        }
        comm.write(batch.size() == 1 ? batch.getFirst() : Batches.pack(batch));
        lastWriteNs = System.nanoTime();
        lastBatchSize = batch.size();
    }

    /** A write failed (or the buffer overflowed): aborts the comm, drops what waits, tells onFailure once. */
    private void failed(RuntimeException failed) {
        RuntimeException e = failed;
        boolean report;
        lock.lock();
        try {
            if (overflowed) {
                e = new UnsentLimitException(comm.peerAddress() + " left " + maxUnsent
                        + " messages unsent: it stopped reading; dropped them and the comm", failed);
            }
            report = !failureReported;
            failureReported = true;
            closing = true;
            buffer.clear();
            wake.signalAll();
        } finally {
            lock.unlock();
        }
        comm.abort();
        closed = true;
        if (report) {
            if (e instanceof UnsentLimitException) {
                LOG.warn("{}", e.getMessage());
            }
            if (onFailure != null) {
                onFailure.accept(e);
            }
        }
    }

    /** {@link BatchedSend}'s peer stopped taking messages until too many were waiting for it. */
    public static final class UnsentLimitException extends CommClosedException {
        UnsentLimitException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** Writes what is buffered, then closes the comm (waiting up to {@code timeoutMs} for the flush). */
    public void close(long timeoutMs) {
        lock.lock();
        try {
            closing = true;
            wake.signalAll();
        } finally {
            lock.unlock();
        }
        try {
            sender.join(timeoutMs);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        comm.close();
    }

    /** Drops what is buffered and aborts the comm. */
    public void abort() {
        lock.lock();
        try {
            closing = true;
            buffer.clear();
            wake.signalAll();
        } finally {
            lock.unlock();
        }
        comm.abort();
    }
}
