// Browser tests of the published site (make dist): it works from a sub-path (served here under
// /playground/, nothing at the root), the lesson index lists every lesson, and once loaded the
// site works offline through its service worker (www/sw.js, precache list by tools/site.mjs).
// Run by `make test-browser`. Screenshots: tests/screenshots/site-*.png.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFile, readdir } from "node:fs/promises";
import { join, relative } from "node:path";
import { createHash } from "node:crypto";
import { serve } from "./server.mjs";
import { ROOT, DIST, SHOTS, launch } from "./browser.mjs";

let browser;

before(async () => {
  browser = await launch();
});

after(async () => {
  await browser?.close();
});

/** Every file of dist/, relative, with `/`. */
async function distFiles(dir = DIST) {
  const out = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    if (e.isDirectory()) out.push(...(await distFiles(join(dir, e.name))));
    else out.push(relative(DIST, join(dir, e.name)).split("\\").join("/"));
  }
  return out.sort();
}

/** The lessons' front matter, read straight from lessons/<id>/lesson.md. */
async function frontMatter() {
  const dirs = (await readdir(join(ROOT, "lessons"), { withFileTypes: true })).filter((e) => e.isDirectory());
  const lessons = [];
  for (const d of dirs) {
    const text = await readFile(join(ROOT, "lessons", d.name, "lesson.md"), "utf8");
    const head = text.split("\n---")[0];
    const get = (k) => (head.match(new RegExp(`^${k}:\\s*(.*)$`, "m")) ?? [])[1]?.trim();
    lessons.push({ id: get("id"), title: get("title"), summary: get("summary") ?? "", order: Number(get("order") ?? Infinity) });
  }
  return lessons.sort((a, b) => a.order - b.order || (a.id < b.id ? -1 : 1));
}

/** A page of a fresh context; records failed requests (the browser's own favicon probe aside). */
async function open(context, url) {
  const page = await context.newPage();
  const errors = [];
  const failed = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("response", (r) => {
    if (r.status() >= 400 && !r.url().endsWith("/favicon.ico")) failed.push(`${r.status()} ${r.url()}`);
  });
  page.on("requestfailed", (r) => failed.push(`${r.failure()?.errorText} ${r.url()}`));
  if (url) await page.goto(url);
  return { page, errors, failed };
}

/** The failed requests of `failed` that really lost a file. Once the service worker controls a
 * page, Chromium's DevTools may report the engine's wasm, which the page reads as a stream, as
 * "aborted" although the page got all of it: such a report counts only if the page's own
 * Resource Timing entry lacks the file's bytes (status 200 and its size in dist/). */
async function lost(page, site, failed) {
  const seen = await page.evaluate(() =>
    Object.fromEntries(performance.getEntriesByType("resource").map((e) => [e.name, [e.responseStatus, e.decodedBodySize]])),
  );
  const out = [];
  for (const f of failed) {
    const url = f.replace(/^net::ERR_ABORTED /, "");
    const file = url.startsWith(site.url) ? join(DIST, url.slice(site.url.length)) : null;
    const size = file && f !== url ? (await readFile(file)).length : -1;
    if (!(seen[url] && seen[url][0] === 200 && seen[url][1] === size)) out.push(f);
  }
  return out;
}

/** Runs `fn({ site, context })` with dist/ served under /playground/ and a fresh browser context. */
async function withSite(fn) {
  const site = await serve(DIST, { prefix: "/playground" });
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  try {
    await fn({ site, context });
  } finally {
    await context.close();
    await site.close();
  }
}

test("every page of the site uses relative URLs and loads under a sub-path", async () => {
  for (const f of (await distFiles()).filter((f) => f.endsWith(".html"))) {
    const html = await readFile(join(DIST, f), "utf8");
    const absolute = [...html.matchAll(/\b(?:src|href)\s*=\s*["']?(\/[^"'\s>]*)/g)].map((m) => m[1]);
    assert.deepEqual(absolute, [], `${f} holds root-relative URLs`);
    // Its own icon, so that no browser (or Lighthouse) asks the host's root for /favicon.ico.
    assert.match(html, /<link rel="icon" href="favicon\.svg" type="image\/svg\+xml">/, `${f} names no icon`);
  }
  await withSite(async ({ site, context }) => {
    const { page, errors, failed } = await open(context, site.url);
    await page.waitForFunction(() => window.ppReady === true, null, { timeout: 120_000 });
    for (const f of ["favicon.svg", "lessons.html", "embed-demo.html", "embed.js", "sw.js", "register-sw.js", "sandbox.js", "worker.js", "runtime.js", "engine/engine_bg.wasm", "tz/zones.tzdb"]) {
      const r = await page.request.get(new URL(f, site.url).href);
      assert.equal(r.status(), 200, f);
    }
    assert.deepEqual(await lost(page, site, failed), []);
    assert.deepEqual(errors, []);
  });
});

test("the lesson index lists every lesson in order with its summary, and its links open them", async () => {
  const expected = await frontMatter();
  assert.ok(expected.length >= 14, `${expected.length} lessons`);
  await withSite(async ({ site, context }) => {
    const { page, failed } = await open(context, `${site.url}lessons.html`);
    const items = page.locator("ol.lessons > li");
    assert.equal(await items.count(), expected.length);
    const shown = [];
    for (let i = 0; i < expected.length; i++) {
      const li = items.nth(i);
      const href = await li.locator("a.title").getAttribute("href");
      shown.push({
        id: await li.getAttribute("id"),
        title: (await li.locator("a.title").innerText()).replace(/^\d+/, "").trim(),
        summary: (await li.locator("p").innerText()).trim(),
        link: href,
      });
    }
    assert.deepEqual(
      shown,
      expected.map((l) => ({ id: l.id, title: l.title, summary: l.summary.replace(/`/g, ""), link: `lesson-${l.id}.html` })),
    );
    await page.screenshot({ path: join(SHOTS, "site-lessons.png"), fullPage: true });
    // The last lesson's link opens the playground on it.
    const last = expected[expected.length - 1];
    await items.last().locator("a.title").click();
    await page.waitForFunction(() => window.ppReady === true, null, { timeout: 120_000 });
    assert.equal(await page.locator(".lesson-text h2").innerText(), last.title);
    // Every file the pages asked the server for came. (A `blob:` load the sandbox frame started
    // and the navigation cancelled is not a file of the site: it was seen once, aborted.)
    assert.deepEqual(await lost(page, site, failed.filter((f) => !/^net::ERR_ABORTED blob:/.test(f))), []);
  });
});

test("the first lesson reads before any WebAssembly and with scripting off; the app takes it over without moving it", async () => {
  const [first] = await frontMatter();
  const lesson = JSON.parse(await readFile(join(DIST, "lessons", `${first.id}.json`), "utf8"));
  // Scripting off: the lesson's text, every step with its script, and the quiz.
  const off = await browser.newContext({ viewport: { width: 1280, height: 900 }, javaScriptEnabled: false });
  try {
    await withSite(async ({ site }) => {
      const page = await off.newPage();
      await page.goto(site.url);
      assert.equal(await page.locator(".lesson-text h2").innerText(), lesson.title);
      assert.ok((await page.locator(".lesson-text .prose p").count()) > lesson.steps.length, "the Markdown is HTML");
      const steps = await page.locator(".lesson-text h3").allInnerTexts();
      assert.deepEqual(steps.filter((t) => t.startsWith("Step ")), lesson.steps.map((s, i) => `Step ${i + 1}: ${s.title}`));
      const scripts = await page.locator("pre.editor-static").allTextContents();
      assert.deepEqual(scripts.sort(), lesson.steps.map((s) => s.script).sort());
      assert.deepEqual(await page.locator(".quiz summary").allInnerTexts(), lesson.quiz.map((q) => q.question));
      await page.screenshot({ path: join(SHOTS, "site-no-script.png"), fullPage: true });
      // Every lesson has its own page, the same with that lesson.
      for (const l of await frontMatter()) {
        await page.goto(`${site.url}lesson-${l.id}.html`);
        const built = JSON.parse(await readFile(join(DIST, "lessons", `${l.id}.json`), "utf8"));
        assert.equal(await page.locator(".lesson-text h2").innerText(), l.title, l.id);
        assert.equal(await page.title(), `${l.title} · Pattern Playground`);
        assert.equal(await page.locator("pre.editor-static").count(), built.steps.length, l.id);
        assert.equal(await page.locator('select[aria-label="Lesson"] option[selected]').getAttribute("value"), l.id);
      }
    });
  } finally {
    await off.close();
  }
  // Scripting on: what the page paints before the UI's WebAssembly arrives is where the app puts it.
  await withSite(async ({ site, context }) => {
    let release;
    const held = new Promise((ok) => (release = ok));
    await context.route(/pattern-playground-[0-9a-f]+_bg\.wasm$/, async (route) => {
      await held;
      await route.continue();
    });
    const { page, errors } = await open(context);
    await page.goto(site.url, { waitUntil: "domcontentloaded" });
    const boxes = () =>
      page.evaluate(() =>
        [".tabs", ".lesson-text h2", ".lesson-text .prose", "ol.steps", ".lesson-text .step h3", ".workbench .toolbar", "#script-editor", "pre.output"].map((sel) => {
          const r = document.querySelector(sel)?.getBoundingClientRect();
          return r ? [sel, Math.round(r.x), Math.round(r.y), Math.round(r.width), Math.round(r.height)] : [sel, "missing"];
        }),
      );
    const before = await boxes();
    assert.equal(await page.locator(".lesson-text h2").innerText(), lesson.title);
    assert.equal(await page.evaluate(() => window.ppReady === true), false, "the app was not running yet");
    release();
    await page.waitForFunction(() => window.ppReady === true, null, { timeout: 120_000 });
    assert.deepEqual(await boxes(), before);
    // Every layout shift of the load (the buffered entries come in the observer's first call).
    const shift = await page.evaluate(
      () =>
        new Promise((ok) => {
          let total = 0;
          new PerformanceObserver((list) => {
            for (const e of list.getEntries()) if (!e.hadRecentInput) total += e.value;
          }).observe({ type: "layout-shift", buffered: true });
          setTimeout(() => ok(total), 500);
        }),
    );
    assert.ok(shift <= 0.05, `layout shift ${shift}`);
    assert.deepEqual(errors, []);
  });
});

test("the time-zone file is not on the first load: not in the engine's wasm, counted \"later\", fetched once the page is interactive", async () => {
  // The engine's wasm carries no zone's data (jiff's bundled database put every zone's name and
  // TZif file there); the zones are in tz/zones.tzdb.
  const wasm = await readFile(join(DIST, "engine", "engine_bg.wasm"));
  for (const name of ["America/New_York", "Europe/Paris", "Asia/Tokyo", "Africa/Abidjan"]) assert.equal(wasm.indexOf(name), -1, name);
  const tz = await readFile(join(DIST, "tz", "zones.tzdb"));
  assert.equal(tz.subarray(0, 10).toString(), "pp-tzdb 1 ");
  assert.ok(tz.indexOf("America/New_York ") > 0);
  const { sizeReport } = await import("../../tools/size-report.mjs");
  const report = sizeReport(DIST);
  const entry = report.files.find((f) => f.file === "tz/zones.tzdb");
  assert.deepEqual([entry.part, entry.first], ["time zones", false]);
  assert.equal(report.files.filter((f) => f.first && f.file.startsWith("tz/")).length, 0);
  console.log(`# first load ${(report.firstLoad.gzip / 1024).toFixed(1)} KB gzipped; engine wasm ${(report.files.find((f) => f.file === "engine/engine_bg.wasm").gzip / 1024).toFixed(1)} KB; time zones (later) ${(entry.gzip / 1024).toFixed(1)} KB`);
  // In the browser: requested after the page is interactive (the pp-ready mark), in the background.
  await withSite(async ({ site, context }) => {
    const { page, errors } = await open(context, site.url);
    await page.waitForFunction(() => window.ppReady === true, null, { timeout: 120_000 });
    const [ready, fetched] = await page.waitForFunction(() => {
      const tz = performance.getEntriesByType("resource").find((e) => e.name.endsWith("/tz/zones.tzdb"));
      return tz && [performance.getEntriesByName("pp-ready")[0].startTime, tz.startTime];
    }, null, { timeout: 30_000 }).then((h) => h.jsonValue());
    assert.ok(fetched >= ready, `the time-zone file was asked for at ${fetched} ms, before the page was interactive (${ready} ms)`);
    // The report's first load is what the page asked for before it was interactive (the page
    // itself, and every file its Resource Timing shows started by then).
    const asked = await page.evaluate((ready) => performance.getEntriesByType("resource").filter((e) => e.startTime <= ready).map((e) => e.name), ready);
    const files = [...new Set(asked.filter((u) => u.startsWith(site.url)).map((u) => u.slice(site.url.length)))];
    assert.deepEqual(
      ["index.html", ...files].sort(),
      report.files.filter((f) => f.first).map((f) => f.file).sort(),
    );
    assert.deepEqual(errors, []);
  });
});

test("once loaded, the site works offline: the service worker serves every file", async () => {
  const files = await distFiles();
  const sw = await readFile(join(DIST, "sw.js"), "utf8");
  const precache = JSON.parse(sw.match(/\/\* PRECACHE \*\/ (.*) \/\* END PRECACHE \*\//)[1]);
  assert.deepEqual(Object.keys(precache.files), files.filter((f) => f !== "sw.js"));
  // Each with the SHA-256 of its bytes, which the service worker checks.
  for (const [f, integrity] of Object.entries(precache.files)) {
    assert.equal(integrity, `sha256-${createHash("sha256").update(await readFile(join(DIST, f))).digest("base64")}`, f);
  }
  assert.match(precache.version, /^[0-9a-f]{16}$/);

  await withSite(async ({ site, context }) => {
    const { page, errors } = await open(context, site.url);
    await page.waitForFunction(() => window.ppReady === true, null, { timeout: 120_000 });
    // Installed (everything cached) and in control of this page.
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 60_000 });
    const cached = await page.evaluate(async () => {
      const names = await caches.keys();
      const cache = await caches.open(names.find((n) => n.startsWith("pattern-playground:")));
      return (await cache.keys()).map((r) => r.url);
    });
    assert.deepEqual(cached.map((u) => u.slice(site.url.length)).sort(), Object.keys(precache.files));

    // Offline, and the server gone too (it takes no new connection; withSite waits for the rest).
    await context.setOffline(true);
    site.close();
    const response = await page.reload();
    assert.ok(response.fromServiceWorker(), "the page came from the service worker");
    await page.waitForFunction(() => window.ppReady === true, null, { timeout: 120_000 });
    await page.locator("ol.steps button").first().click();
    await page.locator("#run").click();
    await page.waitForFunction(() => !document.querySelector("#run")?.disabled && document.querySelector("pre.output .line"), null, { timeout: 60_000 });
    assert.match(await page.locator("pre.output").innerText(), /\S/);
    assert.equal(await page.locator("pre.output .error-line").count(), 0, await page.locator("pre.output").innerText());
    await page.screenshot({ path: join(SHOTS, "site-offline.png"), fullPage: true });

    // Named time zones too: the time-zone file (fetched after the engine, tz/zones.tzdb) comes
    // from the service worker's cache.
    await page.evaluate(() => document.getElementById("script-editor")?.scrollIntoView({ block: "nearest" }));
    await page.locator("#script-editor .cm-content").click();
    await page.keyboard.press("ControlOrMeta+a");
    await page.keyboard.press("Delete");
    await page.keyboard.insertText('print(db.aggregate([{ $documents: [{ at: ISODate("2024-07-01T00:00:00Z") }] }, { $project: { _id: 0, s: { $dateToString: { date: "$at", timezone: "America/New_York" } } } }]).toArray()[0].s)');
    await page.locator("#run").click();
    await page.locator("pre.output .line", { hasText: "2024-06-30T20:00:00.000" }).waitFor({ timeout: 60_000 });

    // Another lesson: fetched (lessons/<id>.json) from the service worker's cache.
    const other = (await frontMatter())[1];
    await page.locator('select[aria-label="Lesson"]').selectOption(other.id);
    await page.waitForFunction((t) => document.querySelector(".lesson-text h2")?.textContent === t, other.title, { timeout: 60_000 });

    // The index too.
    await page.goto(`${site.url}lessons.html`);
    assert.equal(await page.locator("ol.lessons > li").count(), (await frontMatter()).length);
    assert.deepEqual(errors, []);
  });
});
