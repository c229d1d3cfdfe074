// The download of the page: every file of a built web/dist, raw, gzip and brotli (as a server
// would send it compressed). `node web/size.mjs web/dist [--write]`: with --write, each file's
// .gz and .br are written beside it (web/build.sh does, for web/serve.mjs and static hosts).
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync, brotliCompressSync, constants } from 'node:zlib';

const root = process.argv[2] || 'web/dist';
const write = process.argv.includes('--write');
const files = [];
(function walk(dir) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p);
    else if (!/\.(gz|br)$/.test(p)) files.push(p);
  }
})(root);
let raw = 0, gz = 0, br = 0;
const kb = (n) => `${(n / 1024).toFixed(0)} KiB`;
for (const f of files.sort()) {
  const b = readFileSync(f);
  const gzb = gzipSync(b, { level: 9 });
  const brb = brotliCompressSync(b, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: b.length } });
  if (write) { writeFileSync(`${f}.gz`, gzb); writeFileSync(`${f}.br`, brb); }
  const g = gzb.length, r = brb.length;
  raw += b.length; gz += g; br += r;
  console.log(`${f.slice(root.length + 1).padEnd(28)} ${kb(b.length).padStart(10)} ${kb(g).padStart(10)} gzip ${kb(r).padStart(10)} brotli`);
}
console.log(`${'total'.padEnd(28)} ${kb(raw).padStart(10)} ${kb(gz).padStart(10)} gzip ${kb(br).padStart(10)} brotli`);
