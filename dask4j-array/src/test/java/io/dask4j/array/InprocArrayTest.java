package io.dask4j.array;

import io.dask4j.runtime.client.Client;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/** The array contract on an in-process cluster of 3 workers x 1 thread (inproc comms). */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class InprocArrayTest extends ArrayContract {
    private Client client;

    @BeforeAll
    void startCluster() {
        client = Client.local(3, 1);
    }

    @AfterAll
    void stopCluster() {
        client.close();
    }

    @Override
    Client client() {
        return client;
    }
}
