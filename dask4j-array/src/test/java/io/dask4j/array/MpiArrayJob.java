package io.dask4j.array;

import io.dask4j.launcher.MpiCluster;
import io.dask4j.launcher.MpiClusterOptions;
import io.dask4j.runtime.client.Client;
import org.junit.jupiter.api.Test;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;

/**
 * The program of {@link MpiArrayTest}'s mpirun job: {@code MpiArrayJob LOGDIR}. Rank 0 schedules, the
 * ranks from 2 work, and rank 1 runs every {@link ArrayContract} test body against the job's client,
 * printing {@code PASS name} or {@code FAIL name: error}, then {@code CONTRACT DONE failures=N}.
 */
public final class MpiArrayJob {
    private MpiArrayJob() {
    }

    public static void main(String[] args) throws Exception {
        MpiClusterOptions options = MpiClusterOptions.defaults().withLogDirectory(Path.of(args[0])).withThreads(1);
        int failures = MpiCluster.execute(options, MpiArrayJob::runContract);
        System.out.println("CONTRACT DONE failures=" + failures);
    }

    static int runContract(Client client) throws IllegalAccessException {
        ArrayContract contract = new ArrayContract() {
            @Override
            Client client() {
                return client;
            }
        };
        int failures = 0;
        Method[] methods = ArrayContract.class.getDeclaredMethods();
        Arrays.sort(methods, Comparator.comparing(Method::getName));
        for (Method m : methods) {
            if (!m.isAnnotationPresent(Test.class)) {
                continue;
            }
            m.setAccessible(true);
            try {
                m.invoke(contract);
                System.out.println("PASS " + m.getName());
            } catch (InvocationTargetException e) {
                failures++;
                System.out.println("FAIL " + m.getName() + ": " + e.getCause());
            }
        }
        return failures;
    }
}
