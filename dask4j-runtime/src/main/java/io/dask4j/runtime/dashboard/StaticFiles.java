package io.dask4j.runtime.dashboard;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The page's files, read once from this jar ({@code io/dask4j/runtime/dashboard/}). Only the names in
 * {@link #TYPES} are served, so no request path ever reaches the class path. Thread-safe.
 */
final class StaticFiles {
    static final Map<String, String> TYPES = Map.of(
            "index.html", "text/html; charset=utf-8",
            "dashboard.js", "text/javascript; charset=utf-8",
            "dashboard.css", "text/css; charset=utf-8");

    private final Map<String, byte[]> cache = new ConcurrentHashMap<>();

    /** The file's bytes, or null if {@code name} is not one of the page's files. */
    byte[] get(String name) {
        if (!TYPES.containsKey(name)) {
            return null;
        }
        return cache.computeIfAbsent(name, StaticFiles::load);
    }

    private static byte[] load(String name) {
        try (InputStream in = StaticFiles.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("dashboard resource " + name + " is missing from the jar");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
