package io.dask4j.comm.serialize;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dask4j.comm.Frame;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.example.tasks.UserTasks;
import org.example.untrusted.Gadget;
import org.example.untrusted.GadgetHolder;
import org.junit.jupiter.api.Test;

/** A class nobody declared is refused by name, wherever in a value it hides, before it is ever initialized. */
class DeserializerAllowListTest {

    private static final Deserializer BUILT_IN_ONLY = new Deserializer(ClassAllowList.builtInOnly());

    /** Bytes as a peer would send them: encoding accepts any class, the reader decides. */
    private static Serialized wire(Object value) {
        Serialized s = Serialization.encode(value);
        return new Serialized(s.codec(), s.frames().stream().map(f -> Frame.of(f.toByteArray())).toList());
    }

    private static void assertRefused(Deserializer decoder, Object value, String className) {
        assertThatThrownBy(() -> decoder.decode(wire(value)))
                .isInstanceOf(ClassNotAllowedException.class)
                .hasMessageContaining(className)
                .satisfies(e -> assertThat(((ClassNotAllowedException) e).className()).isEqualTo(className));
    }

    @Test
    void aGadgetAtTheTopIsRefusedNamingItsClass() {
        assertRefused(BUILT_IN_ONLY, new GadgetFactory().make(), Gadget.class.getName());
    }

    @Test
    void aGadgetInsideAllowedCollectionsIsRefused() {
        assertRefused(BUILT_IN_ONLY, List.of(Map.of("k", new GadgetFactory().make())), Gadget.class.getName());
    }

    @Test
    void anArrayOfGadgetsIsRefused() {
        assertRefused(BUILT_IN_ONLY, new Object[] {new GadgetFactory().makeArray()}, "[L" + Gadget.class.getName() + ";");
    }

    @Test
    void aGadgetInAFinalTypedFieldOfAnAllowedClassIsRefusedThoughItsNameIsNeverWritten() {
        Deserializer holderOnly = new Deserializer(ClassAllowList.builtInOnly().withClasses(GadgetHolder.class));
        assertRefused(holderOnly, new GadgetHolder("h", new GadgetFactory().make()), Gadget.class.getName());
    }

    @Test
    void aGadgetCapturedByAnAllowedLambdaIsRefused() {
        Deserializer tasks = new Deserializer(ClassAllowList.parse("org.example.tasks.*"));
        assertRefused(tasks, UserTasks.capturing(new GadgetFactory().make()), Gadget.class.getName());
    }

    @Test
    void aLambdaWhoseCapturingClassIsNotAllowedIsRefusedNamingThatClass() {
        assertRefused(BUILT_IN_ONLY, UserTasks.scaleBy(3), UserTasks.class.getName());
    }

    @Test
    void declaredUserClassesAndTheirLambdasRoundTrip() {
        Deserializer tasks = new Deserializer(ClassAllowList.parse("org.example.tasks.*"));
        @SuppressWarnings("unchecked")
        Function<Integer, Integer> scale = (Function<Integer, Integer>) tasks.decode(wire(UserTasks.scaleBy(3)));
        assertThat(scale.apply(14)).isEqualTo(42);
        assertThat(tasks.decode(wire(new UserTasks.Params("p", 2)))).isEqualTo(new UserTasks.Params("p", 2));
    }

    @Test
    void aSingleDeclaredClassAllowsItsNestedRecordButNotItsNeighbours() {
        Deserializer one = new Deserializer(ClassAllowList.builtInOnly().withClasses(UserTasks.class));
        assertThat(one.decode(wire(new UserTasks.Params("p", 2)))).isEqualTo(new UserTasks.Params("p", 2));
        assertRefused(one, new GadgetFactory().make(), Gadget.class.getName());
    }

    @Test
    void theRefusedClassIsNeverInitialized() {
        // No code names InitMarkingGadget as a type, so only decoding could initialize it in this JVM; the frame
        // is written by hand: Kryo's "class by name" marker, name id 0, the name, then bytes never read.
        byte[] bytes = handWrittenFrameNaming("org.example.untrusted.InitMarkingGadget");
        assertThatThrownBy(() -> BUILT_IN_ONLY.decode(new Serialized(Serialization.KRYO, List.of(Frame.of(bytes)))))
                .isInstanceOf(ClassNotAllowedException.class)
                .hasMessageContaining("org.example.untrusted.InitMarkingGadget");
        assertThat(System.getProperty("dask4j.test.gadget.initialized")).isNull();
    }

    @Test
    void theDecoderServesOnAfterARefusal() {
        assertRefused(BUILT_IN_ONLY, new GadgetFactory().make(), Gadget.class.getName());
        assertThat(BUILT_IN_ONLY.decode(wire(List.of(1, "two")))).isEqualTo(List.of(1, "two"));
    }

    private static byte[] handWrittenFrameNaming(String className) {
        com.esotericsoftware.kryo.io.Output out = new com.esotericsoftware.kryo.io.Output(64, -1);
        out.writeVarInt(1, true);      // class id NAME + 2 = "the class follows by name"
        out.writeVarInt(0, true);      // name id
        out.writeString(className);
        out.writeString("fields that must never be read");
        return out.toBytes();
    }

    /** Builds gadgets lazily, so only tests that encode one initialize the class. */
    private static final class GadgetFactory {
        Gadget make() {
            return new Gadget();
        }

        Gadget[] makeArray() {
            return new Gadget[] {new Gadget()};
        }
    }
}
