package io.dask4j.array.io;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Zarr metadata of the wrong types: every key of a valid {@code .zarray} and {@code zarr.json} (and of the
 * sharding codec's configuration), in turn given each value of another JSON type or an absurd one. Opening each
 * must either succeed or fail with an {@link ArrayFileException} naming the array, never another exception (a
 * {@code ClassCastException} says nothing of which file is wrong); one that succeeds must read a block.
 */
class HostileZarrMetadataTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final List<Object> WRONG = java.util.Arrays.asList("abc", -1, 0, 1.5, 1e300, new java.math.BigInteger("99999999999999999999"),
            List.of(), List.of(List.of(1)), List.of(-1, 4), List.of(4, "x"), Map.of(), Map.of("name", 5), true, null, "/../../x");

    private static final String V2 = """
            {"zarr_format": 2, "shape": [6, 5], "chunks": [4, 4], "dtype": "<f8", "compressor": {"id": "zstd", "level": 1},
             "fill_value": 0, "order": "C", "filters": null, "dimension_separator": "."}""";
    private static final String V3 = """
            {"zarr_format": 3, "node_type": "array", "shape": [6, 5], "data_type": "float64",
             "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4, 4]}},
             "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}}, "fill_value": 0,
             "codecs": [{"name": "sharding_indexed", "configuration": {"chunk_shape": [2, 2],
                 "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "gzip", "configuration": {"level": 1}}],
                 "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}], "index_location": "end"}}]}""";

    /** Every variant of {@code json} with one value, at any depth of objects, replaced by each of {@link #WRONG}. */
    @SuppressWarnings("unchecked")
    private static List<String> variants(String json) throws IOException {
        List<String> out = new ArrayList<>();
        Map<String, Object> m = JSON.readValue(json, LinkedHashMap.class);
        List<List<Object>> paths = new ArrayList<>();
        collect(m, new ArrayList<>(), paths);
        for (List<Object> path : paths) {
            for (Object wrong : WRONG) {
                Map<String, Object> copy = JSON.readValue(json, LinkedHashMap.class);
                Object parent = copy;
                for (Object step : path.subList(0, path.size() - 1)) {
                    parent = step instanceof Integer i ? ((List<Object>) parent).get(i) : ((Map<String, Object>) parent).get(step);
                }
                Object last = path.getLast();
                if (last instanceof Integer i) {
                    ((List<Object>) parent).set(i, wrong);
                } else {
                    ((Map<String, Object>) parent).put((String) last, wrong);
                }
                out.add(JSON.writeValueAsString(copy));
            }
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    private static void collect(Object node, List<Object> at, List<List<Object>> paths) {
        if (node instanceof Map<?, ?> map) {
            for (Map.Entry<String, Object> e : ((Map<String, Object>) map).entrySet()) {
                List<Object> p = new ArrayList<>(at);
                p.add(e.getKey());
                paths.add(p);
                collect(e.getValue(), p, paths);
            }
        } else if (node instanceof List<?> list) {
            for (int i = 0; i < list.size(); i++) {
                List<Object> p = new ArrayList<>(at);
                p.add(i);
                paths.add(p);
                collect(list.get(i), p, paths);
            }
        }
    }

    @Test
    void everyWronglyTypedValueOpensOrIsRefusedByName(@TempDir Path dir) throws IOException {
        List<String> wrong = new ArrayList<>();
        int refused = 0;
        for (String[] format : new String[][]{{".zarray", V2}, {"zarr.json", V3}}) {
            List<String> metadata = variants(format[1]);
            for (int k = 0; k < metadata.size(); k++) {
                Path z = Files.createDirectories(dir.resolve(format[0].substring(1, 6) + k));
                Files.writeString(z.resolve(format[0]), metadata.get(k));
                try {
                    ZarrArray a = ZarrArray.open(z);
                    assertThat(a.read(0, 0, Math.min(2, a.shape().rows()), Math.min(2, a.shape().cols()))).isNotNull();
                } catch (ArrayFileException e) {
                    refused++;
                    if (!e.file().equals(z.toString())) {
                        wrong.add(metadata.get(k) + " -> names " + e.file());
                    }
                } catch (Throwable e) {
                    wrong.add(metadata.get(k) + " -> " + e);
                }
            }
        }
        assertThat(wrong).as("metadata refused with something else than an ArrayFileException naming the array").isEmpty();
        assertThat(refused).isPositive();
    }

    @Test
    void aChunkKeySeparatorOtherThanDotOrSlashIsRefusedSoNoChunkIsReadOutsideTheArray(@TempDir Path dir) throws IOException {
        Path z = Files.createDirectories(dir.resolve("a.zarr"));
        Files.writeString(z.resolve(".zarray"), V2.replace("\"dimension_separator\": \".\"", "\"dimension_separator\": \"/../../\""));
        assertThatThrownBy(() -> ZarrArray.open(z)).isInstanceOf(ArrayFileException.class)
                .hasMessage(z + ": dimension_separator '/../../' is not supported (. and / are)");
        Path v3 = Files.createDirectories(dir.resolve("b.zarr"));
        Files.writeString(v3.resolve("zarr.json"), V3.replace("\"separator\": \"/\"", "\"separator\": \"/../\""));
        assertThatThrownBy(() -> ZarrArray.open(v3)).isInstanceOf(ArrayFileException.class)
                .hasMessage(v3 + ": chunk_key_encoding separator '/../' is not supported (. and / are)");
    }
}
