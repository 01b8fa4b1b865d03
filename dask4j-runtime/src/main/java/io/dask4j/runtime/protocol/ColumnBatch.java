package io.dask4j.runtime.protocol;

import io.dask4j.comm.Message;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Accumulates many small messages of one op as columns ({@code keys: [...], runs: [...]}) and turns
 * them into a single message: per task only a few list appends, instead of a map and a message each.
 * This is what keeps the per-task cost of the scheduler's hot ops (compute, finished, in-memory) low.
 *
 * <p>Thread-safe (synchronized); {@link #take()} empties it.
 */
public final class ColumnBatch {
    private final String op;
    private final String[] columns;
    private List<Object>[] values;
    private int rows;
    /** Column whose values repeat a lot (worker addresses): sent as indexes into {@code <column>_dict}. */
    private final int dictColumn;
    private Map<Object, Long> dict = new HashMap<>();
    private List<Object> dictValues = new ArrayList<>();

    public ColumnBatch(String op, String... columns) {
        this(op, -1, columns);
    }

    /** Like {@link #ColumnBatch(String, String...)}, with column {@code dictColumn} dictionary-encoded. */
    public ColumnBatch(String op, int dictColumn, String... columns) {
        this.op = op;
        this.columns = columns.clone();
        this.values = fresh();
        this.dictColumn = dictColumn;
    }

    @SuppressWarnings("unchecked")
    private List<Object>[] fresh() {
        List<Object>[] v = new List[columns.length];
        for (int i = 0; i < v.length; i++) {
            v[i] = new ArrayList<>();
        }
        return v;
    }

    /** Adds one row; {@code row} has one value per column, in order. Returns true if the batch was empty before. */
    public synchronized boolean add(Object... row) {
        for (int i = 0; i < columns.length; i++) {
            Object v = row[i];
            if (i == dictColumn) {
                Long index = dict.get(v);
                if (index == null) {
                    index = (long) dictValues.size();
                    dict.put(v, index);
                    dictValues.add(v);
                }
                v = index;
            }
            values[i].add(v);
        }
        return rows++ == 0;
    }

    public synchronized boolean isEmpty() {
        return rows == 0;
    }

    /** The accumulated rows as one message, or null if there are none. */
    public synchronized Message take() {
        if (rows == 0) {
            return null;
        }
        Map<String, Object> fields = new HashMap<>(columns.length * 2);
        for (int i = 0; i < columns.length; i++) {
            fields.put(columns[i], values[i]);
        }
        if (dictColumn >= 0) {
            fields.put(columns[dictColumn] + "_dict", dictValues);
            dict = new HashMap<>();
            dictValues = new ArrayList<>();
        }
        values = fresh();
        rows = 0;
        return Message.of(op, fields);
    }

    /** Row {@code i} of a dictionary-encoded column of {@code m}. */
    public static Object decoded(Message m, String column, List<Object> indexes, int i) {
        List<Object> dictionary = m.getList(column + "_dict");
        if (!(indexes.get(i) instanceof Number n) || n.intValue() < 0 || n.intValue() >= dictionary.size()) {
            throw new io.dask4j.comm.ProtocolException("'" + m.op() + "': bad dictionary index in " + column);
        }
        return dictionary.get(n.intValue());
    }

    /** The number of rows of a columnar message, checking that every column has it. */
    public static int rows(Message m, String... columns) {
        int n = m.getList(columns[0]).size();
        for (String c : columns) {
            if (m.getList(c).size() != n) {
                throw new io.dask4j.comm.ProtocolException("columns of '" + m.op() + "' differ in length");
            }
        }
        return n;
    }
}
