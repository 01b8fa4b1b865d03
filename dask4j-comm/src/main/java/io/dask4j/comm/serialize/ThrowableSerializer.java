package io.dask4j.comm.serialize;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.Serializer;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import java.lang.reflect.Constructor;
import org.objenesis.ObjenesisStd;

/**
 * Kryo serializer for any {@link Throwable}: keeps the type, message, stack trace, cause and suppressed
 * exceptions, which is what a remote error needs. Fields a subclass adds are not kept (Throwable's own
 * fields are closed to reflection on a modern JDK). The exception is rebuilt through its {@code
 * (String)} constructor when it has one. Stateless and thread-safe.
 */
final class ThrowableSerializer extends Serializer<Throwable> {

    private static final ObjenesisStd OBJENESIS = new ObjenesisStd(true);

    @Override
    public void write(Kryo kryo, Output output, Throwable error) {
        output.writeString(error.getMessage());
        StackTraceElement[] stack = error.getStackTrace();
        output.writeVarInt(stack.length, true);
        for (StackTraceElement e : stack) {
            output.writeString(e.getClassLoaderName());
            output.writeString(e.getModuleName());
            output.writeString(e.getModuleVersion());
            output.writeString(e.getClassName());
            output.writeString(e.getMethodName());
            output.writeString(e.getFileName());
            output.writeVarInt(e.getLineNumber(), false);
        }
        Throwable cause = error.getCause();
        kryo.writeClassAndObject(output, cause == error ? null : cause);
        Throwable[] suppressed = error.getSuppressed();
        output.writeVarInt(suppressed.length, true);
        for (Throwable s : suppressed) {
            kryo.writeClassAndObject(output, s);
        }
    }

    @Override
    public Throwable read(Kryo kryo, Input input, Class<? extends Throwable> type) {
        String message = input.readString();
        Throwable error = instantiate(type, message);
        kryo.reference(error);
        int depth = input.readVarInt(true);
        StackTraceElement[] stack = new StackTraceElement[depth];
        for (int i = 0; i < depth; i++) {
            stack[i] = new StackTraceElement(input.readString(), input.readString(), input.readString(),
                    input.readString(), input.readString(), input.readString(), input.readVarInt(false));
        }
        error.setStackTrace(stack);
        Object cause = kryo.readClassAndObject(input);
        if (cause instanceof Throwable t && error.getCause() == null) {
            try {
                error.initCause(t);
            } catch (IllegalStateException | IllegalArgumentException alreadySet) {
                // The constructor fixed the cause; keep it.
            }
        }
        int suppressed = input.readVarInt(true);
        for (int i = 0; i < suppressed; i++) {
            if (kryo.readClassAndObject(input) instanceof Throwable t && t != error) {
                error.addSuppressed(t);
            }
        }
        return error;
    }

    private static Throwable instantiate(Class<? extends Throwable> type, String message) {
        try {
            Constructor<? extends Throwable> withMessage = type.getDeclaredConstructor(String.class);
            withMessage.setAccessible(true);
            return withMessage.newInstance(message);
        } catch (ReflectiveOperationException | RuntimeException noMessageConstructor) {
            try {
                Constructor<? extends Throwable> plain = type.getDeclaredConstructor();
                plain.setAccessible(true);
                return plain.newInstance();
            } catch (ReflectiveOperationException | RuntimeException noPlainConstructor) {
                return OBJENESIS.newInstance(type);
            }
        }
    }
}
