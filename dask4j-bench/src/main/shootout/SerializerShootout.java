import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import com.esotericsoftware.kryo.serializers.ClosureSerializer;
import com.esotericsoftware.kryo.serializers.ImmutableCollectionsSerializers;
import com.esotericsoftware.kryo.util.DefaultInstantiatorStrategy;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.fory.Fory;
import org.apache.fory.ThreadSafeFory;
import org.apache.fory.config.Language;
import org.objenesis.strategy.StdInstantiatorStrategy;

/**
 * Kryo 5.6 vs Fory 1.6 on what dask4j ships through the object codec (task specs, small results, lambdas),
 * configured as dask4j needs (no registration, references on). Not part of the Maven build (Fory is not a
 * dependency); run with the source launcher, see the comm issue note:
 *   java --sun-misc-unsafe-memory-access=allow -cp kryo.jar:reflectasm.jar:objenesis.jar:minlog.jar:fory-core.jar:guava.jar \
 *        dask4j-bench/src/main/shootout/SerializerShootout.java
 */
public class SerializerShootout {

    record Point(double x, double y) implements Serializable {
    }

    record Task(String key, List<String> dependencies, Map<String, Object> options, List<Point> points) implements Serializable {
    }

    public static void main(String[] args) {
        List<Point> points = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            points.add(new Point(i, -i));
        }
        Map<String, Object> options = new HashMap<>(Map.of("retries", 3, "priority", 1.5, "resources", "cpu"));
        Task task = new Task("('x-1234', 3, 7)", new ArrayList<>(List.of("('a', 3)", "('b', 7)")), options, points);
        int offset = 7;
        Function<Integer, Integer> lambda = (Function<Integer, Integer> & Serializable) x -> x + offset;

        Kryo kryo = new Kryo();
        com.esotericsoftware.minlog.Log.ERROR();
        kryo.setClassLoader(SerializerShootout.class.getClassLoader());
        kryo.setRegistrationRequired(false);
        kryo.setReferences(true);
        kryo.setInstantiatorStrategy(new DefaultInstantiatorStrategy(new StdInstantiatorStrategy()));
        kryo.register(ClosureSerializer.Closure.class, new ClosureSerializer());
        ImmutableCollectionsSerializers.addDefaultSerializers(kryo);
        Output output = new Output(4096, -1);

        ThreadSafeFory fory = Fory.builder().withLanguage(Language.JAVA).requireClassRegistration(false)
                .withRefTracking(true).buildThreadSafeFory();

        for (Object value : new Object[] {task, lambda}) {
            String name = value == task ? "task record" : "lambda";
            Object k = kryo.readClassAndObject(new Input(kryoBytes(kryo, output, value)));
            Object f = fory.deserialize(fory.serialize(value));
            System.out.printf("%s: kryo %d B (round trip ok: %s), fory %d B (round trip ok: %s)%n", name,
                    kryoBytes(kryo, output, value).length, check(value, k), fory.serialize(value).length, check(value, f));
            for (int round = 0; round < 3; round++) {
                long kNs = time(() -> kryo.readClassAndObject(new Input(kryoBytes(kryo, output, value))));
                long fNs = time(() -> fory.deserialize(fory.serialize(value)));
                System.out.printf("  round %d: encode+decode kryo %6d ns, fory %6d ns%n", round, kNs, fNs);
            }
        }
    }

    @SuppressWarnings("unchecked")
    private static boolean check(Object original, Object copy) {
        if (original instanceof Function<?, ?> fn) {
            return ((Function<Integer, Integer>) copy).apply(1).equals(((Function<Integer, Integer>) fn).apply(1));
        }
        return original.equals(copy);
    }

    private static byte[] kryoBytes(Kryo kryo, Output output, Object value) {
        output.reset();
        kryo.writeClassAndObject(output, value);
        return output.toBytes();
    }

    /** Median of 20 batches of 10,000 round trips, after 100,000 warm-up ones. */
    private static long time(Runnable r) {
        for (int i = 0; i < 100_000; i++) {
            r.run();
        }
        long[] batches = new long[20];
        for (int b = 0; b < batches.length; b++) {
            long start = System.nanoTime();
            for (int i = 0; i < 10_000; i++) {
                r.run();
            }
            batches[b] = (System.nanoTime() - start) / 10_000;
        }
        java.util.Arrays.sort(batches);
        return batches[batches.length / 2];
    }
}
