// The download of the page: every file of a built web/dist, raw, gzip and brotli (as a server
// would send it compressed). `node web/size.mjs web/dist`
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync, brotliCompressSync, constants } from 'node:zlib';

const root = process.argv[2] || 'web/dist';
const files = [];
(function walk(dir) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p);
    else files.push(p);
  }
})(root);
let raw = 0, gz = 0, br = 0;
const kb = (n) => `${(n / 1024).toFixed(0)} KiB`;
for (const f of files.sort()) {
  const b = readFileSync(f);
  const g = gzipSync(b, { level: 9 }).length;
  const r = brotliCompressSync(b, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length;
  raw += b.length; gz += g; br += r;
  console.log(`${f.slice(root.length + 1).padEnd(28)} ${kb(b.length).padStart(10)} ${kb(g).padStart(10)} gzip ${kb(r).padStart(10)} brotli`);
}
console.log(`${'total'.padEnd(28)} ${kb(raw).padStart(10)} ${kb(gz).padStart(10)} gzip ${kb(br).padStart(10)} brotli`);
