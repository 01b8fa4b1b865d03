package io.dask4j.comm.serialize;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** A worker warms its decoder as it starts: that must work under the strictest allow-list and beside real decodes. */
class DeserializerWarmUpTest {

    @Test
    void theWarmUpValueIsAllowedByTheBuiltInListAlone() {
        assertThatCode(() -> new Deserializer(ClassAllowList.builtInOnly()).warmUp()).doesNotThrowAnyException();
    }

    @Test
    void aWarmUpOnAnotherThreadLeavesConcurrentDecodesCorrect() throws Exception {
        Deserializer decoder = new Deserializer(ClassAllowList.builtInOnly());
        CountDownLatch started = new CountDownLatch(1);
        AtomicReference<Throwable> failed = new AtomicReference<>();
        Thread warm = new Thread(() -> {
            started.countDown();
            try {
                for (int i = 0; i < 50; i++) {
                    decoder.warmUp();
                }
            } catch (Throwable t) {
                failed.set(t);
            }
        });
        warm.start();
        started.await();
        for (int i = 0; i < 200; i++) {
            List<Object> value = new ArrayList<>(List.of("v" + i, (long) i));
            assertThat(decoder.decode(Serialization.encode(value))).isEqualTo(value);
        }
        warm.join();
        assertThat(failed.get()).isNull();
    }
}
