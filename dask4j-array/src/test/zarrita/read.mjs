// Reads a Zarr array (v2 or v3) with zarrita.js for ZarritaV3Test's other direction: arrays dask4j wrote.
//
//   node read.mjs <array dir> <out.f8>
//
// Writes every element, in C order, as a little-endian float64 to <out.f8> and prints "<shape> <data type>".
import * as zarr from "zarrita";
import FileSystemStore from "@zarrita/storage/fs";
import { writeFileSync } from "node:fs";

const [dir, out] = process.argv.slice(2);
if (!dir || !out) {
	console.error("usage: node read.mjs <array dir> <out.f8>");
	process.exit(2);
}
const arr = await zarr.open(new FileSystemStore(dir), { kind: "array" });
const got = await zarr.get(arr);
// get() may return a strided view; walk it in C order.
const n = got.shape.reduce((a, b) => a * b, 1);
const values = new Float64Array(n);
for (let k = 0; k < n; k++) {
	let rest = k;
	let at = 0;
	for (let d = got.shape.length - 1; d >= 0; d--) {
		at += (rest % got.shape[d]) * got.stride[d];
		rest = Math.floor(rest / got.shape[d]);
	}
	values[k] = Number(got.data[at]);
}
writeFileSync(out, new Uint8Array(values.buffer));
console.log(`${got.shape.join(",")} ${arr.dtype}`);
