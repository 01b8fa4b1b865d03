package io.dask4j.comm.serialize;

import java.util.Set;

/**
 * The JDK classes every {@link ClassAllowList} allows: values a task passes around, none of which runs code
 * of its own choosing while it is rebuilt. Left out on purpose: classes that call into arbitrary objects when
 * rebuilt beyond {@code hashCode}/{@code equals}/{@code compareTo} of allowed elements ({@code
 * PriorityQueue}, {@code Hashtable}), proxies, {@code Class}, and anything from {@code java.lang.invoke},
 * {@code java.lang.reflect}, {@code javax} or {@code sun}. A sorted collection's comparator is a value of its
 * own and must be allowed in its own right. Stateless.
 */
final class JdkValueTypes {

    private static final Set<String> NAMES = Set.of(
            // java.lang
            "java.lang.Object", "java.lang.String", "java.lang.Boolean", "java.lang.Byte", "java.lang.Short",
            "java.lang.Character", "java.lang.Integer", "java.lang.Long", "java.lang.Float", "java.lang.Double",
            "java.lang.Number", "java.lang.Enum",
            "java.lang.Throwable", "java.lang.Exception", "java.lang.RuntimeException", "java.lang.Error",
            "java.lang.IllegalArgumentException", "java.lang.IllegalStateException", "java.lang.ArithmeticException",
            "java.lang.NullPointerException", "java.lang.UnsupportedOperationException",
            "java.lang.IndexOutOfBoundsException", "java.lang.ArrayIndexOutOfBoundsException",
            "java.lang.ClassCastException", "java.lang.NumberFormatException",
            "java.io.IOException", "java.io.UncheckedIOException",
            "java.util.NoSuchElementException", "java.util.ConcurrentModificationException",
            "java.util.concurrent.TimeoutException", "java.util.concurrent.CancellationException",
            "java.util.concurrent.ExecutionException",
            // java.math
            "java.math.BigInteger", "java.math.BigDecimal", "java.math.RoundingMode", "java.math.MathContext",
            // java.util collections and values
            "java.util.ArrayList", "java.util.LinkedList", "java.util.ArrayDeque", "java.util.HashMap",
            "java.util.LinkedHashMap", "java.util.TreeMap", "java.util.HashSet", "java.util.LinkedHashSet",
            "java.util.TreeSet", "java.util.EnumMap", "java.util.EnumSet", "java.util.RegularEnumSet",
            "java.util.JumboEnumSet", "java.util.BitSet", "java.util.UUID", "java.util.Optional",
            "java.util.OptionalInt", "java.util.OptionalLong", "java.util.OptionalDouble", "java.util.Date",
            "java.util.Locale", "java.util.Currency", "java.util.Arrays$ArrayList",
            "java.util.AbstractMap$SimpleEntry", "java.util.AbstractMap$SimpleImmutableEntry",
            "java.util.ImmutableCollections$List12", "java.util.ImmutableCollections$ListN",
            "java.util.ImmutableCollections$SubList", "java.util.ImmutableCollections$Set12",
            "java.util.ImmutableCollections$SetN", "java.util.ImmutableCollections$Map1",
            "java.util.ImmutableCollections$MapN",
            "java.util.Collections$EmptyList", "java.util.Collections$EmptySet", "java.util.Collections$EmptyMap",
            "java.util.Collections$SingletonList", "java.util.Collections$SingletonSet",
            "java.util.Collections$SingletonMap", "java.util.Collections$ReverseComparator",
            "java.util.Collections$UnmodifiableCollection", "java.util.Collections$UnmodifiableList",
            "java.util.Collections$UnmodifiableRandomAccessList", "java.util.Collections$UnmodifiableSet",
            "java.util.Collections$UnmodifiableSortedSet", "java.util.Collections$UnmodifiableNavigableSet",
            "java.util.Collections$UnmodifiableMap", "java.util.Collections$UnmodifiableSortedMap",
            "java.util.Collections$UnmodifiableNavigableMap", "java.util.Collections$SynchronizedCollection",
            "java.util.Collections$SynchronizedList", "java.util.Collections$SynchronizedRandomAccessList",
            "java.util.Collections$SynchronizedSet", "java.util.Collections$SynchronizedMap",
            "java.util.Comparators$NaturalOrderComparator",
            "java.util.concurrent.ConcurrentHashMap", "java.util.concurrent.CopyOnWriteArrayList",
            // java.time
            "java.time.Duration", "java.time.Instant", "java.time.LocalDate", "java.time.LocalTime",
            "java.time.LocalDateTime", "java.time.ZonedDateTime", "java.time.OffsetDateTime",
            "java.time.OffsetTime", "java.time.ZoneOffset", "java.time.ZoneRegion", "java.time.ZoneId",
            "java.time.Period", "java.time.Year", "java.time.YearMonth", "java.time.MonthDay",
            "java.time.DayOfWeek", "java.time.Month");

    private JdkValueTypes() {
    }

    static boolean contains(String className) {
        return NAMES.contains(className);
    }
}
