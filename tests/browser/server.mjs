// A tiny static file server for the built site (dist/), on 127.0.0.1, for the browser tests.
// No dependencies: node's http module. Serves under a sub-path too (/sub/...), to prove the
// site's URLs are relative.
import { createServer } from "node:http";
import { readFile, stat } from "node:fs/promises";
import { extname, join, normalize, resolve } from "node:path";

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

/** Starts a server for `root`; resolves to { url, close, bytes } (bytes: what was sent, per path).
 * `headers` go with every file (e.g. Access-Control-Allow-Origin, as GitHub Pages sends it). */
export async function serve(root, { prefix = "", headers = {} } = {}) {
  const base = resolve(root);
  const sent = new Map();
  const server = createServer(async (req, res) => {
    try {
      let path = decodeURIComponent(new URL(req.url, "http://x").pathname);
      // Under a prefix nothing else exists: an absolute URL in the site fails as it would there.
      if (prefix && path !== prefix && !path.startsWith(prefix + "/")) throw Object.assign(new Error("outside"), { code: "ENOENT" });
      if (prefix) path = path.slice(prefix.length) || "/";
      if (path.endsWith("/")) path += "index.html";
      const file = normalize(join(base, path));
      if (!file.startsWith(base)) throw Object.assign(new Error("outside"), { code: "ENOENT" });
      const s = await stat(file);
      if (!s.isFile()) throw Object.assign(new Error("dir"), { code: "ENOENT" });
      const body = await readFile(file);
      sent.set(path, body.length);
      res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream", "cache-control": "no-store", ...headers });
      res.end(body);
    } catch (e) {
      res.writeHead(e.code === "ENOENT" ? 404 : 500, { "content-type": "text/plain" });
      res.end(e.code === "ENOENT" ? "not found" : "error");
    }
  });
  await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}${prefix}/`,
    sent,
    close: () => new Promise((ok) => server.close(ok)),
  };
}

// `node tests/browser/server.mjs [dir]` serves a directory by hand.
if (import.meta.url === `file://${process.argv[1]}`) {
  const s = await serve(process.argv[2] ?? "dist");
  console.log(`serving ${process.argv[2] ?? "dist"} at ${s.url}`);
}
