// The service worker: Pattern Playground works offline once it has been loaded.
//
// `make dist` writes dist/sw.js from this file (tools/site.mjs precache): PRECACHE below becomes
// the list of every file of dist/ (trunk's hashed names included) and a version that is a hash of
// their contents, so any change of the site makes a new service worker with a new cache.
//
// - install: every file into the cache `pattern-playground-<version>`, fetched past the HTTP
//   cache (a stale copy must not be pinned).
// - activate: older versions' caches are deleted; open pages are taken over (clients.claim), so
//   the first visit is already covered.
// - fetch: a GET for one of the site's files is answered from the cache (the site's root, `./`,
//   is index.html), anything else goes to the network. Every file of a version comes from one
//   cache, so a page never mixes the files of two versions; a new version takes over once no
//   page of the old one is open (no skipWaiting).
// Pages register it from a relative URL, so its scope is the directory the site is published in.
'use strict';

const PRECACHE = /* PRECACHE */ { version: 'dev', files: [] } /* END PRECACHE */;
const PREFIX = 'pattern-playground-';
const CACHE = PREFIX + PRECACHE.version;
const SCOPE = new URL('./', self.location.href).href;

self.addEventListener('install', (event) => {
  event.waitUntil(
    caches.open(CACHE).then((cache) =>
      cache.addAll(PRECACHE.files.map((f) => new Request(new URL(f, SCOPE).href, { cache: 'reload' }))),
    ),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((keys) => Promise.all(keys.filter((k) => k.startsWith(PREFIX) && k !== CACHE).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  if (!url.href.startsWith(SCOPE)) return;
  url.hash = '';
  url.search = '';
  if (url.href === SCOPE) url.href = SCOPE + 'index.html';
  event.respondWith(
    caches
      .open(CACHE)
      .then((cache) => cache.match(url.href))
      .then((hit) => hit || fetch(request)),
  );
});
