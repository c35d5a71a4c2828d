// A tiny static file server for the built site (dist/), on 127.0.0.1, for the browser tests,
// `make serve` (tools/serve.mjs) and the Lighthouse runs of `make bench`. No dependencies: node's
// http and zlib modules. Serves under a sub-path too (/sub/...), to prove the site's URLs are
// relative; with `gzip`, compresses what a static host compresses, as GitHub Pages does.
import { createServer } from "node:http";
import { readFile, stat } from "node:fs/promises";
import { extname, join, normalize, resolve } from "node:path";
import { gzipSync } from "node:zlib";

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".wasm": "application/wasm",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".txt": "text/plain; charset=utf-8",
};

const COMPRESSIBLE = new Set([".html", ".js", ".mjs", ".wasm", ".css", ".json", ".svg", ".txt"]);

/** Starts a server for `root`; resolves to { url, close, sent } (sent: bytes of each file sent, per
 * path, before compression). `headers` go with every file (e.g. Access-Control-Allow-Origin, as
 * GitHub Pages sends it). Options for `make serve` and `make bench`: `port` (0: any free one),
 * `gzip` (compress text and wasm when the client accepts it), `handle(req, res, path)` (returns
 * true when it answered the request itself), `inject` (text put before </body> of every HTML page),
 * `hide` (paths answered with 404). */
export async function serve(root, { prefix = "", headers = {}, port = 0, gzip = false, handle, inject, hide = [] } = {}) {
  const base = resolve(root);
  const sent = new Map();
  const server = createServer(async (req, res) => {
    try {
      let path = decodeURIComponent(new URL(req.url, "http://x").pathname);
      if (handle && (await handle(req, res, path))) return;
      // Under a prefix nothing else exists: an absolute URL in the site fails as it would there.
      if (prefix && path !== prefix && !path.startsWith(prefix + "/")) throw Object.assign(new Error("outside"), { code: "ENOENT" });
      if (prefix) path = path.slice(prefix.length) || "/";
      if (path.endsWith("/")) path += "index.html";
      const file = normalize(join(base, path));
      if (!file.startsWith(base)) throw Object.assign(new Error("outside"), { code: "ENOENT" });
      const s = await stat(file);
      if (!s.isFile()) throw Object.assign(new Error("dir"), { code: "ENOENT" });
      if (hide.includes(path)) throw Object.assign(new Error("hidden"), { code: "ENOENT" });
      let body = await readFile(file);
      if (inject && extname(file) === ".html") body = Buffer.from(body.toString("utf8").replace(/<\/body>|$/i, (m) => inject + m));
      sent.set(path, body.length);
      const head = { "content-type": TYPES[extname(file)] ?? "application/octet-stream", "cache-control": "no-store", ...headers };
      if (gzip && COMPRESSIBLE.has(extname(file)) && /\bgzip\b/.test(req.headers["accept-encoding"] ?? "")) {
        body = gzipSync(body, { level: 6 });
        Object.assign(head, { "content-encoding": "gzip", vary: "accept-encoding" });
      }
      res.writeHead(200, head);
      res.end(req.method === "HEAD" ? undefined : body);
    } catch (e) {
      res.writeHead(e.code === "ENOENT" ? 404 : 500, { "content-type": "text/plain" });
      res.end(e.code === "ENOENT" ? "not found" : "error");
    }
  });
  await new Promise((ok, fail) => {
    server.once("error", fail);
    server.listen(port, "127.0.0.1", ok);
  });
  return {
    url: `http://127.0.0.1:${server.address().port}${prefix}/`,
    sent,
    close: () => new Promise((ok) => server.close(ok)),
  };
}

// `node tests/browser/server.mjs [dir]` serves a directory by hand.
if (import.meta.url === `file://${process.argv[1]}`) {
  const s = await serve(process.argv[2] ?? "dist");
  console.log(`serving ${process.argv[2] ?? "dist"} at ${s.url}`);
}
