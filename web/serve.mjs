// Serves the built page (web/dist, from web/build.sh).
//
//   node web/serve.mjs [PORT] [FOLDER]          this machine only: http://127.0.0.1:PORT/
//   node web/serve.mjs --lan [PORT] [FOLDER]    the local network, over HTTPS (a phone at the
//                                               table); see README "At the table on a phone"
//
// Port 0 picks a free one; the first line printed is the address. With --lan a certificate
// authority and a certificate for this machine's addresses are made by `openssl` on the first
// run (in $SERVITOR_CERTS, default ~/.config/servitor/certs) and kept: the phone trusts the
// authority once (it is served at /servitor-ca.pem) and the page is a secure context, so its
// service worker keeps the offline copy.
//
// Each file is sent as web/build.sh precompressed it (.br or .gz beside it) when the browser
// accepts it, with an ETag: a visit when nothing changed is answered with 304s.
import { createServer as http } from 'node:http';
import { createServer as https } from 'node:https';
import { readFile, stat } from 'node:fs/promises';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { networkInterfaces, homedir } from 'node:os';
import { extname, join, normalize, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const lan = args.includes('--lan');
const rest = args.filter((a) => a !== '--lan');
const port = Number(rest[0] ?? process.env.PORT ?? 8080);
const root = resolve(rest[1] ?? join(dirname(fileURLToPath(import.meta.url)), 'dist'));
const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8', '.wasm': 'application/wasm', '.json': 'application/json',
  '.webmanifest': 'application/manifest+json', '.svg': 'image/svg+xml', '.png': 'image/png',
  '.pem': 'application/x-x509-ca-cert',
};
// For the tests' byte count: every byte written to a socket, served at /__bytes when asked.
const counting = process.env.SERVITOR_COUNT_BYTES === '1';
let written = 0;
const sockets = new Set();

function addresses() {
  const out = [];
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list || []) if (a.family === 'IPv4' && !a.internal) out.push(a.address);
  }
  return out;
}

/// The authority and this machine's certificate, made once by openssl.
function certificate() {
  const dir = process.env.SERVITOR_CERTS || join(homedir(), '.config/servitor/certs');
  const names = addresses();
  const want = ['DNS:localhost', 'IP:127.0.0.1', ...names.map((a) => `IP:${a}`)].join(',');
  const sanFile = join(dir, 'san.txt');
  const have = existsSync(sanFile) ? readFileSync(sanFile, 'utf8') : '';
  if (have !== want || !existsSync(join(dir, 'cert.pem'))) {
    mkdirSync(dir, { recursive: true });
    const ssl = (...a) => execFileSync('openssl', a, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
    if (!existsSync(join(dir, 'ca.pem'))) {
      ssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca-key.pem', '-out', 'ca.pem', '-days', '3650',
        '-subj', '/CN=servitor at the table (local)', '-addext', 'basicConstraints=critical,CA:TRUE',
        '-addext', 'keyUsage=critical,keyCertSign,cRLSign');
    }
    writeFileSync(join(dir, 'ext.txt'), `subjectAltName=${want}\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n`);
    ssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'key.pem', '-out', 'req.pem', '-subj', '/CN=servitor');
    ssl('x509', '-req', '-in', 'req.pem', '-CA', 'ca.pem', '-CAkey', 'ca-key.pem', '-CAcreateserial',
      '-out', 'cert.pem', '-days', '800', '-extfile', 'ext.txt');
    writeFileSync(sanFile, want);
  }
  return { dir, key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')), ca: join(dir, 'ca.pem') };
}

const cert = lan ? certificate() : null;

async function handle(req, res) {
  let path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
  if (counting && path === '/__bytes') {
    const open = [...sockets].reduce((n, s) => n + s.bytesWritten, 0);
    res.writeHead(200, { 'content-type': 'text/plain', 'cache-control': 'no-store' }).end(String(written + open));
    return;
  }
  if (path.endsWith('/')) path += 'index.html';
  let file = normalize(join(root, path));
  if (cert && path === '/servitor-ca.pem') file = cert.ca;
  else if (!file.startsWith(root)) { res.writeHead(403).end(); return; }
  try {
    const info = await stat(file);
    const etag = `"${info.size.toString(36)}-${Math.floor(info.mtimeMs).toString(36)}"`;
    const head = {
      'content-type': TYPES[extname(file)] || 'application/octet-stream',
      // Always asked again (a new build shows on the next visit), answered 304 when unchanged.
      'cache-control': 'no-cache',
      etag,
      vary: 'accept-encoding',
    };
    if (req.headers['if-none-match'] === etag) { res.writeHead(304, head).end(); return; }
    const accepts = String(req.headers['accept-encoding'] || '');
    let body = null;
    for (const [enc, ext] of [['br', '.br'], ['gzip', '.gz']]) {
      if (body || !accepts.includes(enc) || !existsSync(file + ext)) continue;
      body = await readFile(file + ext);
      head['content-encoding'] = enc;
    }
    body ??= await readFile(file);
    res.writeHead(200, head);
    res.end(req.method === 'HEAD' ? undefined : body);
  } catch {
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  }
}

const server = cert ? https({ key: cert.key, cert: cert.cert }, handle) : http(handle);
server.on('connection', (s) => {
  sockets.add(s);
  s.on('close', () => { written += s.bytesWritten; sockets.delete(s); });
});
server.listen(port, lan ? '0.0.0.0' : '127.0.0.1', () => {
  const p = server.address().port;
  if (!lan) {
    console.log(`serving ${root} on http://127.0.0.1:${p}/`);
    return;
  }
  const urls = addresses().map((a) => `https://${a}:${p}/`);
  console.log(`serving ${root} on ${urls[0] || `https://127.0.0.1:${p}/`}`);
  for (const u of urls.slice(1)) console.log(`  also ${u}`);
  console.log(`  the phone trusts ${cert.ca} once: open ${urls[0] || ''}servitor-ca.pem (README "At the table on a phone")`);
});
