/*
 * The MPI call pattern of InboxPressureOrderMain, without Java: rank 0 posts rounds of FRAMES MPI_Isend of
 * FRAME_BYTES (above vader's 4 KiB eager limit) and, while they are outstanding, floods small MPI_Isends;
 * every message carries a sender sequence number in its first 8 bytes. Rank 1 matches with
 * MPI_Improbe(0, MPI_ANY_TAG) + MPI_Mrecv, as the dask4j engine does, and checks that the numbers come in
 * order (MPI's non-overtaking rule: one sender, one communicator, a receive that matches both).
 *
 *   mpicc.openmpi -O2 -o /tmp/ordering_flood ordering_flood.c
 *   mpirun.openmpi --mca btl_vader_single_copy_mechanism none -np 2 /tmp/ordering_flood [rounds] [smallPerRound] [pauseEvery]
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define FRAMES 2000
#define FRAME_BYTES (8 << 10)
#define SMALL_BYTES 64
#define SMALL_RING 4096

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    int rounds = argc > 1 ? atoi(argv[1]) : 20;
    long smallPerRound = argc > 2 ? atol(argv[2]) : 200000;
    long pauseEvery = argc > 3 ? atol(argv[3]) : 0; /* receiver: after this many messages, 20 ms without matching rank 0 */
    long progressEvery = argc > 4 ? atol(argv[4]) : 0; /* sender: >0 frees small requests, one MPI_Iprobe per this many */
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    uint64_t seq = 0;
    if (rank == 0) {
        char *big = malloc((size_t) FRAMES * FRAME_BYTES);
        char *small = malloc((size_t) (smallPerRound > SMALL_RING ? smallPerRound : SMALL_RING) * SMALL_BYTES);
        MPI_Request *bigReq = malloc(sizeof(MPI_Request) * FRAMES);
        MPI_Request *smallReq = malloc(sizeof(MPI_Request) * SMALL_RING);
        memset(big, 0, (size_t) FRAMES * FRAME_BYTES);
        for (int r = 0; r < rounds; r++) {
            for (int i = 0; i < FRAMES; i++) {
                memcpy(big + (size_t) i * FRAME_BYTES, &seq, 8);
                seq++;
                MPI_Isend(big + (size_t) i * FRAME_BYTES, FRAME_BYTES, MPI_BYTE, 1, 2, MPI_COMM_WORLD, &bigReq[i]);
            }
            int n = 0;
            for (long k = 0; progressEvery > 0 && k < smallPerRound; k++) {
                /* each small message its own buffer: the request is freed, never waited for */
                memcpy(small + (size_t) k * SMALL_BYTES, &seq, 8);
                seq++;
                MPI_Request req;
                MPI_Isend(small + (size_t) k * SMALL_BYTES, SMALL_BYTES, MPI_BYTE, 1, 1, MPI_COMM_WORLD, &req);
                MPI_Request_free(&req);
                if (k % progressEvery == 0) {
                    int flag;
                    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
                }
            }
            for (long k = 0; progressEvery == 0 && k < smallPerRound; k++) {
                if (n == SMALL_RING) {
                    MPI_Waitall(n, smallReq, MPI_STATUSES_IGNORE);
                    n = 0;
                }
                memcpy(small + (size_t) n * SMALL_BYTES, &seq, 8);
                seq++;
                MPI_Isend(small + (size_t) n * SMALL_BYTES, SMALL_BYTES, MPI_BYTE, 1, 1, MPI_COMM_WORLD, &smallReq[n]);
                n++;
            }
            MPI_Waitall(n, smallReq, MPI_STATUSES_IGNORE);
            MPI_Waitall(FRAMES, bigReq, MPI_STATUSES_IGNORE);
            fprintf(stderr, "rank 0: round %d sent, seq %llu\n", r, (unsigned long long) seq);
            if (progressEvery > 0) {
                /* the freed small sends read their buffers until they are done: wait for rank 1 to have them */
                MPI_Sendrecv(&seq, 8, MPI_BYTE, 1, 4, &seq, 8, MPI_BYTE, 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            }
        }
        uint64_t end = UINT64_MAX;
        MPI_Send(&end, 8, MPI_BYTE, 1, 3, MPI_COMM_WORLD);
    } else {
        char *buf = malloc(FRAME_BYTES);
        long violations = 0, received = 0;
        double start = now();
        for (;;) {
            int flag = 0;
            MPI_Message msg;
            MPI_Status st;
            if (pauseEvery > 0 && received > 0 && received % pauseEvery == 0) {
                /* like a paused source: keep calling MPI, match nothing from rank 0 */
                double until = now() + 0.02;
                while (now() < until) {
                    MPI_Iprobe(1, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
                }
                flag = 0;
            }
            MPI_Improbe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &msg, &st);
            if (!flag) {
                continue;
            }
            int count;
            MPI_Get_count(&st, MPI_BYTE, &count);
            MPI_Mrecv(buf, count, MPI_BYTE, &msg, MPI_STATUS_IGNORE);
            received++;
            uint64_t got;
            memcpy(&got, buf, 8);
            if (st.MPI_TAG == 3) {
                break;
            }
            if (st.MPI_TAG == 4) {
                MPI_Send(&got, 8, MPI_BYTE, 0, 5, MPI_COMM_WORLD);
                seq = got + 0; /* the sync message carries the next number, not its own */
                continue;
            }
            if (got != seq) {
                if (violations < 10) {
                    fprintf(stderr, "rank 1: ORDER VIOLATION after %ld messages: expected seq %llu, got %llu (tag %d, %d bytes; got - expected = %lld)\n",
                            received - 1, (unsigned long long) seq, (unsigned long long) got, st.MPI_TAG, count,
                            (long long) (got - seq));
                }
                violations++;
                if (violations == 10) {
                    /* the job would hang later (the displaced messages confuse its matching): stop here */
                    fprintf(stderr, "rank 1: ORDER BROKEN, aborting\n");
                    MPI_Abort(MPI_COMM_WORLD, 3);
                }
            }
            seq = got + 1;
        }
        fprintf(stderr, "rank 1: %ld messages in %.1f s, %ld order violations\n", received, now() - start, violations);
        printf("%s\n", violations == 0 ? "ORDER OK" : "ORDER BROKEN");
    }
    MPI_Finalize();
    return 0;
}
