package io.dask4j.runtime.client;

import java.io.PrintStream;
import java.util.Collection;
import java.util.List;

/**
 * A console progress bar for a set of futures, redrawn in place ({@code \r}) every 100 ms until all are
 * done: {@code [########------------] 40% 4000/10000 tasks 1.2 s}. Runs on the calling thread.
 */
final class ProgressBar {
    private static final int WIDTH = 40;
    private final PrintStream out;

    ProgressBar(PrintStream out) {
        this.out = out;
    }

    void show(Collection<? extends DaskFuture<?>> futures) {
        List<? extends DaskFuture<?>> list = List.copyOf(futures);
        long start = System.nanoTime();
        while (true) {
            int done = 0;
            int erred = 0;
            for (DaskFuture<?> f : list) {
                FutureStatus s = f.status();
                if (s.isDone()) {
                    done++;
                    if (s == FutureStatus.ERROR) {
                        erred++;
                    }
                }
            }
            out.print("\r" + render(done, erred, list.size(), (System.nanoTime() - start) / 1e9));
            out.flush();
            if (done == list.size()) {
                out.println();
                return;
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                out.println();
                return;
            }
        }
    }

    static String render(int done, int erred, int total, double seconds) {
        int filled = total == 0 ? WIDTH : (int) ((long) WIDTH * done / total);
        int pct = total == 0 ? 100 : (int) (100L * done / total);
        return "[" + "#".repeat(filled) + "-".repeat(WIDTH - filled) + "] " + pct + "% " + done + "/" + total
                + " tasks" + (erred > 0 ? ", " + erred + " erred" : "") + String.format(" %.1f s", seconds);
    }
}
