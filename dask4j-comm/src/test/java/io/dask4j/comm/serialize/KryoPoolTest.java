package io.dask4j.comm.serialize;

import static org.assertj.core.api.Assertions.assertThat;

import com.esotericsoftware.kryo.serializers.ClosureSerializer;
import org.junit.jupiter.api.Test;

class KryoPoolTest {

    @Test
    void everyKryoWriterAndReaderSharesTheOneClosureSerializerSoItsStaticFieldsAreNeverRewrittenWhileLambdasAreRead() {
        var first = KryoPool.WRITERS.obtain().getRegistration(ClosureSerializer.Closure.class).getSerializer();
        var second = KryoPool.readers(ClassAllowList.builtInOnly()).obtain()
                .getRegistration(ClosureSerializer.Closure.class).getSerializer();
        assertThat(first).isInstanceOf(ClosureSerializer.class).isSameAs(second);
    }
}
