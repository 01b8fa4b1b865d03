package io.dask4j.bench.mpi;

import org.junit.jupiter.api.Test;

import java.util.ArrayDeque;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** JitQuiet's wait, on a fake clock and a scripted compiler CPU: no real time passes. */
class JitQuietTest {

    private static final long MS = 1_000_000L;

    /** A clock that only the sleeper moves, and compiler CPU readings taken in order (the last one repeats). */
    private static final class Script {
        long now;
        int sleeps;
        final ArrayDeque<Long> cpu;

        Script(List<Long> readings) {
            cpu = new ArrayDeque<>(readings);
        }

        long cpu() {
            return cpu.size() > 1 ? cpu.poll() : cpu.peek();
        }

        boolean await(long quietMs, long timeoutMs) throws InterruptedException {
            return JitQuiet.await(this::cpu, () -> now, nanos -> { now += nanos; sleeps++; }, quietMs * MS, timeoutMs * MS);
        }
    }

    @Test
    void aJvmThatCompilesNothingIsQuietAfterOneQuietSpell() throws Exception {
        Script s = new Script(List.of(7L));
        assertThat(s.await(500, 15_000)).isTrue();
        assertThat(s.now).isEqualTo(500 * MS);
    }

    @Test
    void compilingRestartsTheQuietSpell() throws Exception {
        // Compiling for the first three samples (300 ms), then nothing: quiet 500 ms after the last rise.
        Script s = new Script(List.of(0L, 10L, 20L, 30L, 30L));
        assertThat(s.await(500, 15_000)).isTrue();
        assertThat(s.now).isEqualTo(800 * MS);
    }

    @Test
    void aJitThatNeverStopsEndsTheWaitAtTheTimeout() throws Exception {
        Script s = new Script(java.util.stream.LongStream.range(0, 1_000).boxed().toList());
        assertThat(s.await(500, 2_000)).isFalse();
        assertThat(s.now).isEqualTo(2_000 * MS);
    }

    @Test
    void onlyCompilerThreadsCount() {
        String c2 = "4711 (C2 CompilerThre) S 1 1 1 0 -1 4194368 0 0 0 0 41 3 0 0 20 0 24 0 100 0 0";
        String engine = "4712 (dask4j-mpi-prog) S 1 1 1 0 -1 4194368 0 0 0 0 500 70 0 0 20 0 24 0 100 0 0";
        String spaced = "4713 (C1 CompilerThre) R 1 1 1 0 -1 4194368 0 0 0 0 5 1 0 0 20 0 24 0 100 0 0";
        assertThat(JitQuiet.compilerTicks(c2)).isEqualTo(44);
        assertThat(JitQuiet.compilerTicks(spaced)).isEqualTo(6);
        assertThat(JitQuiet.compilerTicks(engine)).isZero();
    }

    @Test
    void thisJvmsCompilerThreadsAreFoundOnLinux() {
        // The JIT has compiled something by the time a test runs: its threads used CPU (on Linux, where /proc is).
        org.junit.jupiter.api.Assumptions.assumeTrue(java.nio.file.Files.isDirectory(java.nio.file.Path.of("/proc/self/task")));
        assertThat(JitQuiet.compilerCpuNanos()).isPositive();
    }
}
