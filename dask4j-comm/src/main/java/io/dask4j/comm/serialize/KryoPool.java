package io.dask4j.comm.serialize;

import com.esotericsoftware.kryo.ClassResolver;
import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.io.Output;
import com.esotericsoftware.kryo.serializers.ClosureSerializer;
import com.esotericsoftware.kryo.serializers.ImmutableCollectionsSerializers;
import com.esotericsoftware.kryo.util.DefaultClassResolver;
import com.esotericsoftware.kryo.util.DefaultInstantiatorStrategy;
import com.esotericsoftware.kryo.util.Pool;
import com.esotericsoftware.minlog.Log;
import org.objenesis.strategy.StdInstantiatorStrategy;

/**
 * Pools of configured Kryo instances and output buffers (both not thread-safe). A pool rather than a
 * ThreadLocal: with a virtual thread per comm or task, thread-locals would build a Kryo per thread. Writers
 * (one pool per process) accept any class; readers (a pool per {@link Deserializer}) resolve classes through
 * its allow-list and never write, so no class reaches a reader's registrations without its check.
 */
final class KryoPool {

    private static final int MAX_POOLED = 64;

    static {
        // Kryo's Unsafe paths make JDK 25 print "terminally deprecated" warnings; its reflective paths
        // are fast enough for the small objects that go through it (bulk data travels as raw frames).
        if (System.getProperty("kryo.unsafe") == null) {
            System.setProperty("kryo.unsafe", "false");
        }
        // ClosureSerializer logs two warnings per Kryo about falling back to resolving lambdas through
        // their capturing class, which is exactly the path we want on a JDK that closes java.lang.invoke.
        Log.ERROR();
    }

    /**
     * One ClosureSerializer for every Kryo, built once under the class-initialization lock. Its constructor
     * fills static fields without synchronization: it publishes SerializedLambda's readResolve before making
     * it accessible, and sets it back to null when that fails (no --add-opens java.base/java.lang.invoke).
     * A constructor per Kryo therefore flipped the field while other threads read lambdas, and a worker and a
     * client in one JVM failed now and then with "Error reading closure". The serializer has no state of its
     * own, so sharing it is safe.
     */
    private static final ClosureSerializer CLOSURES = new ClosureSerializer();

    static final Pool<Kryo> WRITERS = new Pool<>(true, false, MAX_POOLED) {
        @Override
        protected Kryo create() {
            return newKryo(new DefaultClassResolver());
        }
    };

    static final Pool<Output> OUTPUTS = new Pool<>(true, false, MAX_POOLED) {
        @Override
        protected Output create() {
            return new Output(4096, -1);
        }
    };

    private KryoPool() {
    }

    /** A pool of readers that build only what {@code allowed} allows. */
    static Pool<Kryo> readers(ClassAllowList allowed) {
        return new Pool<>(true, false, MAX_POOLED) {
            @Override
            protected Kryo create() {
                return newKryo(new AllowListClassResolver(allowed));
            }
        };
    }

    private static Kryo newKryo(ClassResolver resolver) {
        Kryo kryo = new Kryo(resolver, null);
        // Classes travel by name; a reader's resolver decides which it may build.
        kryo.setRegistrationRequired(false);
        kryo.setReferences(true);
        kryo.setInstantiatorStrategy(new DefaultInstantiatorStrategy(new StdInstantiatorStrategy()));
        kryo.register(ClosureSerializer.Closure.class, CLOSURES);
        ImmutableCollectionsSerializers.addDefaultSerializers(kryo);
        JdkWrapperSerializers.addDefaultSerializers(kryo);
        kryo.addDefaultSerializer(Throwable.class, new ThrowableSerializer());
        kryo.addDefaultSerializer(java.util.UUID.class, new UuidSerializer());
        return kryo;
    }
}
