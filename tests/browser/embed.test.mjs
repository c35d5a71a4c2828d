// Browser tests of the embeddable widgets (www/embed.js, src/app/embed.rs) against the built site
// (make dist) served under a sub-path, /playground/, from 127.0.0.1. Run by `make test-browser`.
//
// The site's server sends Access-Control-Allow-Origin: * (as GitHub Pages does): on a page of the
// playground's own origin (embed-demo.html) the widgets' iframes have an opaque origin (sandbox
// without allow-same-origin) and fetch the site's files cross-origin. A second server on another
// port plays a course site of another origin, where the iframes keep the playground's origin.
// Screenshots go to tests/screenshots/embed-*.png.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inflateRawSync } from "node:zlib";
import { serve } from "./server.mjs";
import { DIST, SHOTS, launch, dump, holdTimeZones } from "./browser.mjs";

const OPAQUE = "allow-scripts allow-popups allow-popups-to-escape-sandbox";
const SITE_ORIGIN = OPAQUE + " allow-same-origin";

let site;
let browser;

before(async () => {
  site = await serve(DIST, { prefix: "/playground", headers: { "access-control-allow-origin": "*" } });
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await site?.close();
});

/** Opens a page; fails the test on an uncaught error in the page or a widget. */
async function open(url, { width = 1280, height = 900 } = {}) {
  const context = await browser.newContext({ viewport: { width, height } });
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(url);
  return { context, page, errors };
}

/** The widgets of a page: { el, frame, iframe } each, once its playground is ready. */
async function widgets(page, n) {
  const hosts = page.locator("pattern-playground");
  assert.equal(await hosts.count(), n);
  const out = [];
  for (let i = 0; i < n; i++) {
    const el = hosts.nth(i);
    await el.scrollIntoViewIfNeeded();
    const iframe = el.locator("iframe");
    const frame = await (await iframe.elementHandle({ timeout: 30_000 })).contentFrame();
    await frame.waitForFunction(() => window.ppReady === true, null, { timeout: 120_000 });
    out.push({ el, iframe, frame });
  }
  return out;
}

/** Runs a widget's script; resolves to its output's text. A widget is an out-of-process iframe:
 * right after a scroll or a neighbour's resize, Chromium can deliver a click at the button's
 * coordinates to the page instead (seen: the button counted no click, a second one ran). The
 * button counts the clicks it receives; the click is repeated only when it received none, so a
 * Run button that ignores a click it did receive still fails the test. */
async function run(w) {
  await w.frame.evaluate(() => {
    const button = document.querySelector("#run");
    if (!button.dataset.countsClicks) {
      button.dataset.countsClicks = "1";
      button.addEventListener("click", () => (window.runClicks += 1));
    }
    window.runClicks = 0;
  });
  for (let attempt = 0; attempt < 3; attempt++) {
    await w.frame.locator("#run").click();
    if (await w.frame.evaluate(() => window.runClicks > 0)) break;
  }
  assert.equal(await w.frame.evaluate(() => window.runClicks), 1, "the Run button received the click");
  await w.frame.waitForFunction(() => !document.querySelector("#run").disabled && document.querySelector("pre.output .line"), null, { timeout: 60_000 });
  return w.frame.locator("pre.output").innerText();
}

async function setScript(w, text) {
  const editor = w.frame.locator("#script-editor .cm-content");
  await editor.click();
  await editor.press("ControlOrMeta+a");
  await editor.press("Delete");
  await w.frame.page().keyboard.insertText(text);
}

/** The iframe's height on the page and the height of the widget's content inside it. */
async function heights(w) {
  const outer = (await w.iframe.boundingBox()).height;
  const inner = await w.frame.evaluate(() => document.querySelector(".pp-embed").getBoundingClientRect().height);
  return { outer, inner };
}

/** Waits until the iframe's height is its content's (+2 for its border). */
async function heightFollows(w) {
  let h;
  for (let i = 0; i < 50; i++) {
    h = await heights(w);
    if (Math.abs(h.outer - (Math.ceil(h.inner) + 2)) <= 1) return h;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.fail(`the iframe is ${h.outer}px high, its content ${h.inner}px`);
}

/** A screenshot of the whole page. Chromium does not paint out-of-process iframes (the widgets)
 * beyond the viewport in a full-page capture, so the viewport is made as tall as the page. */
async function shootWhole(page, name) {
  const { width } = page.viewportSize();
  const height = await page.evaluate(() => document.documentElement.scrollHeight);
  await page.setViewportSize({ width, height });
  await page.waitForTimeout(500);
  await page.screenshot({ path: join(SHOTS, name) });
}

/** What the widget's page can reach of the host page. */
const reachParent = (frame) =>
  frame.evaluate(() => {
    const tries = {
      document: () => window.parent.document.title,
      top: () => window.top.location.href,
      frameElement: () => (window.frameElement === null ? "null" : "element"),
    };
    const out = {};
    for (const [k, f] of Object.entries(tries)) {
      try {
        out[k] = f();
      } catch (e) {
        out[k] = e.name;
      }
    }
    return out;
  });

test("the embed demo: three widgets load, run their own scripts on their own databases, follow their content's height", async () => {
  const { context, page, errors } = await open(`${site.url}embed-demo.html`);
  const [subset, outlier, inline] = await widgets(page, 3);

  // Same origin as the playground: sandboxed without allow-same-origin, so an opaque origin.
  for (const w of [subset, outlier, inline]) {
    assert.equal(await w.iframe.getAttribute("sandbox"), OPAQUE);
    assert.equal(await w.frame.evaluate(() => window.origin), "null");
    assert.deepEqual(await reachParent(w.frame), { document: "SecurityError", top: "SecurityError", frameElement: "null" });
    // The page's `iframe { display: none !important }` and friends do not reach it.
    const box = await w.iframe.boundingBox();
    assert.ok(box && box.width > 500 && box.height > 150, `widget box ${JSON.stringify(box)}`);
    assert.equal(await w.iframe.evaluate((f) => getComputedStyle(f).display), "block");
    const run = await w.frame.locator("#run").evaluate((b) => ({ display: getComputedStyle(b).display, font: getComputedStyle(b).fontFamily }));
    assert.notEqual(run.display, "none");
    assert.doesNotMatch(run.font, /Comic/);
  }
  assert.match(await subset.frame.locator(".pp-embed-title").innerText(), /The Subset pattern · Step 2: /);
  assert.match(await outlier.frame.locator(".pp-embed-title").innerText(), /The Outlier pattern · Step 2: /);
  assert.match(await inline.frame.locator(".pp-embed-title").innerText(), /Pattern Playground/);

  // The inline script is the page's text, verbatim (`<`, `&`, `°`), without the page's indentation.
  const inlineText = await inline.frame.locator("#script-editor .cm-content").innerText();
  assert.match(inlineText, /^db\.readings\.insertMany\(\[\n  \{ sensor: "north"/);
  assert.match(inlineText, /"readings below 22 °C & above 0:", db\.readings\.countDocuments\(\{ celsius: \{ \$lt: 22, \$gt: 0 \} \}\)/);

  // Each lesson widget starts from the data of the steps before its own; the script's from nothing.
  const before = { subset: await dump(subset.frame), outlier: await dump(outlier.frame), inline: await dump(inline.frame) };
  assert.deepEqual(Object.keys(before.subset), ["filmsEmbedded"]);
  assert.equal(before.subset.filmsEmbedded[0].comments.length, 3000);
  assert.deepEqual(Object.keys(before.outlier), ["posts"]);
  assert.equal(before.outlier.posts.length, 1003);
  assert.deepEqual(before.inline, {});

  const idle = await heightFollows(inline);
  const out3 = await run(inline);
  assert.match(out3, /readings below 22 °C & above 0: 2/);
  assert.match(out3, /\{ _id: 'north', avg: 20\.25, n: 2 \}/);
  assert.match(out3, /\{ _id: 'south', avg: 25, n: 2 \}/);
  const ran = await heightFollows(inline);
  assert.ok(ran.outer > idle.outer + 20, `the iframe grew with the output: ${idle.outer} -> ${ran.outer}`);
  assert.equal((await dump(inline.frame)).readings.length, 4);
  assert.deepEqual(await dump(subset.frame), before.subset, "running the script widget left the subset widget's data alone");
  assert.deepEqual(await dump(outlier.frame), before.outlier, "running the script widget left the outlier widget's data alone");

  const out1 = await run(subset);
  assert.match(out1, /embedded film: \d+ bytes \| subset film: \d+ bytes/);
  const out2 = await run(outlier);
  assert.match(out2, /posts flagged: 3 of 1003 \| likes moved: 34500 \| overflow documents: 36/);
  assert.deepEqual(Object.keys(await dump(subset.frame)).sort(), ["comments", "films", "filmsEmbedded"]);
  assert.deepEqual(Object.keys(await dump(outlier.frame)).sort(), ["likeOverflow", "posts"]);
  assert.deepEqual(Object.keys(await dump(inline.frame)), ["readings"], "the lesson widgets' runs left the script widget's data alone");
  // Each widget still shows its own output.
  assert.equal(await inline.frame.locator("pre.output").innerText(), out3);
  assert.doesNotMatch(out3, /posts flagged|embedded film/);

  await shootWhole(page, "embed-demo.png");
  for (const [name, w] of Object.entries({ subset, outlier, inline })) await w.el.screenshot({ path: join(SHOTS, `embed-widget-${name}.png`) });

  // Every run starts from the same data: a second run inserts the same four readings, not eight.
  assert.equal(await run(inline), out3);
  assert.equal((await dump(inline.frame)).readings.length, 4);

  // The height follows the content down again when the output shrinks.
  await setScript(inline, 'print("short")');
  assert.equal((await run(inline)).trim(), "short");
  const short = await heightFollows(inline);
  assert.ok(short.outer < ran.outer - 40, `the iframe shrank with the output: ${ran.outer} -> ${short.outer}`);
  await setScript(inline, 'for (let i = 0; i < 40; i++) print("line", i)');
  await run(inline);
  const long = await heightFollows(inline);
  assert.ok(long.outer > short.outer + 150, `the iframe grew with the output: ${short.outer} -> ${long.outer}`);

  // A height message from anything but the widget's own iframe is ignored.
  await page.evaluate(() => window.postMessage({ pp: "pattern-playground:height", w: "pp3", height: 5 }, "*"));
  await page.waitForTimeout(300);
  assert.equal((await inline.iframe.boundingBox()).height, long.outer);

  assert.deepEqual(errors, []);
  await context.close();
});

test("'Open in the playground' opens the full playground at that step, with the edit and the earlier steps' data", async () => {
  const { context, page } = await open(`${site.url}embed-demo.html`);
  const [subset] = await widgets(page, 3);
  await setScript(subset, 'db.filmsEmbedded.countDocuments()');
  const link = subset.frame.locator("a.pp-embed-open");
  assert.equal(await link.getAttribute("target"), "_blank");
  const href = await link.getAttribute("href");
  // The lesson's own page, which paints that lesson before the app runs.
  assert.match(href, /^lesson-subset\.html#s=/);
  const saved = JSON.parse(inflateRawSync(Buffer.from(href.replace(/^lesson-subset\.html#s=/, ""), "base64url")).toString());
  assert.equal(saved.lesson, "subset");
  assert.equal(saved.step, 1);
  assert.equal(saved.scripts["1"], "db.filmsEmbedded.countDocuments()");
  // Step 1's data is carried as the run that makes it (the lesson's own script and its
  // ObjectIds), not as its writes: a short link, which the playground runs again.
  assert.ok(href.length <= 4096, `${href.length} characters`);
  assert.deepEqual(saved.session.entries.map((e) => [e.writes.length, e.lesson_run?.step, e.lesson_run?.left_out?.count > 0]), [[0, 0, true]]);
  // A click opens a normal tab (the popup escapes the sandbox): the playground with its storage.
  const [tab] = await Promise.all([context.waitForEvent("page"), link.click()]);
  await tab.waitForFunction(() => window.ppReady === true, null, { timeout: 120_000 });
  assert.equal(await tab.evaluate(() => window.origin), new URL(site.url).origin);
  assert.match(await tab.locator(".lesson-text h2").innerText(), /The Subset pattern/);
  assert.equal(await tab.locator("ol.steps [aria-current=step]").innerText(), await tab.locator("ol.steps button").nth(1).innerText());
  const data = await dump(tab);
  assert.equal(data.filmsEmbedded.length, 1);
  assert.equal(data.filmsEmbedded[0].comments.length, 3000);
  assert.match(await tab.locator("#script-editor .cm-content").innerText(), /db\.filmsEmbedded\.countDocuments\(\)/);
  await context.close();
});

test("on a course site of another origin a widget keeps the playground's origin and still cannot reach the page; bad parameters are reported", async () => {
  const dir = await mkdtemp(join(tmpdir(), "pp-course-"));
  await writeFile(
    join(dir, "course.html"),
    `<!doctype html><html><head><title>Another course</title>
<style>iframe { display: none !important } body > * { max-width: 120px !important; font-size: 40px !important }</style></head>
<body><h1>Lesson</h1>
<pattern-playground><script type="text/mongosh">
    db.c.insertOne({ a: 1 });
    print(db.c.find({}, { _id: 0 }).toArray());
</script></pattern-playground>
<p>And a widget with a typo:</p>
<pattern-playground lesson="subsett"></pattern-playground>
<pattern-playground lesson="subset" step="99"></pattern-playground>
<pattern-playground lesson="subset" step="two"></pattern-playground>
<script src="${site.url}embed.js" defer></script>
</body></html>`,
  );
  const course = await serve(dir);
  try {
    const { context, page, errors } = await open(`${course.url}course.html`);
    const hosts = page.locator("pattern-playground");
    await hosts.first().locator("iframe").waitFor({ state: "attached" });
    const iframe = hosts.first().locator("iframe");
    assert.equal(await iframe.getAttribute("sandbox"), SITE_ORIGIN);
    const frame = await (await iframe.elementHandle()).contentFrame();
    await frame.waitForFunction(() => window.ppReady === true, null, { timeout: 120_000 });
    const w = { el: hosts.first(), iframe, frame };
    assert.equal(await frame.evaluate(() => window.origin), new URL(site.url).origin);
    assert.deepEqual(await reachParent(frame), { document: "SecurityError", top: "SecurityError", frameElement: "null" });
    assert.equal((await run(w)).trim(), "[ { a: 1 } ]");
    const box = await iframe.boundingBox();
    assert.ok(box.width > 600, `the page's max-width does not squash the widget: ${box.width}px`);
    await heightFollows(w);

    // Wrong parameters are reported in the widget, sized to the message.
    const wrong = [
      [1, /there is no lesson "subsett"; the lessons are .*subset/],
      [2, /The Subset pattern has \d+ steps, not 99/],
      [3, /step must be a number from 1, not "two"/],
    ];
    for (const [i, message] of wrong) {
      const bad = { el: hosts.nth(i), iframe: hosts.nth(i).locator("iframe") };
      bad.frame = await (await bad.iframe.elementHandle()).contentFrame();
      await bad.frame.locator(".notice.error").waitFor({ timeout: 60_000 });
      assert.match(await bad.frame.locator(".notice.error").innerText(), message);
      const h = await heightFollows(bad);
      assert.ok(h.outer < 200, `${h.outer}px for an error message`);
    }
    await shootWhole(page, "embed-other-origin.png");
    assert.deepEqual(errors, []);
    await context.close();
  } finally {
    await course.close();
    await rm(dir, { recursive: true, force: true });
  }
});

test("a widget's run that names time zones before the time-zone file came waits for it and runs again from the widget's data", async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  // The widgets' pages fetch the file once interactive: held back until the run waits for it.
  const zones = await holdTimeZones(context);
  try {
    const page = await context.newPage();
    const errors = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.goto(`${site.url}embed-demo.html`);
    const [, , inline] = await widgets(page, 3);
    await setScript(
      inline,
      'db.e.insertOne({ _id: 1, at: ISODate("2024-07-01T00:00:00Z"), zone: "Asia/Kolkata" }); db.e.aggregate([{ $project: { ny: { $dateToString: { date: "$at", timezone: "America/New_York", format: "%H:%M" } }, local: { $dateToString: { date: "$at", timezone: "$zone", format: "%H:%M %z" } } } }]).forEach((d) => print(d.ny + " | " + d.local))',
    );
    const output = run(inline);
    await page.waitForTimeout(1500);
    assert.ok(zones.asked() > 0, "the widget asked for the time-zone file");
    assert.equal(await inline.frame.evaluate(() => document.querySelector("#run").disabled), true, "the run waits for the time-zone file");
    zones.release();
    const out = await output;
    assert.match(out, /^20:00 \| 05:30 \+0530$/m);
    assert.doesNotMatch(out, /E11000|Error/);
    assert.deepEqual(errors, []);
  } finally {
    zones.release();
    await context.close();
  }
});
