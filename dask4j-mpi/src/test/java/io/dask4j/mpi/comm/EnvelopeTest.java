package io.dask4j.mpi.comm;

import io.dask4j.comm.ProtocolException;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class EnvelopeTest {

    @Test
    void anEnvelopeReadsBackWhatWasWritten() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(Envelope.BYTES);
            Envelope.write(out, Envelope.DATA, Envelope.FLAG_INLINE, 7, -3);
            assertThat(Envelope.kind(out)).isEqualTo(Envelope.DATA);
            assertThat(Envelope.inline(out)).isTrue();
            assertThat(Envelope.dst(out)).isEqualTo(7);
            assertThat(Envelope.src(out)).isEqualTo(-3);
        }
    }

    @Test
    void aCreditCarriesItsCountInTheAuxField() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(Envelope.BYTES);
            Envelope.write(out, Envelope.CREDIT, (byte) 0, 5, 9, 4096);
            assertThat(Envelope.kind(out)).isEqualTo(Envelope.CREDIT);
            assertThat(Envelope.aux(out)).isEqualTo(4096);
            assertThat(Envelope.kindName(Envelope.CREDIT)).isEqualTo("CREDIT");
        }
    }

    @Test
    void garbageIsAProtocolErrorNotACrash() {
        assertThatThrownBy(() -> Envelope.kind(MemorySegment.ofArray(new byte[3])))
                .isInstanceOf(ProtocolException.class);
        byte[] unknownKind = new byte[Envelope.BYTES];
        unknownKind[0] = Envelope.MAGIC;
        unknownKind[1] = 42;
        assertThatThrownBy(() -> Envelope.kind(MemorySegment.ofArray(unknownKind)))
                .isInstanceOf(ProtocolException.class).hasMessageContaining("42");
    }
}
