/*
 * Raw C MPI ping-pong between ranks 0 and 1: the reference the mpi comm benchmark compares with. Same method as the Java binding's raw ping-pong (io.dask4j.bench.mpi.RawPingPong):
 * MPI_Irecv posted before MPI_Isend, MPI_Test until done, buffers allocated once; one-way time is half the
 * median round trip. Not built by Maven: compiled and run by measure-mpi-c.sh for a manual measurement.
 *
 *   mpicc -O2 -o /tmp/mpi_pingpong mpi_pingpong.c && mpirun -np 2 /tmp/mpi_pingpong [iterations]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *) a, y = *(const double *) b;
    return x < y ? -1 : x > y;
}

static void spin(MPI_Request *r) {
    int flag = 0;
    while (!flag) {
        MPI_Test(r, &flag, MPI_STATUS_IGNORE);
    }
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    long sizes[] = {8, 1024, 1L << 20, 16L << 20, 64L << 20};
    int max_iterations = argc > 1 ? atoi(argv[1]) : 20000;
    for (int s = 0; s < 5; s++) {
        long size = sizes[s];
        long budget = (1L << 30) / size;
        int rounds = (int) (budget < max_iterations ? budget : max_iterations);
        if (rounds < 10) rounds = 10;
        int warmup = rounds / 10 > 2 ? rounds / 10 : 2;
        char *send = aligned_alloc(4096, (size + 4095) / 4096 * 4096);
        char *recv = aligned_alloc(4096, (size + 4095) / 4096 * 4096);
        memset(send, 1, size);
        memset(recv, 0, size);
        double *rtt = malloc(sizeof(double) * rounds);
        int peer = 1 - rank;
        for (int i = 0; i < warmup + rounds; i++) {
            MPI_Request rr, sr;
            double t0 = now_ns();
            MPI_Irecv(recv, (int) size, MPI_BYTE, peer, 77, MPI_COMM_WORLD, &rr);
            if (rank == 0) {
                MPI_Isend(send, (int) size, MPI_BYTE, peer, 77, MPI_COMM_WORLD, &sr);
                spin(&sr);
                spin(&rr);
            } else {
                spin(&rr);
                MPI_Isend(send, (int) size, MPI_BYTE, peer, 77, MPI_COMM_WORLD, &sr);
                spin(&sr);
            }
            if (i >= warmup) rtt[i - warmup] = now_ns() - t0;
        }
        if (rank == 0) {
            qsort(rtt, rounds, sizeof(double), cmp);
            double median = rtt[rounds / 2] / 2e3, p99 = rtt[(int) (rounds * 0.99)] / 2e3;
            printf("{\"backend\":\"mpi\",\"layer\":\"c\",\"size_bytes\":%ld,\"iterations\":%d,"
                   "\"latency_us_median\":%.3f,\"latency_us_p99\":%.3f,\"bandwidth_gbps\":%.4f}\n",
                   size, rounds, median, p99, size / (median * 1e3));
            fflush(stdout);
        }
        free(send);
        free(recv);
        free(rtt);
    }
    MPI_Finalize();
    return 0;
}
