// Issue 12, item 6: a script that allocates without end (an allocation loop) takes down only the
// sandbox, not the tab. The sandbox's renderer runs out of memory (V8's heap limit, about 4 GB);
// the page notices the dead sandbox, restarts it and restores the database.
//
// Chromium only, through a DevTools port rather than Playwright: after the sandbox's renderer
// dies, Playwright and Puppeteer mark the page's own session as crashed and refuse to talk to
// it, although the page lives on; a new DevTools connection reaches the page. (Firefox and
// WebKit are not driven here: the crash is a renderer's, which those engines' drivers report
// differently.)
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import puppeteer from "puppeteer-core";
import { serve } from "./server.mjs";
import { DIST } from "./browser.mjs";

const CHROMIUM = process.env.CHROMIUM_PATH || "/usr/bin/chromium";
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const cleanup = [];
after(async () => {
  for (const f of cleanup.reverse()) await f();
});

/** Chromium with a DevTools port; the browser's DevTools URL. */
async function startChromium() {
  const profile = await mkdtemp(join(tmpdir(), "pp-oom-"));
  const port = 9300 + Math.floor(Math.random() * 600);
  const chrome = spawn(CHROMIUM, ["--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", `--remote-debugging-port=${port}`, `--user-data-dir=${profile}`, "about:blank"], { stdio: "ignore" });
  cleanup.push(async () => {
    chrome.kill();
    await rm(profile, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(`${url}/json/version`)).ok) return url;
    } catch {
      // not listening yet
    }
    await sleep(200);
  }
  throw new Error("Chromium's DevTools port did not open");
}

/** The page's collection names, through its `ppCommand` test hook. */
function collectionNames(page) {
  return page.evaluate(async () => JSON.parse(await window.ppCommand(JSON.stringify({ listCollections: 1 }))).cursor.firstBatch.map((c) => c.name).sort());
}

/** The playground page of a new DevTools connection. */
async function playgroundPage(browserURL, siteURL) {
  const browser = await puppeteer.connect({ browserURL });
  const pages = await browser.pages();
  return { browser, page: pages.find((p) => p.url().startsWith(siteURL)) };
}

test("an allocation loop kills only the sandbox: the page restarts it and restores the data", async () => {
  const site = await serve(DIST, { prefix: "/playground" });
  cleanup.push(() => site.close());
  const browserURL = await startChromium();
  const first = await puppeteer.connect({ browserURL });
  const page = await first.newPage();
  await page.goto(site.url);
  await page.waitForFunction(() => window.ppReady === true, { timeout: 120_000 });
  const before = await collectionNames(page);
  // The user raises the time limit, so the loop meets the memory limit before the deadline.
  await page.click('[aria-label="Script time limit in seconds"]', { clickCount: 3 });
  await page.keyboard.type("120");
  await page.keyboard.press("Enter");
  // CodeMirror comes after the page is interactive (src/app/editor.rs page_ready).
  await page.waitForSelector("#script-editor .cm-content", { timeout: 60_000 });
  await page.click("#script-editor .cm-content");
  await page.keyboard.down("Control");
  await page.keyboard.press("a");
  await page.keyboard.up("Control");
  await page.keyboard.press("Delete");
  await page.keyboard.sendCharacter("db.keep.insertOne({ _id: 1 }); const a = []; let i = 0; while (true) a.push(new Array(1e7).fill(i++));");
  await page.click("#run");
  first.disconnect();

  // Up to 100 s for the heap to fill and the page to notice; each look is a new connection.
  let state;
  for (let t = 0; t < 50; t++) {
    await sleep(2000);
    const { browser, page: p } = await playgroundPage(browserURL, site.url);
    assert.ok(p, "the playground page is still open");
    state = await p.evaluate(() => ({ status: document.querySelector(".engine-status")?.innerText, output: document.querySelector("pre.output")?.innerText }));
    browser.disconnect();
    if (/sandbox crashed/.test(state.output ?? "")) break;
  }
  assert.match(state.output, /The script was stopped: the engine stopped answering: its sandbox crashed \(a script may have run out of memory\); the database is back as it was before/);

  // The restored engine answers, with the database as it was before the run.
  const { browser, page: p } = await playgroundPage(browserURL, site.url);
  await p.waitForFunction(() => window.ppReady === true && !document.querySelector("#run")?.disabled, { timeout: 60_000 });
  assert.deepEqual(await collectionNames(p), before);
  assert.ok(!before.includes("keep"));
  browser.disconnect();
});
