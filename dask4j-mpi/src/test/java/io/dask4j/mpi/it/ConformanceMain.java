package io.dask4j.mpi.it;

import io.dask4j.mpi.MpiRuntime;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

import java.io.PrintWriter;
import java.time.Duration;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectMethod;

/**
 * Runs {@link MpiConformanceCases} through the JUnit launcher inside rank 0 of an mpirun job; the other
 * ranks wait at a barrier. An optional argument names one test method to run. Rank 0 prints {@code CONFORMANCE <found> <succeeded> <failed> <skipped>} and the
 * failures; every rank exits 0 only if nothing failed.
 */
public final class ConformanceMain {

    private ConformanceMain() {
    }

    public static void main(String[] args) {
        MpiRuntime mpi = MpiRuntime.start();
        long failed = 0;
        if (mpi.rank() == 0) {
            LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
                    .selectors(args.length == 0 ? selectClass(MpiConformanceCases.class)
                            : selectMethod(MpiConformanceCases.class, args[0])).build();
            Launcher launcher = LauncherFactory.create();
            SummaryGeneratingListener listener = new SummaryGeneratingListener();
            launcher.execute(request, listener);
            TestExecutionSummary summary = listener.getSummary();
            summary.printFailuresTo(new PrintWriter(System.out, true), 30);
            failed = summary.getTotalFailureCount();
            System.out.println("CONFORMANCE found=" + summary.getTestsFoundCount() + " succeeded="
                    + summary.getTestsSucceededCount() + " failed=" + failed + " skipped=" + summary.getTestsSkippedCount());
        }
        mpi.barrier(Duration.ofMinutes(5));
        mpi.close();
        System.exit(failed == 0 ? 0 : 1);
    }
}
