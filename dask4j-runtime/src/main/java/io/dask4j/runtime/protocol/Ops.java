package io.dask4j.runtime.protocol;

/**
 * Operation names of the runtime protocol, shared by scheduler, workers and clients.
 *
 * <pre>
 * client -> scheduler : register-client, update-graph, update-data, release-keys, get-workers,
 *                       functions-forgotten, close-client
 * scheduler -> client : registered, keys-in-memory, task-erred, key-lost, workers, forget-functions, error
 * worker -> scheduler : register-worker, heartbeat, tasks-finished, task-erred, missing-data, data-lost
 * scheduler -> worker : registered, compute-tasks, free-keys, free-functions, close, error
 * anyone -> worker    : get-data (reply: data), put-data (reply: ok)
 * </pre>
 */
public final class Ops {
    public static final String REGISTER_CLIENT = "register-client";
    public static final String REGISTER_WORKER = "register-worker";
    public static final String REGISTERED = "registered";
    public static final String UPDATE_GRAPH = "update-graph";
    public static final String UPDATE_DATA = "update-data";
    public static final String RELEASE_KEYS = "release-keys";
    public static final String GET_WORKERS = "get-workers";
    public static final String WORKERS = "workers";
    public static final String CLOSE_CLIENT = "close-client";
    public static final String TASK_ERRED = "task-erred";
    public static final String KEY_LOST = "key-lost";
    public static final String ERROR = "error";
    public static final String HEARTBEAT = "heartbeat";
    public static final String MISSING_DATA = "missing-data";
    /** A worker lost its copy of {@code key} (a spill file that did not read back): as if it had never held it. */
    public static final String DATA_LOST = "data-lost";
    public static final String FREE_KEYS = "free-keys";
    public static final String CLOSE = "close";
    /** Function lifecycle: see the scheduler's {@code FunctionRegistry}. */
    public static final String FORGET_FUNCTIONS = "forget-functions";
    public static final String FUNCTIONS_FORGOTTEN = "functions-forgotten";
    public static final String FREE_FUNCTIONS = "free-functions";
    public static final String GET_DATA = "get-data";
    public static final String DATA = "data";
    public static final String PUT_DATA = "put-data";
    public static final String OK = "ok";
    /** Columnar forms of the per-task hot ops (see {@link ColumnBatch}). */
    public static final String COMPUTE_TASKS = "compute-tasks";
    public static final String TASKS_FINISHED = "tasks-finished";
    public static final String KEYS_IN_MEMORY = "keys-in-memory";

    private Ops() {
    }
}
