// Writes Zarr v3 arrays with zarrita.js (an implementation independent of dask4j's reader) for ZarritaV3Test.
//
//   node write_v3.mjs <dir>
//
// For each case it writes <dir>/<name>.zarr through zarrita's create() and set(), and <dir>/<name>.expected.f8:
// every element, in C order, as a little-endian float64 (the values given to set(), converted by the typed array
// of the data type, and fill_value where a chunk was left unwritten). Before printing a case it reads the array
// back with zarrita's own get() and checks it equals the expected values. It prints one line per case:
//   <name>.zarr|<shape>|<chunk shape>|<codecs, as name or name:endian>
//
// What zarrita 0.7.5 encodes: bytes (either endianness), transpose, and zstd and blosc through numcodecs.js.
// Its own gzip codec only decodes, so gzip chunks are written by numcodecs.js's GZip (fflate), registered below
// under the v3 name. It cannot encode crc32c and cannot write sharded arrays ("set on sharded arrays" is
// unsupported), so those are not among the cases.
import * as zarr from "zarrita";
import FileSystemStore from "@zarrita/storage/fs";
import { writeFileSync } from "node:fs";
import { join } from "node:path";

zarr.registry.set("gzip", () => import("numcodecs/gzip").then((m) => m.default));

const dir = process.argv[2];
if (!dir) {
	console.error("usage: node write_v3.mjs <dir>");
	process.exit(2);
}
const root = zarr.root(new FileSystemStore(dir));

const little = { name: "bytes", configuration: { endian: "little" } };
const big = { name: "bytes", configuration: { endian: "big" } };
const transpose = { name: "transpose", configuration: { order: [1, 0] } };

// Non-trivial values: distinct per element, signed, with a few special ones for the float types.
function float(i, j, cols) {
	const v = i * cols + j + 0.5;
	return j % 3 === 1 ? -v : v;
}
function special(data, n) {
	data[3 % n] = NaN;
	data[7 % n] = -Infinity;
	data[11 % n] = -0;
}

const cases = [
	{ name: "f8_le_edges_hole", dtype: "float64", shape: [23, 17], chunks: [5, 4], codecs: [little], fill: NaN,
		hole: [1, 1], value: float, special },
	{ name: "f8_be", dtype: "float64", shape: [19, 13], chunks: [4, 6], codecs: [big], fill: -1.5, hole: [2, 0],
		value: float, special },
	{ name: "f4_transpose", dtype: "float32", shape: [15, 22], chunks: [4, 5], codecs: [transpose, little], fill: 0.25,
		hole: [3, 4], value: (i, j, cols) => float(i, j, cols) / 3, special },
	{ name: "f8_gzip", dtype: "float64", shape: [21, 18], chunks: [6, 7], fill: 2.5, hole: [0, 2],
		codecs: [little, { name: "gzip", configuration: { level: 5 } }], value: float, special },
	{ name: "f8_zstd_dot_keys", dtype: "float64", shape: [17, 16], chunks: [5, 5], separator: ".", fill: -3,
		codecs: [little, { name: "zstd", configuration: { level: 3, checksum: false } }], value: float, special },
	{ name: "f8_blosc_lz4", dtype: "float64", shape: [40, 33], chunks: [16, 16], fill: 0,
		codecs: [little, { name: "blosc", configuration: { cname: "lz4", clevel: 5, shuffle: "shuffle", typesize: 8, blocksize: 0 } }],
		value: float, special },
	{ name: "i32_zstd", dtype: "int32", shape: [31, 29], chunks: [8, 8], fill: 7, hole: [2, 3],
		codecs: [little, { name: "zstd", configuration: { level: 1, checksum: false } }],
		value: (i, j, cols) => (i * cols + j) * (j % 2 ? -40503 : 40503) },
	{ name: "i16_transpose_be", dtype: "int16", shape: [13, 11], chunks: [5, 4], codecs: [transpose, big], fill: -9,
		value: (i, j, cols) => (i * cols + j) * (i % 2 ? -211 : 211) },
	{ name: "u8_blosc_zstd", dtype: "uint8", shape: [26, 35], chunks: [10, 12], fill: 200, hole: [1, 2],
		codecs: [little, { name: "blosc", configuration: { cname: "zstd", clevel: 3, shuffle: "bitshuffle", typesize: 1, blocksize: 0 } }],
		value: (i, j, cols) => (i * cols + j) % 251 },
	{ name: "i64_gzip_be", dtype: "int64", shape: [9, 14], chunks: [4, 4], fill: -1,
		codecs: [big, { name: "gzip", configuration: { level: 1 } }],
		value: (i, j, cols) => (i * cols + j) * (j % 2 ? -1000000007 : 999999937) },
	{ name: "vector_f8_gzip", dtype: "float64", shape: [100], chunks: [16], fill: NaN, hole: [2],
		codecs: [little, { name: "gzip", configuration: { level: 5 } }], value: (i, j, cols) => float(i, j, cols) * 1.25, special },
	{ name: "vector_u16_be", dtype: "uint16", shape: [75], chunks: [20], fill: 1, codecs: [big],
		value: (i, j) => (j * 877) % 65536 },
];

const typed = { float64: Float64Array, float32: Float32Array, int64: BigInt64Array, int32: Int32Array,
	int16: Int16Array, uint16: Uint16Array, uint8: Uint8Array };

function describe(codecs) {
	return codecs.map((c) => (c.name === "bytes" ? `bytes:${c.configuration.endian}` : c.name)).join(",");
}

// The rectangles of the array outside chunk `hole` (or the whole array), each a [r0, r1, c0, c1].
function regions(rows, cols, chunks, hole) {
	if (!hole) {
		return [[0, rows, 0, cols]];
	}
	const [cr, cc] = chunks;
	const [hi, hj] = hole;
	const h0 = hi * cr, h1 = Math.min(rows, (hi + 1) * cr), w0 = hj * cc, w1 = Math.min(cols, (hj + 1) * cc);
	return [[0, h0, 0, cols], [h0, h1, 0, w0], [h0, h1, w1, cols], [h1, rows, 0, cols]]
		.filter(([r0, r1, c0, c1]) => r0 < r1 && c0 < c1);
}

for (const c of cases) {
	const oneD = c.shape.length === 1;
	const rows = oneD ? 1 : c.shape[0];
	const cols = c.shape[c.shape.length - 1];
	const chunks = oneD ? [1, c.chunks[0]] : c.chunks;
	const hole = c.hole && (oneD ? [0, c.hole[0]] : c.hole);
	const T = typed[c.dtype];
	const isBig = T === BigInt64Array;
	const data = new T(rows * cols);
	for (let i = 0; i < rows; i++) {
		for (let j = 0; j < cols; j++) {
			const v = c.value(i, j, cols);
			data[i * cols + j] = isBig ? BigInt(v) : v;
		}
	}
	if (c.special) {
		c.special(data, rows * cols);
	}
	const expected = new Float64Array(rows * cols);
	for (let k = 0; k < expected.length; k++) {
		expected[k] = Number(data[k]);
	}
	const arr = await zarr.create(root.resolve(`${c.name}.zarr`), {
		shape: c.shape, chunkShape: c.chunks, dtype: c.dtype, codecs: c.codecs, fillValue: c.fill,
		chunkSeparator: c.separator,
	});
	for (const [r0, r1, c0, c1] of regions(rows, cols, chunks, hole)) {
		const sub = new T((r1 - r0) * (c1 - c0));
		for (let i = r0; i < r1; i++) {
			sub.set(data.subarray(i * cols + c0, i * cols + c1), (i - r0) * (c1 - c0));
		}
		const selection = oneD ? [zarr.slice(c0, c1)] : [zarr.slice(r0, r1), zarr.slice(c0, c1)];
		const shape = oneD ? [c1 - c0] : [r1 - r0, c1 - c0];
		const stride = oneD ? [1] : [c1 - c0, 1];
		await zarr.set(arr, selection, { data: sub, shape, stride });
	}
	if (hole) {
		const [hi, hj] = hole;
		for (let i = hi * chunks[0]; i < Math.min(rows, (hi + 1) * chunks[0]); i++) {
			for (let j = hj * chunks[1]; j < Math.min(cols, (hj + 1) * chunks[1]); j++) {
				expected[i * cols + j] = c.fill;
			}
		}
	}
	const back = await zarr.get(await zarr.open(root.resolve(`${c.name}.zarr`), { kind: "array" }));
	// get() may return a strided view (after transpose, an F-order one).
	const [rs, cs] = oneD ? [0, back.stride[0]] : back.stride;
	for (let i = 0; i < rows; i++) {
		for (let j = 0; j < cols; j++) {
			const got = Number(back.data[i * rs + j * cs]);
			if (!Object.is(got, expected[i * cols + j])) {
				throw new Error(`${c.name}: zarrita reads ${got} at (${i}, ${j}), ${expected[i * cols + j]} was written`);
			}
		}
	}
	writeFileSync(join(dir, `${c.name}.expected.f8`), new Uint8Array(expected.buffer));
	console.log(`${c.name}.zarr|${c.shape.join(",")}|${c.chunks.join(",")}|${describe(c.codecs)}`);
}
