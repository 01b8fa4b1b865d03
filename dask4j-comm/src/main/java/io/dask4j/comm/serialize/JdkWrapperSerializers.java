package io.dask4j.comm.serialize;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.Serializer;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.LinkedList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.NavigableSet;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * Kryo serializers for the JDK's collection wrappers ({@code Collections.unmodifiable*}, {@code
 * synchronized*}, {@code Arrays.asList}), whose private fields Kryo's field serializer cannot reach on a
 * modern JDK without {@code --add-opens}. Each is written as a plain copy of its contents and wrapped
 * again on reading. Stateless; registered once per Kryo instance.
 */
final class JdkWrapperSerializers {

    private JdkWrapperSerializers() {
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    static void addDefaultSerializers(Kryo kryo) {
        add(kryo, Collections.unmodifiableCollection(new ArrayList<>()), c -> new ArrayList<>((Collection) c),
                c -> Collections.unmodifiableCollection((Collection) c));
        add(kryo, Collections.unmodifiableList(new ArrayList<>()), c -> new ArrayList<>((List) c),
                c -> Collections.unmodifiableList((List) c));
        add(kryo, Collections.unmodifiableList(new LinkedList<>()), c -> new ArrayList<>((List) c),
                c -> Collections.unmodifiableList((List) c));
        add(kryo, Collections.unmodifiableSet(new HashSet<>()), c -> new LinkedHashSet<>((Set) c),
                c -> Collections.unmodifiableSet((Set) c));
        add(kryo, Collections.unmodifiableSortedSet(new TreeSet<>()), c -> new TreeSet<>((SortedSet) c),
                c -> Collections.unmodifiableSortedSet((SortedSet) c));
        add(kryo, Collections.unmodifiableNavigableSet(new TreeSet<>()), c -> new TreeSet<>((SortedSet) c),
                c -> Collections.unmodifiableNavigableSet((NavigableSet) c));
        add(kryo, Collections.unmodifiableMap(new HashMap<>()), m -> new LinkedHashMap<>((Map) m),
                m -> Collections.unmodifiableMap((Map) m));
        add(kryo, Collections.unmodifiableSortedMap(new TreeMap<>()), m -> new TreeMap<>((SortedMap) m),
                m -> Collections.unmodifiableSortedMap((SortedMap) m));
        add(kryo, Collections.unmodifiableNavigableMap(new TreeMap<>()), m -> new TreeMap<>((SortedMap) m),
                m -> Collections.unmodifiableNavigableMap((NavigableMap) m));
        add(kryo, Collections.synchronizedList(new ArrayList<>()), c -> new ArrayList<>((List) c),
                c -> Collections.synchronizedList((List) c));
        add(kryo, Collections.synchronizedSet(new HashSet<>()), c -> new LinkedHashSet<>((Set) c),
                c -> Collections.synchronizedSet((Set) c));
        add(kryo, Collections.synchronizedMap(new HashMap<>()), m -> new LinkedHashMap<>((Map) m),
                m -> Collections.synchronizedMap((Map) m));
        add(kryo, Arrays.asList(1, 2), c -> new ArrayList<>((List) c), c -> Arrays.asList(((List) c).toArray()));
    }

    private static void add(Kryo kryo, Object sample, Function<Object, Object> unwrap, Function<Object, Object> wrap) {
        kryo.addDefaultSerializer(sample.getClass(), new Serializer<>() {
            @Override
            public void write(Kryo k, Output output, Object object) {
                k.writeClassAndObject(output, unwrap.apply(object));
            }

            @Override
            public Object read(Kryo k, Input input, Class<?> type) {
                return wrap.apply(k.readClassAndObject(input));
            }
        });
    }
}
