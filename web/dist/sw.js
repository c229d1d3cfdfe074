// The offline copy: the page and the engine, cached at the first visit and served from the
// cache from then on (the network is asked first, so a new build is picked up when online).
// web/build.sh writes the build's version below; a new version replaces the old cache.
const VERSION = 'f21e79edddae';
const CACHE = `servitor-${VERSION}`;
const FILES = ['./', 'index.html', 'app.js', 'style.css', 'manifest.webmanifest', 'icon.svg',
  'pkg/servitor_web.js', 'pkg/servitor_web_bg.wasm'];

self.addEventListener('install', (e) => {
  e.waitUntil(caches.open(CACHE).then((c) => c.addAll(FILES)).then(() => self.skipWaiting()));
});

self.addEventListener('activate', (e) => {
  e.waitUntil(caches.keys()
    .then((keys) => Promise.all(keys.filter((k) => k !== CACHE).map((k) => caches.delete(k))))
    .then(() => self.clients.claim()));
});

self.addEventListener('fetch', (e) => {
  if (e.request.method !== 'GET' || new URL(e.request.url).origin !== location.origin) return;
  e.respondWith(caches.open(CACHE).then((cache) => cache.match(e.request, { ignoreSearch: true }).then((hit) => {
    const fresh = fetch(e.request).then((r) => {
      if (r.ok) cache.put(e.request, r.clone());
      return r;
    });
    // The cached copy at once when there is one (it works offline); refreshed behind it.
    return hit ? (fresh.catch(() => hit), hit) : fresh;
  })));
});
