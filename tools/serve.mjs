#!/usr/bin/env node
// `make serve`: the site at http://127.0.0.1:8080 as soon as there is a build of it, rebuilt when a
// source changes, open pages reloaded when the rebuild is done.
//
// It serves dist/, the release build that `make dist` and `make test` make, so a warm machine
// answers at once instead of compiling the UI again in another profile. When dist/ is missing it
// is built first; when a source is newer than it, the last build is served while it is rebuilt.
// An edit rebuilds only what it touches:
//   the UI's inputs (src/, lessons/, Cargo.*, build.rs, www/index.html, www/style.css, Trunk.toml)
//       -> `make dist` (trunk build --release: cargo recompiles what changed; the engine's wasm is
//          rebuilt by make only when the engine's sources changed)
//   the other files of www/ (runtime, worker, editor, embed, service worker) and their tools
//       -> `make restage` (those bundles rebuilt by make and copied into dist/; no trunk, no cargo)
// No service worker in this mode (sw.js answers 404): it would serve the previous build's files.
//
//   node tools/serve.mjs [--port=8080] [--no-watch]
import { spawn } from "node:child_process";
import { existsSync, readdirSync, statSync, watch } from "node:fs";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { serve } from "../tests/browser/server.mjs";

const ROOT = join(fileURLToPath(new URL(".", import.meta.url)), "..");
const DIST = join(ROOT, "dist");
const args = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^--/, "").split("=")));
const PORT = Number(args.port ?? process.env.PORT ?? 8080);
const WATCH = args["no-watch"] === undefined;

/** What the site is built from, and which build an edit of it needs ("dist" or "restage"). */
const INPUTS = ["src", "www", "lessons", "Cargo.toml", "Cargo.lock", "build.rs", "Trunk.toml", "package-lock.json", "tools/build-runtime.mjs", "tools/bson-fast-utf8.mjs", "tools/runtime-shims.js", "tools/runtime-globals.js", "tools/site.mjs", "tools/run-lessons.mjs", "tools/run-script.mjs"];
function kind(rel) {
  const p = rel.split(sep).join("/");
  if (/(^|\/)(\.#|#)|~$|\.sw[px]$|\.tmp$/.test(p)) return null; // editors' temporary files
  if (p.startsWith("www/") && p !== "www/index.html" && p !== "www/style.css") return "restage";
  if (p.startsWith("tools/") || p === "package-lock.json") return "restage";
  return "dist";
}

/** The newest modification time under `path` (a file or a folder), 0 when missing. */
function newest(path) {
  let s;
  try {
    s = statSync(path);
  } catch {
    return 0;
  }
  if (!s.isDirectory()) return s.mtimeMs;
  let m = 0;
  for (const e of readdirSync(path)) m = Math.max(m, newest(join(path, e)));
  return m;
}

const t0 = Date.now();
const secs = (since) => ((Date.now() - since) / 1000).toFixed(1);
const say = (msg) => console.log(`[serve] ${msg}`);

/** Runs `make <target>`; resolves to whether it succeeded. */
function make(target) {
  return new Promise((ok) => {
    const child = spawn("make", ["--no-print-directory", target], { cwd: ROOT, stdio: "inherit" });
    child.on("exit", (code) => ok(code === 0));
  });
}

// ---- live reload: pages hold an EventSource; a finished build tells them to reload ----------
const clients = new Set();
const RELOAD = `<script>(function(){try{var s=new EventSource("/__pp_serve/events");s.onmessage=function(e){if(e.data==="reload")location.reload()}}catch(e){}})()</script>`;
function handle(req, res, path) {
  if (path !== "/__pp_serve/events") return false;
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-store", connection: "keep-alive" });
  res.write(": connected\n\n");
  clients.add(res);
  req.on("close", () => clients.delete(res));
  return true;
}
const reloadPages = () => {
  for (const c of clients) c.write("data: reload\n\n");
};

// ---- builds: one at a time; edits during a build are gathered for the next ---------------------
let building = false;
const pending = new Set();
async function build(reason) {
  if (building) return;
  building = true;
  while (pending.size) {
    const kinds = new Set([...pending].map(kind));
    const files = [...pending];
    pending.clear();
    const target = kinds.has("dist") ? "dist" : "restage";
    const started = Date.now();
    say(`${reason ?? `changed: ${files.slice(0, 3).join(", ")}${files.length > 3 ? ` and ${files.length - 3} more` : ""}`} -> make ${target} ` +
      (target === "dist" ? "(trunk build --release: ~1 min, a few more when Rust changed)" : "(the bundles only: seconds)"));
    reason = undefined;
    const ok = await make(target);
    if (ok) {
      say(`rebuilt in ${secs(started)} s; open pages reload`);
      reloadPages();
    } else {
      say(`the build failed (see above); still serving the last good build. Fix and save to try again.`);
    }
  }
  building = false;
}

// ---- start ---------------------------------------------------------------------------------------
const srcTime = Math.max(...INPUTS.map((p) => newest(join(ROOT, p))));
const built = existsSync(join(DIST, "index.html"));
if (!built) {
  say("no build in dist/ yet: building it (make dist) before serving; on a fresh clone ~8 min on 2 cores");
  const started = Date.now();
  if (!(await make("dist"))) {
    say("make dist failed");
    process.exit(1);
  }
  say(`built in ${secs(started)} s`);
}
const server = await serve(DIST, { port: PORT, handle, inject: RELOAD, hide: ["/sw.js"] }).catch((e) => {
  say(`cannot listen on 127.0.0.1:${PORT}: ${e.message} (PORT=<n> make serve uses another port)`);
  process.exit(1);
});
say(`serving dist/ at ${server.url} (${secs(t0)} s after start)${WATCH ? "; watching src/, www/, lessons/ for changes (Ctrl+C stops)" : ""}`);

if (WATCH) {
  const onChange = (rel) => {
    if (!rel || !kind(rel)) return;
    pending.add(rel);
    clearTimeout(onChange.timer);
    onChange.timer = setTimeout(() => build(), 250);
  };
  for (const p of INPUTS) {
    const abs = join(ROOT, p);
    if (!existsSync(abs)) continue;
    const dir = statSync(abs).isDirectory();
    watch(abs, { recursive: dir }, (_event, name) => onChange(dir ? join(p, String(name ?? "")) : p));
  }
  if (built && srcTime > statSync(join(DIST, "index.html")).mtimeMs) {
    pending.add("src");
    build("sources are newer than dist/: serving the last build while it is rebuilt");
  }
}
