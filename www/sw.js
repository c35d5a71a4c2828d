// The service worker: Pattern Playground works offline once it has been loaded.
//
// `make dist` writes dist/sw.js from this file (tools/site.mjs precache): PRECACHE below becomes
// every file of dist/ (trunk's hashed names included) with the SHA-256 of its bytes (an SRI
// string), and a version that is a hash of them all, so any change of the site makes a new
// service worker with a new cache.
//
// It serves only what it precached, and only bytes whose hash is the one `make dist` wrote:
// - install: every file into this deployment's cache, fetched past the HTTP cache (a stale copy
//   must not be pinned) with its `integrity`, so a file that does not match is refused and the
//   install fails.
// - fetch: a GET for one of the listed files (the site's root, `./`, is index.html) is answered
//   from the cache after checking the cached bytes' hash again: an entry that does not match
//   (written by anyone but this worker) is deleted and never served; the file is fetched again
//   with its `integrity`. Anything else goes to the network as if there were no service worker,
//   and nothing else is ever cached.
// - caches are named after the deployment's path ("pattern-playground:/a/:<version>"), so two
//   deployments on one origin (/a/ and /b/) keep and delete only their own.
// - activate: this deployment's older caches are deleted; open pages are taken over
//   (clients.claim), so the first visit is already covered.
// - updates: a new version waits until a page asks for it ({ type: "pp-skip-waiting" }, sent by
//   register-sw.js when the learner clicks "Reload" on its "a new version is ready" notice), then
//   takes over and the pages reload. Every file of a version comes from one cache, so a page never
//   mixes the files of two versions.
// Pages register it from a relative URL, so its scope is the directory the site is published in.
'use strict';

const PRECACHE = /* PRECACHE */ { version: 'dev', files: {} } /* END PRECACHE */;
const SCOPE = new URL('./', self.location.href).href;
const PREFIX = `pattern-playground:${new URL(SCOPE).pathname}:`;
const CACHE = PREFIX + PRECACHE.version;
/** The caches of versions before caches were named after their deployment. */
const LEGACY = /^pattern-playground-[0-9a-f]{16}$|^pattern-playground-dev$/;

/** The file of the site `url` names ("index.html" for the root), or null. */
function fileOf(url) {
  const u = new URL(url);
  u.hash = '';
  u.search = '';
  if (!u.href.startsWith(SCOPE)) return null;
  const file = u.href === SCOPE ? 'index.html' : decodeURIComponent(u.href.slice(SCOPE.length));
  return Object.prototype.hasOwnProperty.call(PRECACHE.files, file) ? file : null;
}

/** The SRI string ("sha256-<base64>") of some bytes. */
async function sri(bytes) {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  let s = '';
  for (const b of digest) s += String.fromCharCode(b);
  return `sha256-${btoa(s)}`;
}

/** The file fetched from the network, checked against its hash (rejects when it differs). */
function fetchVerified(file) {
  return fetch(new Request(new URL(file, SCOPE).href, { cache: 'reload', integrity: PRECACHE.files[file] })).then((r) => {
    if (!r.ok) throw new Error(`${file}: HTTP ${r.status}`);
    return r;
  });
}

self.addEventListener('install', (event) => {
  event.waitUntil(
    caches.open(CACHE).then((cache) =>
      Promise.all(Object.keys(PRECACHE.files).map((f) => fetchVerified(f).then((r) => cache.put(new URL(f, SCOPE).href, r)))),
    ),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((keys) => Promise.all(keys.filter((k) => (k.startsWith(PREFIX) && k !== CACHE) || LEGACY.test(k)).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener('message', (event) => {
  if (event.data && event.data.type === 'pp-skip-waiting') self.skipWaiting();
});

/** The cached copy of `file` if its bytes are the ones `make dist` hashed; else a verified copy
 * from the network (cached again), or the network's answer if this version is no longer there. */
async function serve(file, request) {
  const url = new URL(file, SCOPE).href;
  const cache = await caches.open(CACHE);
  const hit = await cache.match(url);
  if (hit) {
    const body = await hit.arrayBuffer();
    if ((await sri(body)) === PRECACHE.files[file]) {
      return new Response(body, { status: hit.status, statusText: hit.statusText, headers: hit.headers });
    }
    await cache.delete(url);
  }
  let fresh;
  try {
    fresh = await fetchVerified(file);
  } catch {
    // The server has another version now (or is unreachable): its answer, not cached.
    return fetch(request);
  }
  await cache.put(url, fresh.clone());
  return fresh;
}

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET') return;
  const file = fileOf(request.url);
  if (file === null) return;
  event.respondWith(serve(file, request));
});
