// Browser tests of issue 12 (user code isolated from the site; every engine call bounded; a
// service worker that serves only what it precached, verified; updates on consent; a CSP): the
// built site (make dist) in headless Chromium. Run by `make test-browser`.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serve } from "./server.mjs";
import { DIST, launch, dump } from "./browser.mjs";
import { precache } from "../../tools/site.mjs";

let browser;
let server;

before(async () => {
  browser = await launch();
  server = await serve(DIST, { prefix: "/playground" });
});

after(async () => {
  await browser?.close();
  await server?.close();
});

/** A fresh context and page at `url`, the playground ready; CSP violations are recorded. */
async function open(url = server.url, context) {
  context ??= await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const errors = [];
  const violations = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.exposeFunction("ppViolation", (v) => violations.push(v));
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (e) => window.ppViolation(`${e.violatedDirective} ${e.blockedURI}`));
  });
  await page.goto(url);
  await page.waitForFunction(() => window.ppReady === true, null, { timeout: 120_000 });
  return { context, page, errors, violations };
}

async function setScript(page, text) {
  await page.locator("#script-editor .cm-content").click();
  await page.keyboard.press("ControlOrMeta+a");
  await page.keyboard.press("Delete");
  await page.keyboard.insertText(text);
}

/** Runs the editor's script and waits for the run to end; the output's text. */
async function run(page, text, timeout = 60_000) {
  await setScript(page, text);
  await page.locator("#run").click();
  await page.waitForFunction(() => !document.querySelector("#run")?.disabled && document.querySelector("pre.output .line"), null, { timeout });
  return page.locator("pre.output").innerText();
}

async function setLimit(page, seconds) {
  const input = page.getByLabel("Script time limit in seconds");
  await input.fill(String(seconds));
  await input.press("Enter");
}

const PROBE = (site) => `
const results = {};
const probe = async (name, f) => {
  try { await f(); results[name] = "reached"; } catch (e) { results[name] = "refused"; }
};
await probe("caches", () => caches.open("pattern-playground-probe"));
await probe("fetch", () => fetch(${JSON.stringify(site)} + "index.html"));
await probe("fetch elsewhere", () => fetch("https://example.com/"));
await probe("XMLHttpRequest", () => new Promise((ok, fail) => { const x = new XMLHttpRequest(); x.onload = ok; x.onerror = fail; x.open("GET", ${JSON.stringify(site)} + "index.html"); x.send(); }));
await probe("WebSocket", () => new Promise((ok, fail) => { const w = new WebSocket("ws://127.0.0.1:9/"); w.onopen = ok; w.onerror = fail; }));
await probe("indexedDB", () => new Promise((ok, fail) => { const r = indexedDB.open("probe"); r.onsuccess = ok; r.onerror = () => fail(r.error); }));
await probe("importScripts", () => importScripts(${JSON.stringify(site)} + "sandbox.js"));
await probe("localStorage", () => localStorage.setItem("probe", "1"));
await probe("the page", () => { if (!parent.document) throw new Error("no page"); });
print(JSON.stringify(results));
`;

test("a script cannot reach the site's caches, storage or network; a poisoning script poisons nothing", async () => {
  const { context, page, errors, violations } = await open();
  // The service worker is in control, so there is a cache to poison.
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 60_000 });
  const out = await run(page, PROBE(server.url));
  const results = JSON.parse(/\{.*\}/.exec(out)[0]);
  assert.deepEqual(results, {
    caches: "refused",
    fetch: "refused",
    "fetch elsewhere": "refused",
    XMLHttpRequest: "refused",
    WebSocket: "refused",
    indexedDB: "refused",
    importScripts: "refused",
    localStorage: "refused",
    "the page": "refused",
  });
  // The attack of the issue: a fake index.html into every cache the script can open.
  const attack = await run(
    page,
    `const names = await caches.keys();
     for (const n of names.concat(["pattern-playground-x"])) {
       const c = await caches.open(n);
       await c.put(${JSON.stringify(server.url)}, new Response("<h1>owned</h1>", { headers: { "content-type": "text/html" } }));
       await c.put(${JSON.stringify(server.url + "index.html")}, new Response("<h1>owned</h1>", { headers: { "content-type": "text/html" } }));
     }
     print("poisoned", names.length);`,
  );
  assert.match(attack, /SecurityError|not allowed|denied|caches/i, attack);
  await page.reload();
  await page.waitForFunction(() => window.ppReady === true, null, { timeout: 120_000 });
  assert.equal(await page.locator("h1", { hasText: "owned" }).count(), 0);
  assert.deepEqual(errors, []);
  assert.deepEqual(violations.filter((v) => !/^connect-src/.test(v)), []);
  await context.close();
});

test("the service worker never serves a cached file whose bytes differ from the precached hash", async () => {
  const { context, page } = await open();
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 60_000 });
  // Whoever writes into the cache (here the page itself, as an attacker with the origin's
  // storage could), the service worker checks the bytes before serving them.
  const names = await page.evaluate(async (site) => {
    const names = await caches.keys();
    for (const n of names) {
      const c = await caches.open(n);
      await c.put(site + "index.html", new Response("<h1>owned</h1>", { headers: { "content-type": "text/html" } }));
      await c.put(site + "lessons.html", new Response("<h1>owned</h1>", { headers: { "content-type": "text/html" } }));
    }
    return names;
  }, server.url);
  // Caches are named after the deployment's path.
  assert.ok(names.length === 1 && names[0].startsWith("pattern-playground:/playground/:"), names.join());
  const response = await page.reload();
  assert.ok(response.fromServiceWorker());
  assert.equal(await page.locator("h1", { hasText: "owned" }).count(), 0, "the poisoned index.html was served");
  await page.waitForFunction(() => window.ppReady === true, null, { timeout: 120_000 });
  // The service worker put the genuine file back.
  const again = await page.evaluate(async (site) => (await (await caches.match(site + "index.html")).text()).includes("owned"), server.url);
  assert.equal(again, false);
  await page.goto(server.url + "lessons.html");
  assert.equal(await page.locator("h1", { hasText: "owned" }).count(), 0, "the poisoned lessons.html was served");
  assert.ok((await page.locator("ol.lessons > li").count()) > 0);
  // Nothing outside the precache list is ever cached.
  const cached = await page.evaluate(async (site) => {
    await fetch(site + "no-such-file.txt").catch(() => {});
    await fetch(site + "index.html?x=1");
    const c = await caches.open((await caches.keys())[0]);
    return (await c.keys()).map((r) => r.url.slice(site.length));
  }, server.url);
  const sw = await readFile(join(DIST, "sw.js"), "utf8");
  const files = Object.keys(JSON.parse(sw.match(/\/\* PRECACHE \*\/ (.*) \/\* END PRECACHE \*\//)[1]).files).sort();
  assert.deepEqual(cached.sort(), files);
  await context.close();
});

/** A copy of dist/ in a temporary folder (removed by the caller). */
async function distCopy() {
  const dir = await mkdtemp(join(tmpdir(), "pp-dist-"));
  await cp(DIST, dir, { recursive: true });
  return dir;
}

/** One server, several deployments: `{ "/a": dir, "/b": dir2 }`. */
async function serveMany(sites) {
  const servers = {};
  for (const [prefix, dir] of Object.entries(sites)) servers[prefix] = await serve(dir, { prefix });
  // serve() binds its own port; one origin needs one port: forward by prefix.
  const front = createServer((req, res) => {
    const prefix = Object.keys(sites).find((p) => req.url.startsWith(p + "/"));
    if (!prefix) return res.writeHead(404).end();
    const target = new URL(servers[prefix].url);
    fetch(`http://${target.host}${req.url}`)
      .then(async (r) => {
        const headers = Object.fromEntries(r.headers);
        delete headers["content-encoding"];
        delete headers["content-length"];
        res.writeHead(r.status, headers);
        res.end(Buffer.from(await r.arrayBuffer()));
      })
      .catch(() => res.writeHead(502).end());
  });
  await new Promise((ok) => front.listen(0, "127.0.0.1", ok));
  const origin = `http://127.0.0.1:${front.address().port}`;
  return {
    origin,
    close: async () => {
      await new Promise((ok) => front.close(ok));
      for (const s of Object.values(servers)) await s.close();
    },
  };
}

test("two deployments on one origin keep their own caches", async () => {
  const a = await distCopy();
  const b = await distCopy();
  await writeFile(join(b, "lessons.html"), (await readFile(join(b, "lessons.html"), "utf8")) + "<!-- b -->\n");
  precache(b);
  const sites = await serveMany({ "/a": a, "/b": b });
  const context = await browser.newContext();
  try {
    for (const p of ["/a/", "/b/", "/a/"]) {
      const { page } = await open(sites.origin + p, context);
      await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 60_000 });
      await page.close();
    }
    const page = await context.newPage();
    await page.goto(sites.origin + "/a/lessons.html");
    const names = await page.evaluate(() => caches.keys());
    assert.equal(names.filter((n) => n.startsWith("pattern-playground:/a/:")).length, 1, names.join());
    assert.equal(names.filter((n) => n.startsWith("pattern-playground:/b/:")).length, 1, names.join());
    // Each still works offline.
    await context.setOffline(true);
    for (const p of ["/a/", "/b/"]) {
      await page.goto(sites.origin + p);
      await page.waitForFunction(() => window.ppReady === true, null, { timeout: 120_000 });
    }
  } finally {
    await context.close();
    await sites.close();
    await rm(a, { recursive: true, force: true });
    await rm(b, { recursive: true, force: true });
  }
});

test("a new version waits for the learner: 'a new version is ready', then Reload switches", async () => {
  const dir = await distCopy();
  const site = await serve(dir, { prefix: "/pp" });
  const context = await browser.newContext();
  try {
    const { page } = await open(site.url, context);
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 60_000 });
    const before = await page.evaluate(() => caches.keys());
    // A new deploy.
    await writeFile(join(dir, "lessons.html"), (await readFile(join(dir, "lessons.html"), "utf8")) + "<!-- v2 -->\n");
    const { version } = precache(dir);
    await page.evaluate(() => navigator.serviceWorker.getRegistration().then((r) => r.update()));
    const notice = page.locator("#pp-update", { hasText: "A new version of Pattern Playground is ready" });
    await notice.waitFor({ timeout: 60_000 });
    // Nothing switched yet: the old version still serves this page.
    assert.deepEqual(await page.evaluate(() => caches.keys()).then((k) => k.filter((n) => before.includes(n))), before);
    const reloaded = page.waitForEvent("framenavigated", { timeout: 60_000 });
    await notice.getByRole("button", { name: "Reload to update" }).click();
    await reloaded;
    await page.waitForFunction(() => window.ppReady === true, null, { timeout: 120_000 });
    await page.waitForFunction((v) => caches.keys().then((k) => k.some((n) => n.endsWith(":" + v))), version, { timeout: 60_000 });
    assert.equal(await page.locator("#pp-update").count(), 0);
  } finally {
    await context.close();
    await site.close();
    await rm(dir, { recursive: true, force: true });
  }
});

test("the site has a Content-Security-Policy: an injected inline script does not run", async () => {
  const { context, page, errors, violations } = await open();
  const csp = await page.evaluate(() => document.querySelector('meta[http-equiv="Content-Security-Policy"]')?.content ?? null);
  assert.ok(csp && /script-src/.test(csp) && /'wasm-unsafe-eval'/.test(csp), String(csp));
  const ran = await page.evaluate(async () => {
    const s = document.createElement("script");
    s.textContent = "window.ppInjected = true;";
    document.head.append(s);
    const img = document.createElement("img");
    img.setAttribute("onerror", "window.ppInjected2 = true");
    img.src = "data:,x";
    document.body.append(img);
    await new Promise((r) => setTimeout(r, 200));
    return [window.ppInjected === true, window.ppInjected2 === true];
  });
  assert.deepEqual(ran, [false, false]);
  assert.ok(violations.some((v) => v.startsWith("script-src")), violations.join("\n"));
  // The page itself runs under it: a script runs and prints.
  assert.match(await run(page, 'print("under csp", 1 + 1)'), /under csp 2/);
  assert.deepEqual(errors, []);
  await context.close();
});

test("timers a script leaves behind die with its run", async () => {
  const { context, page } = await open();
  await setLimit(page, 5);
  assert.match(await run(page, 'setTimeout(() => { while (true) {} }, 300); setInterval(() => { while (true) {} }, 400); print("returned")'), /returned/);
  await page.waitForTimeout(1000);
  const t0 = Date.now();
  const out = await run(page, 'print("next run", 40 + 2)');
  assert.match(out, /next run 42/);
  assert.doesNotMatch(out, /stopped/);
  console.log(`# the run after one that left busy timers took ${Date.now() - t0} ms`);
  await context.close();
});

test("every request has a deadline: a slow command is stopped, the data rebuilt; a link cannot raise the limit", async () => {
  const { context, page } = await open();
  await run(page, 'db.big.insertMany(Array.from({ length: 3000 }, (_, i) => ({ _id: i, v: i % 97 }))); print("inserted")');
  const expected = await dump(page);
  await setLimit(page, 1);
  // A quadratic aggregation (a self-$lookup) through the page's command path.
  const slow = await page.evaluate(async () => {
    try {
      await window.ppCommand(JSON.stringify({ aggregate: "big", pipeline: [{ $lookup: { from: "big", pipeline: [{ $match: { $expr: { $gte: ["$v", 0] } } }], as: "all" } }, { $count: "n" }], cursor: {} }));
      return "answered";
    } catch (e) {
      return String(e);
    }
  });
  assert.match(slow, /ran longer than 1 s and was stopped; the database was rebuilt from the session's 1 write/);
  assert.deepEqual(await dump(page), expected);
  // A share link asking for 600 s gets the default.
  await setLimit(page, 600);
  await page.getByRole("tab", { name: "Export & share" }).click();
  const link = await page.locator("#share-link").inputValue();
  const other = await open(link);
  assert.equal(await other.page.getByLabel("Script time limit in seconds").inputValue(), "10");
  await other.context.close();
  await context.close();
});

/** A page whose script deleted the data it kept and then loops (limit 120 s); the data as it was. */
async function runaway() {
  const { context, page } = await open();
  await run(page, 'db.keep.insertOne({ _id: 1 }); print("kept")');
  const expected = await dump(page);
  await setLimit(page, 120);
  await setScript(page, "db.keep.deleteMany({}); while (true) {}");
  await page.locator("#run").click();
  return { context, page, expected };
}

test("Stop ends a running script, shows its elapsed time and restores the data", async () => {
  const { context, page, expected } = await runaway();
  await page.locator(".engine-status", { hasText: /Running… [1-9]\.\d s/ }).waitFor({ timeout: 20_000 });
  await page.locator("#stop").click();
  await page.locator("pre.output", { hasText: "The script was stopped; the database is back as it was before." }).waitFor({ timeout: 30_000 });
  assert.deepEqual(await dump(page), expected);
  assert.match(await run(page, 'print("alive", db.keep.countDocuments({}))'), /alive 1/);
  await context.close();
});

test("a dead sandbox is noticed: the engine restarts, the data comes back, the page says why", async () => {
  const { context, page, expected } = await runaway();
  await page.locator(".engine-status", { hasText: /Running… / }).waitFor();
  // The sandbox's process going away, as an out-of-memory crash takes it.
  await page.evaluate(() => document.querySelector("iframe.pp-sandbox").remove());
  await page.locator("pre.output", { hasText: /The script was stopped: the engine stopped answering.*the database is back as it was before/ }).waitFor({ timeout: 30_000 });
  assert.deepEqual(await dump(page), expected);
  await context.close();
});

test("answers with string error codes and database-wide writes keep the writes (issue 12, item 5)", async () => {
  const { context, page } = await open();
  const out = await run(page, 'db.keep.insertOne({ n: 1 }); db.keep.find().explain("bogus")');
  assert.match(out, /verbosity can only be one of/);
  assert.doesNotMatch(out, /invalid type/);
  assert.equal((await dump(page)).keep.length, 1);
  assert.match(await run(page, 'db.gone.insertOne({ n: 1 }); print(db.dropDatabase())'), /ok: 1/);
  assert.match(await run(page, 'db.after.insertOne({ n: 2 }); print("after")'), /after/);
  const expected = await dump(page);
  assert.deepEqual(Object.keys(expected), ["after"]);
  await page.waitForTimeout(600);
  await page.reload();
  await page.waitForFunction(() => window.ppReady === true, null, { timeout: 120_000 });
  assert.deepEqual(await dump(page), expected);
  await context.close();
});
