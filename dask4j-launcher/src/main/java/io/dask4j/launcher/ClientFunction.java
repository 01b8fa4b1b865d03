package io.dask4j.launcher;

import io.dask4j.runtime.client.Client;

/**
 * The client's part of an MPI job for {@link MpiCluster#execute}: runs on the client rank with a client
 * connected to the job's scheduler, and returns a result to that rank.
 *
 * @param <T> the result
 */
@FunctionalInterface
public interface ClientFunction<T> {
    T apply(Client client) throws Exception;
}
