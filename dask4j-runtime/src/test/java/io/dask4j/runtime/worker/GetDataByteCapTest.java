package io.dask4j.runtime.worker;

import io.dask4j.runtime.client.Client;
import io.dask4j.runtime.client.DaskFuture;
import io.dask4j.runtime.task.TaskFunction;
import io.dask4j.runtime.cluster.LocalCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Worker-to-worker fetches under the get-data reply cap ({@link Worker#MAX_REPLY_BYTES}): a fetch of
 * more bytes than the cap arrives in several replies and still delivers every value; small values still
 * travel together. Two inproc workers; a task reading six scattered values (three on each worker)
 * fetches the other worker's three.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(60)
class GetDataByteCapTest {
    private LocalCluster cluster;
    private Client client;

    @BeforeAll
    void start() {
        cluster = LocalCluster.builder().workers(2).threadsPerWorker(1).start();
        client = cluster.client();
    }

    @AfterAll
    void stop() {
        client.close();
        cluster.close();
    }

    /** (double[]...) -> the sum of all their elements. */
    private static final TaskFunction<Double> SUM_ALL = args -> {
        double s = 0;
        for (Object a : args) {
            for (double v : (double[]) a) {
                s += v;
            }
        }
        return s;
    };

    private long[] fetchCounters() {
        long replies = 0;
        long keys = 0;
        for (Worker w : cluster.workers()) {
            replies += w.stats().transfersIn();
            keys += w.stats().keysFetched();
        }
        return new long[]{replies, keys};
    }

    /** Scatters six arrays of {@code length} doubles (value {@code i + 1} in array i), sums them all in one task. */
    private double sumOfSixScattered(int length) throws Exception {
        List<double[]> data = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            double[] a = new double[length];
            Arrays.fill(a, i + 1);
            data.add(a);
        }
        List<DaskFuture<double[]>> parts = client.scatter(data);
        DaskFuture<Double> sum = client.submit(SUM_ALL, parts.toArray());
        double result = sum.result(Duration.ofSeconds(30));
        sum.release();
        parts.forEach(DaskFuture::release);
        return result;
    }

    @Test
    void aFetchLargerThanTheReplyCapArrivesInSeveralRepliesAndDeliversEveryValue() throws Exception {
        int length = (int) (Worker.MAX_REPLY_BYTES * 5 / 8 / Double.BYTES);   // any two exceed the cap
        long[] before = fetchCounters();
        assertThat(sumOfSixScattered(length)).isEqualTo(21.0 * length);
        long[] after = fetchCounters();
        long replies = after[0] - before[0];
        long keys = after[1] - before[1];
        assertThat(keys).isEqualTo(3);
        assertThat(replies).isEqualTo(keys);
    }

    @Test
    void smallValuesStillTravelTogetherInOneReply() throws Exception {
        long[] before = fetchCounters();
        assertThat(sumOfSixScattered(1000)).isEqualTo(21.0 * 1000);
        long[] after = fetchCounters();
        assertThat(after[1] - before[1]).isEqualTo(3);
        assertThat(after[0] - before[0]).isEqualTo(1);
    }
}
