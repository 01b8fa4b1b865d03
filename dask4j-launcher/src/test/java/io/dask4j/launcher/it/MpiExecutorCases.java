package io.dask4j.launcher.it;

import io.dask4j.runtime.client.Client;
import io.dask4j.runtime.client.ExecutorContract;

/**
 * {@link ExecutorContract} over mpi://: {@link ExecutorMain} runs it through the JUnit launcher on the client rank
 * of an mpirun job, with the client {@code MpiCluster.initialize} gave it.
 */
public class MpiExecutorCases extends ExecutorContract {
    static volatile Client client;

    @Override
    protected Client client() {
        return client;
    }
}
