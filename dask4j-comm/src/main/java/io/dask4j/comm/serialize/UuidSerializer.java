package io.dask4j.comm.serialize;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.Serializer;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import java.util.UUID;

/** Kryo serializer for {@link UUID}, whose fields are closed to reflection. Stateless, thread-safe. */
final class UuidSerializer extends Serializer<UUID> {

    UuidSerializer() {
        setImmutable(true);
    }

    @Override
    public void write(Kryo kryo, Output output, UUID uuid) {
        output.writeLong(uuid.getMostSignificantBits());
        output.writeLong(uuid.getLeastSignificantBits());
    }

    @Override
    public UUID read(Kryo kryo, Input input, Class<? extends UUID> type) {
        return new UUID(input.readLong(), input.readLong());
    }
}
