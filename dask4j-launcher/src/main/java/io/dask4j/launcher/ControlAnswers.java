package io.dask4j.launcher;

import java.util.Map;
import java.util.OptionalInt;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Hands what a control probe received to the poll that asked for it, or, when that poll has given up waiting
 * (the engine took longer than its patience: a GC pause, a long receive), keeps it for the next poll of the same
 * source and tag. A control message is received once ({@code MPI_Mrecv}), so an answer nobody takes would be a
 * shutdown word lost for good. Thread-safe: probes deliver on the engine thread, polls wait on their own.
 */
final class ControlAnswers {
    private final Map<Long, Queue<Integer>> kept = new ConcurrentHashMap<>();

    /** A value that came after its poll gave up, if any, oldest first. */
    OptionalInt takeKept(int source, int tag) {
        Queue<Integer> q = kept.get(key(source, tag));
        Integer v = q == null ? null : q.poll();
        return v == null ? OptionalInt.empty() : OptionalInt.of(v);
    }

    /** The answer one poll waits for. */
    Pending expect(int source, int tag) {
        return new Pending(source, tag);
    }

    private static long key(int source, int tag) {
        return ((long) source << 32) | (tag & 0xffffffffL);
    }

    /** One poll's answer: delivered by the probe, awaited (or given up) by the poll. */
    final class Pending {
        private final int source;
        private final int tag;
        private final CompletableFuture<OptionalInt> answer = new CompletableFuture<>();

        private Pending(int source, int tag) {
            this.source = source;
            this.tag = tag;
        }

        /** What the probe found; kept for a later poll if this one gave up. */
        void deliver(OptionalInt found) {
            if (!answer.complete(found) && found.isPresent()) {
                kept.computeIfAbsent(key(source, tag), k -> new ConcurrentLinkedQueue<>()).add(found.getAsInt());
            }
        }

        void fail(RuntimeException failure) {
            answer.completeExceptionally(failure);
        }

        /**
         * Waits up to {@code millis} for the probe; empty if it has not run by then (what it finds later is kept).
         * An interrupt also gives up, with the flag restored.
         *
         * @throws ExecutionException if the probe failed
         */
        OptionalInt await(long millis) throws ExecutionException {
            try {
                return answer.get(millis, TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                return giveUp();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return giveUp();
            }
        }

        private OptionalInt giveUp() throws ExecutionException {
            if (answer.complete(OptionalInt.empty())) {
                return OptionalInt.empty();   // claimed: a late probe keeps what it finds
            }
            try {
                return answer.get();   // delivered just now
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return answer.getNow(OptionalInt.empty());
            }
        }
    }
}
