package io.dask4j.runtime.loop;

import io.dask4j.comm.Receiving;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongUnaryOperator;

/**
 * A single-owner event loop in the style of Netty's and Agrona's: state that belongs to the loop is only ever
 * touched by the thread that currently owns it, one at a time. Events come from any thread through {@link
 * #execute}; the caller runs the event itself, at once, when the loop is free and nothing is queued (the
 * transport's delivery thread then runs the state machine directly: no hand-off, no wake-up), and otherwise
 * queues it and wakes the loop's own thread once. That thread runs a duty cycle: drain the queue, run the
 * periodic work when due, call {@code afterEvents} (flush what the events wrote), and when there was nothing to
 * do stay awake for the {@link IdleOptions} budget (spin, then yield), then park until woken or the next
 * periodic deadline.
 *
 * <p><b>Order.</b> Events run one at a time, in the order each producing thread executed them: a caller only runs
 * inline when the queue is empty, and the owner drains the queue in order. <b>Back-pressure.</b> When more than
 * {@code maxQueued} events wait, the {@link Receiving} that delivered the last one is paused, and resumed once
 * the queue is down to half: a peer the loop cannot keep up with is held back by the transport's own flow
 * control, and the queue stays bounded (by {@code maxQueued} plus one event per paused peer in flight).
 *
 * <p><b>Threads.</b> {@link #execute}, {@link #inLoop} and {@link #close} from any thread; {@code afterEvents},
 * {@code periodic} and every event run on whichever thread owns the loop at that moment, never two at once,
 * with the owner's writes visible to the next owner (the ownership is an atomic hand-over).
 */
public final class EventLoop implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(EventLoop.class);

    private final Queue<Runnable> queue = new ConcurrentLinkedQueue<>();
    private final AtomicInteger queued = new AtomicInteger();
    private final Queue<Receiving> paused = new ConcurrentLinkedQueue<>();
    private final AtomicReference<Thread> owner = new AtomicReference<>();
    private final IdleOptions idle;
    private final int maxQueued;
    private final Runnable afterEvents;
    private final LongUnaryOperator periodic;
    private final Thread thread;
    /** When the periodic work is next due: the loop's thread only, after the constructor. */
    private long nextPeriodic;
    private volatile boolean sleeping;
    private volatile boolean running = true;

    /**
     * Starts the loop's thread.
     *
     * @param name the thread's name
     * @param idle how long the thread stays awake after its last work before it parks
     * @param maxQueued queued events past which the delivering peer is paused
     * @param afterEvents run by the owner after each batch of events (flushes the writes they made)
     * @param periodic given the time (System.nanoTime), does the periodic work and returns when it is next due;
     *     its first run is here, on the constructing thread, before the loop's thread starts
     */
    public EventLoop(String name, IdleOptions idle, int maxQueued, Runnable afterEvents, LongUnaryOperator periodic) {
        if (maxQueued < 1) {
            throw new IllegalArgumentException("maxQueued must be >= 1: " + maxQueued);
        }
        this.idle = idle;
        this.maxQueued = maxQueued;
        this.afterEvents = afterEvents;
        this.periodic = periodic;
        this.nextPeriodic = periodic.applyAsLong(System.nanoTime());
        this.thread = new Thread(null, this::run, name, 256L << 20);
        this.thread.setDaemon(true);
        this.thread.start();
    }

    /** Runs {@code event} on the loop: {@link #execute(Runnable, Receiving, boolean)} inline if possible, no source. */
    public void execute(Runnable event) {
        execute(event, null, true);
    }

    /**
     * Runs {@code event} on the loop, in order after the events already executed. With {@code inline} the calling
     * thread runs it itself when the loop is free and nothing is queued (then returns once it ran and the writes
     * it made were flushed); otherwise it is queued and the loop's thread woken. {@code source}, if not null, is
     * paused when the queue is past its bound. The caller must not own the loop already (an event that executes
     * another only queues it, so that events never nest).
     */
    public void execute(Runnable event, Receiving source, boolean inline) {
        Thread me = Thread.currentThread();
        if (inline && queue.isEmpty() && owner.compareAndSet(null, me)) {
            if (queue.isEmpty()) {
                try {
                    runSafely(event);
                    runSafely(afterEvents);
                } finally {
                    owner.set(null);
                }
                if (!queue.isEmpty()) {
                    wake();   // queued by others while this thread held the loop
                }
                return;
            }
            owner.set(null);
        }
        queue.add(event);
        if (queued.incrementAndGet() > maxQueued && source != null) {
            source.pause();
            paused.add(source);
        }
        wake();
    }

    /** True on the thread that owns the loop right now (inside an event, {@code afterEvents} or periodic work). */
    public boolean inLoop() {
        return owner.get() == Thread.currentThread();
    }

    /** Events waiting to run. */
    public int queued() {
        return queued.get();
    }

    private void wake() {
        if (sleeping) {
            LockSupport.unpark(thread);
        }
    }

    private void run() {
        Thread me = Thread.currentThread();
        while (running) {
            boolean worked = false;
            if (!queue.isEmpty() || System.nanoTime() - nextPeriodic >= 0) {
                if (owner.compareAndSet(null, me)) {
                    try {
                        worked = drain();
                        long now = System.nanoTime();
                        if (now - nextPeriodic >= 0) {
                            nextPeriodic = periodic.applyAsLong(now);
                            worked = true;
                        }
                        if (worked) {
                            runSafely(afterEvents);
                        }
                    } catch (RuntimeException | Error e) {
                        LOG.error("event loop {} failed", thread.getName(), e);
                    } finally {
                        owner.set(null);
                    }
                    resumeIfRoom();
                } else {
                    awaitRelease();
                    continue;
                }
            }
            if (!worked) {
                idle(nextPeriodic);
            }
        }
    }

    /** Runs the queued events (at most a bounded batch, so the periodic work and the flush are not starved). */
    private boolean drain() {
        boolean any = false;
        for (int i = 0; i < 10_000; i++) {
            Runnable event = queue.poll();
            if (event == null) {
                break;
            }
            queued.decrementAndGet();
            any = true;
            runSafely(event);
        }
        return any;
    }

    private void resumeIfRoom() {
        if (!paused.isEmpty() && queued.get() <= maxQueued / 2) {
            Receiving r;
            while ((r = paused.poll()) != null) {
                r.resume();
            }
        }
    }

    /**
     * Another thread runs an event inline while events wait: park until it lets go (it wakes this thread when it
     * sees the queue not empty), never spin, since on a busy machine the spinning would take the core from it.
     */
    private void awaitRelease() {
        sleeping = true;
        try {
            if (owner.get() != null && running) {
                LockSupport.parkNanos(this, TimeUnit.MILLISECONDS.toNanos(1));
            }
        } finally {
            sleeping = false;
        }
    }

    private void idle(long nextPeriodic) {
        if (Awake.poll(idle, () -> !queue.isEmpty() || !running)) {
            return;
        }
        sleeping = true;
        try {
            long wait = nextPeriodic - System.nanoTime();
            if (queue.isEmpty() && running && wait > 0) {
                LockSupport.parkNanos(this, Math.min(wait, TimeUnit.SECONDS.toNanos(1)));
            }
        } finally {
            sleeping = false;
        }
    }

    private void runSafely(Runnable r) {
        try {
            r.run();
        } catch (RuntimeException e) {
            // A bug in one handler must not stop the loop for everyone.
            LOG.error("event on loop {} failed", thread.getName(), e);
        }
    }

    /** Stops the loop's thread (events still queued are dropped) and waits up to 5 s for it. */
    @Override
    public void close() {
        running = false;
        LockSupport.unpark(thread);
        if (Thread.currentThread() != thread) {
            try {
                thread.join(5000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
