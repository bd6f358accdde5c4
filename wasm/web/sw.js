// The static board offline: every file of the site is kept at the first visit, and each
// request for one goes to the network first (so a new version is seen when online) and to
// the copy kept when the network fails. The API (/health, /legal, /obx, /analysis) is never
// kept: without a server the page's engine answers it.
'use strict';
const CACHE = 'baghchal-board-v2';
const FILES = ['./', 'index.html', 'i18n.js', 'app.js', 'annotations.js', 'review.js', 'puzzles.js', 'lobby.js', 'online.js', 'puzzles.json', 'style.css', 'favicon.svg', 'local.js', 'manifest.webmanifest',
  'baghchal-worker.js', 'baghchal-worker.wasm', 'baghchal-worker-mt.js', 'baghchal-worker-mt.wasm', 'baghchal-worker-mt.worker.js'];
const API = ['/health', '/legal', '/obx', '/analysis'];

self.addEventListener('install', (e) => {
  e.waitUntil(caches.open(CACHE).then((c) => c.addAll(FILES)).then(() => self.skipWaiting()));
});

self.addEventListener('activate', (e) => {
  e.waitUntil(caches.keys()
    .then((keys) => Promise.all(keys.filter((k) => k !== CACHE).map((k) => caches.delete(k))))
    .then(() => self.clients.claim()));
});

self.addEventListener('fetch', (e) => {
  const url = new URL(e.request.url);
  if (e.request.method !== 'GET' || url.origin !== location.origin || API.includes(url.pathname)) return;
  e.respondWith(fetch(e.request).then((res) => {
    if (res.ok) {
      const copy = res.clone();
      caches.open(CACHE).then((c) => c.put(e.request, copy));
    }
    return res;
  }).catch(() => caches.match(e.request, { ignoreSearch: true })
    .then((hit) => hit || caches.match('index.html'))));
});
