// The offline copy. web/build.sh writes the build's version below; a new version replaces the
// old cache.
// - The page's shell (HTML, script, style) is asked of the network first (a new build shows on
//   the next visit; the server answers 304 when nothing changed) and served from the cache
//   when offline.
// - The engine (the .wasm, named with its version) is fetched once per version: the worker is
//   registered after the page has loaded it, and takes it from the browser's HTTP cache
//   (`force-cache`), so it never crosses the network twice; then it is served from the cache.
const VERSION = 'dev';
const CACHE = `servitor-${VERSION}`;
const SHELL = ['./', 'index.html', 'app.js', 'style.css', 'manifest.webmanifest', 'icon.svg', 'pkg/servitor_web.js'];
const ENGINE = `pkg/servitor_web_bg.wasm?v=${VERSION}`;

self.addEventListener('install', (e) => {
  e.waitUntil(caches.open(CACHE)
    .then((c) => Promise.all([c.addAll(SHELL), c.add(new Request(ENGINE, { cache: 'force-cache' }))]))
    .then(() => self.skipWaiting()));
});

self.addEventListener('activate', (e) => {
  e.waitUntil(caches.keys()
    .then((keys) => Promise.all(keys.filter((k) => k !== CACHE).map((k) => caches.delete(k))))
    .then(() => self.clients.claim()));
});

self.addEventListener('fetch', (e) => {
  const url = new URL(e.request.url);
  if (e.request.method !== 'GET' || url.origin !== location.origin) return;
  e.respondWith(caches.open(CACHE).then((cache) => {
    if (url.pathname.endsWith('.wasm')) {
      // Cache first: the engine of a version never changes.
      return cache.match(e.request).then((hit) => hit || fetch(e.request).then((r) => {
        if (r.ok) cache.put(e.request, r.clone());
        return r;
      }));
    }
    // Network first: the shell of a new build at once; the cached copy offline.
    return fetch(e.request).then((r) => {
      if (r.ok) cache.put(e.request, r.clone());
      return r;
    }).catch(() => cache.match(e.request, { ignoreSearch: true }).then((hit) => hit || Response.error()));
  }));
});
