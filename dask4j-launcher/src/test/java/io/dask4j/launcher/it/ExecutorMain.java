package io.dask4j.launcher.it;

import io.dask4j.launcher.MpiCluster;
import io.dask4j.launcher.MpiClusterOptions;
import io.dask4j.launcher.MpiProtocol;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

import java.io.PrintWriter;
import java.nio.file.Path;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

/**
 * {@code ExecutorMain PROTOCOL LOGDIR}: starts the cluster of an mpirun job with {@link MpiCluster#initialize} (2
 * task threads per worker) and, on the client rank, runs {@link MpiExecutorCases} through the JUnit launcher. Prints
 * {@code EXECUTOR CONTRACT found=<n> succeeded=<n> failed=<n>} and the failures; throws (the job exits non-zero) if
 * any failed.
 */
public final class ExecutorMain {
    private ExecutorMain() {
    }

    public static void main(String[] args) {
        MpiClusterOptions options = MpiClusterOptions.defaults().withProtocol(MpiProtocol.parse(args[0]))
                .withLogDirectory(Path.of(args[1])).withThreads(2);
        MpiExecutorCases.client = MpiCluster.initialize(options);
        Launcher launcher = LauncherFactory.create();
        SummaryGeneratingListener listener = new SummaryGeneratingListener();
        launcher.execute(LauncherDiscoveryRequestBuilder.request().selectors(selectClass(MpiExecutorCases.class)).build(), listener);
        TestExecutionSummary summary = listener.getSummary();
        summary.printFailuresTo(new PrintWriter(System.out, true), 30);
        System.out.println("EXECUTOR CONTRACT found=" + summary.getTestsFoundCount() + " succeeded="
                + summary.getTestsSucceededCount() + " failed=" + summary.getTotalFailureCount());
        if (summary.getTotalFailureCount() > 0) {
            throw new AssertionError(summary.getTotalFailureCount() + " executor contract tests failed");
        }
    }
}
