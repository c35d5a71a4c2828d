// Browser tests of the playground: the built site (make dist) served from 127.0.0.1 and driven
// with playwright-core in Debian's Chromium (never a downloaded browser). Run by
// `make test-browser` (node --test). Screenshots of each main view go to tests/screenshots/.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdir, readFile } from "node:fs/promises";
import { gzipSync } from "node:zlib";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { serve } from "./server.mjs";
import { replayExport, holdTimeZones } from "./browser.mjs";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const DIST = join(ROOT, "dist");
const SHOTS = join(ROOT, "tests", "screenshots");
const CHROMIUM = process.env.CHROMIUM_PATH || "/usr/bin/chromium";
const ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];

let server;
let browser;

before(async () => {
  server = await serve(DIST, { prefix: "/sub/path" });
  // playwright's launch() gives Chromium a fresh, temporary --user-data-dir of its own (and removes
  // it on close); contexts are isolated from one another (storage, cookies) on top of that.
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS, headless: true });
  await mkdir(SHOTS, { recursive: true });
});

after(async () => {
  await browser?.close();
  await server?.close();
});

/** A fresh context and page; fails the test on any uncaught page error. */
async function open(url = server.url, { width = 1280, height = 900 } = {}) {
  const context = await browser.newContext({ viewport: { width, height } });
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  const t0 = Date.now();
  await page.goto(url);
  await page.waitForFunction(() => window.ppReady === true, null, { timeout: 60_000 });
  const ready = Date.now() - t0;
  return { context, page, errors, ready };
}

const tab = (page, name) => page.getByRole("tab", { name }).click();

async function setScript(page, text) {
  // On a narrow screen the editor is below the lesson: CodeMirror loads once the learner scrolls.
  // (The editor element is replaced when CodeMirror takes over: scroll it from the page.)
  await page.evaluate(() => document.getElementById("script-editor")?.scrollIntoView({ block: "nearest" }));
  await page.locator("#script-editor .cm-content").click();
  await page.keyboard.press("ControlOrMeta+a");
  await page.keyboard.press("Delete");
  await page.keyboard.insertText(text);
}

async function runStep(page, n) {
  await page.locator("ol.steps button").nth(n).click();
  await page.locator("#run").click();
  await page.waitForFunction(() => !document.querySelector("#run")?.disabled && document.querySelector("pre.output .line"), null, { timeout: 30_000 });
}

async function runAllSteps(page) {
  const n = await page.locator("ol.steps button").count();
  for (let i = 0; i < n; i++) await runStep(page, i);
  return n;
}

/** Every collection's documents (canonical EJSON), read through the page's test hook. */
async function dump(page) {
  return page.evaluate(async () => {
    const cmd = async (c) => JSON.parse(await window.ppCommand(JSON.stringify(c)));
    const names = (await cmd({ listCollections: 1 })).cursor.firstBatch.map((c) => c.name).sort();
    const out = {};
    for (const n of names) {
      out[n] = {
        docs: (await cmd({ find: n, filter: {}, batchSize: { $numberInt: "1000000" } })).cursor.firstBatch,
        indexes: (await cmd({ listIndexes: n })).cursor.firstBatch,
      };
    }
    return out;
  });
}

const auditCount = (page, name) => page.locator(`li.audit[data-audit="${name}"] .count`).innerText();

test("opens the first lesson and runs a step; reports time to interactive and download sizes", async () => {
  const { context, page, errors, ready } = await open();
  await page.locator("#script-editor .cm-content").waitFor();
  console.log(`# time to interactive (first lesson, editor and engine ready): ${ready} ms`);
  const files = [];
  for (const [path, bytes] of server.sent) {
    const body = await readFile(join(DIST, path));
    files.push({ path, kb: bytes / 1024, gz: gzipSync(body, { level: 9 }).length / 1024 });
  }
  files.sort((a, b) => b.gz - a.gz);
  for (const f of files) console.log(`# download ${f.path}: ${f.kb.toFixed(1)} KB, ${f.gz.toFixed(1)} KB gzipped`);
  console.log(`# download total: ${files.reduce((a, f) => a + f.gz, 0).toFixed(1)} KB gzipped`);
  await page.screenshot({ path: join(SHOTS, "lesson-1280.png"), fullPage: true });
  await runStep(page, 0);
  const out = await page.locator("pre.output").innerText();
  assert.match(out, /film document size: \d+ bytes/);
  assert.deepEqual(errors, []);
  await page.screenshot({ path: join(SHOTS, "lesson-run.png"), fullPage: true });
  await context.close();
});

test("the lesson is usable at 390 px wide and the editor runs with Ctrl+Enter", async () => {
  const { context, page } = await open(server.url, { width: 390, height: 844 });
  // The editor is below the lesson's text: CodeMirror is not fetched until the learner scrolls.
  assert.equal(await page.evaluate(() => [...document.scripts].some((s) => /editor\.js$/.test(s.src))), false);
  await setScript(page, 'print("hello from " + "ctrl-enter")');
  await page.keyboard.press("Control+Enter");
  await page.locator("pre.output .line", { hasText: "hello from ctrl-enter" }).waitFor();
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 1, `page is ${overflow}px wider than the viewport`);
  await page.screenshot({ path: join(SHOTS, "lesson-390.png"), fullPage: true });
  await context.close();
});

test("edit a document and see its size change", async () => {
  const { context, page } = await open();
  await runStep(page, 0);
  await runStep(page, 1);
  await tab(page, "Data");
  await page.getByRole("button", { name: "films", exact: true }).click();
  await page.locator(".doc-button").first().click();
  const sizeText = () => page.locator(".doc-size").innerText();
  await page.locator(".doc-size", { hasText: "BSON size" }).waitFor();
  const before = await sizeText();
  await page.screenshot({ path: join(SHOTS, "data.png"), fullPage: true });
  await page.getByRole("button", { name: "Edit", exact: true }).click();
  const area = page.locator("#doc-edit");
  const doc = JSON.parse(await area.inputValue());
  // An invalid edit is refused with a position.
  await area.fill('{ "_id": "F-1001", "title": }');
  await page.locator("#doc-edit-status", { hasText: "line 1, column" }).waitFor();
  assert.equal(await page.getByRole("button", { name: "Save document" }).isDisabled(), true);
  doc.note = "x".repeat(1000);
  await area.fill(JSON.stringify(doc, null, 2));
  await page.getByRole("button", { name: "Save document" }).click();
  await page.waitForFunction((b) => document.querySelector(".doc-size")?.innerText !== b, before);
  const after = await sizeText();
  const bytes = (t) => Number(/\((\d+) bytes\)/.exec(t)[1]);
  assert.ok(bytes(after) >= bytes(before) + 1000, `${before} -> ${after}`);
  await context.close();
});

test("preview and apply an update and see the diff", async () => {
  const { context, page } = await open();
  await runStep(page, 0);
  await runStep(page, 1);
  await tab(page, "Update");
  await page.getByLabel("Ready-made update").selectOption({ label: "Subset: push a comment, keep the newest ten" });
  await page.locator("#preview-update").click();
  await page.locator(".preview-counts", { hasText: "1 matched · 1 modified" }).waitFor();
  const paths = await page.locator("table.diff th[scope=row]").allInnerTexts();
  assert.ok(paths.some((p) => p.startsWith("recentComments")), paths.join(","));
  assert.ok(paths.includes("commentCount"), paths.join(","));
  await page.screenshot({ path: join(SHOTS, "update-preview.png"), fullPage: true });
  await page.locator("#apply-update").click();
  await page.locator(".notice", { hasText: "Applied: 1 matched, 1 modified" }).waitFor();
  await context.close();
});

test("an audit goes up after a stale write and back to 0 after Repair", async () => {
  const { context, page } = await open();
  for (const i of [0, 1, 2, 3]) await runStep(page, i);
  await tab(page, "Audits");
  const name = "Inline comments over the cap";
  await page.waitForFunction((n) => document.querySelector(`li.audit[data-audit="${n}"] .count`)?.innerText === "0", name);
  await tab(page, "Lesson");
  await runStep(page, 4);
  await tab(page, "Audits");
  await page.waitForFunction((n) => document.querySelector(`li.audit[data-audit="${n}"] .count`)?.innerText === "1", name);
  await page.locator(`li.audit[data-audit="${name}"]`).getByRole("button", { name: "Show documents" }).click();
  await page.locator(`li.audit[data-audit="${name}"] ul.drifted li`).first().waitFor();
  await page.screenshot({ path: join(SHOTS, "audits.png"), fullPage: true });
  await page.locator(`li.audit[data-audit="${name}"]`).getByRole("button", { name: "Repair" }).click();
  await page.waitForFunction((n) => document.querySelector(`li.audit[data-audit="${n}"] .count`)?.innerText === "0", name);
  assert.equal(await auditCount(page, name), "0");
  await context.close();
});

test("aggregation runs stage by stage; sizes chart and costs show", async () => {
  const { context, page } = await open();
  await runStep(page, 0);
  await runStep(page, 1);
  await tab(page, "Aggregate");
  await page.getByLabel("Collection", { exact: true }).fill("filmsEmbedded");
  await page.locator("#pipeline-text").fill('[{"$match": {}}, {"$project": {"n": {"$size": "$comments"}}}, {"$sort": {"n": -1}}]');
  await page.getByRole("button", { name: "Run stage by stage" }).click();
  await page.locator(".stage-list button").nth(2).waitFor();
  assert.equal(await page.locator(".stage-list button").count(), 3);
  await page.locator(".stage-list button").first().click();
  await page.screenshot({ path: join(SHOTS, "aggregate.png"), fullPage: true });
  await tab(page, "Sizes");
  await page.getByLabel("Collection for the size chart").selectOption("comments");
  await page.locator(".chart figcaption", { hasText: "3000 documents" }).waitFor();
  assert.ok((await page.locator(".chart svg rect.hbar").count()) > 1);
  await page.locator("dl.costs").waitFor();
  // Both axes are labelled, with ticks at 0, the middle and the end.
  assert.deepEqual(await page.locator(".chart svg .axis-title").allTextContents(), ["Document size (BSON bytes)", "Documents"]);
  const ticks = await page.locator(".chart svg text.tick").allTextContents();
  assert.equal(ticks.filter((t) => t === "0").length, 1, ticks.join(" | "));
  assert.ok(ticks.length >= 5, ticks.join(" | "));
  assert.ok(ticks.some((t) => /B$/.test(t) && t !== "0 B"), ticks.join(" | "));
  await page.screenshot({ path: join(SHOTS, "sizes.png"), fullPage: true });
  await context.close();
});

test("the Schema tab shows each field's presence, types and bytes, and the advisor's findings", async () => {
  const { context, page, errors } = await open();
  await setScript(page, [
    "db.posts.insertMany([",
    "  { _id: 1, title: 'viral', likes: Array.from({ length: 1200 }, (_, i) => 'u' + i) },",
    "  { _id: 2, title: 'quiet', likes: ['a'] },",
    "  { _id: 3, title: 7 },",
    "]);",
    "db.posts.createIndex({ title: 1 });",
    "db.posts.createIndex({ title: 1, _id: 1 });",
    "db.posts.find({ title: /VIR/i }).toArray();",
    'print("seeded")',
  ].join("\n"));
  await page.locator("#run").click();
  await page.locator("pre.output .line", { hasText: "seeded" }).waitFor();
  await tab(page, "Schema");
  await page.getByLabel("Collection to analyse").selectOption("posts");
  await page.locator(".schema-summary", { hasText: "3 documents" }).waitFor();
  assert.match(await page.locator(".schema-summary").innerText(), /every document analysed/);
  const row = (path) => page.locator("table.schema-fields tbody tr", { has: page.locator("th.path", { hasText: new RegExp(`^${path}$`) }) });
  assert.deepEqual(await row("likes").locator("td").allInnerTexts().then((t) => t.slice(0, 4)), ["66.67%", "array 100% (elements: string 100%)", "1 / 600.5 / 1200", "0"]);
  assert.equal(await row("title").locator("td").nth(1).innerText(), "int 33.33% · string 66.67%");
  // The lengths' histogram: ten buckets of 120 from 1 to 1 200, one array at each end.
  const lengths = await row("likes").locator(".length-histogram").getAttribute("aria-label");
  assert.equal(lengths, "Arrays by length: " + Array.from({ length: 10 }, (_, i) => `${1 + 120 * i}–${120 * (i + 1)}: ${i === 0 || i === 9 ? 1 : 0}`).join(", "));
  assert.equal(await row("likes").locator(".length-histogram .bar").count(), 10);
  // The likes carry most of the bytes.
  assert.match(await row("likes").locator("td.bytes-cell").innerText(), /KiB · 9\d(\.\d+)?%/);
  const kinds = await page.locator("li.finding").evaluateAll((els) => els.map((e) => e.dataset.kind));
  // The script's case-insensitive regex read reaches the advisor too.
  for (const k of ["bloatedDocument", "largeArray", "redundantIndex", "caseInsensitiveRegex"]) assert.ok(kinds.includes(k), `${k} in ${kinds}`);
  assert.match(await page.locator("li.finding[data-kind=caseInsensitiveRegex]").innerText(), /'title' with a case-insensitive regex/);
  assert.equal(await page.locator("li.finding[data-kind=largeArray] a").getAttribute("href"), "?lesson=subset");
  await page.screenshot({ path: join(SHOTS, "schema.png"), fullPage: true });
  // The large array's finding drafts the Subset trim; the Update tab previews what it saves.
  await page.locator("li.finding[data-kind=largeArray] button.draft").click();
  assert.equal(await page.getByRole("tab", { name: "Update" }).getAttribute("aria-selected"), "true");
  await page.locator("#preview-update").click();
  await page.locator(".preview-counts", { hasText: "1 matched · 1 modified" }).waitFor();
  assert.match(await page.locator(".size-change").first().innerText(), /KiB → .* \(−/);
  assert.deepEqual(errors, []);
  await context.close();
});

test("the advisor's other findings draft their fixes: an index dropped, a join written with $merge, collections merged", async () => {
  const { context, page, errors } = await open();
  await setScript(page, [
    "db.customers.insertMany([{ _id: 7, name: 'Ann' }, { _id: 8, name: 'Bo' }]);",
    "db.orders.insertMany([{ _id: 1, customerId: 7, total: 5 }, { _id: 2, customerId: 8, total: 9 }]);",
    "db.orders.createIndex({ total: 1 });",
    "db.orders.createIndex({ customerId: 1 });",
    "const join = { from: 'customers', localField: 'customerId', foreignField: '_id', as: 'customer' };",
    "db.orders.aggregate([{ $match: { total: { $gt: 1 } } }, { $lookup: join }]).toArray();",
    "db.orders.aggregate([{ $lookup: join }, { $unwind: '$customer' }]).toArray();",
    "for (const m of ['01', '02', '03']) db['temps_2024_' + m].insertMany([{ day: 1, celsius: 20 }, { day: 2, celsius: 21 }]);",
    'print("seeded")',
  ].join("\n"));
  await page.locator("#run").click();
  await page.locator("pre.output .line", { hasText: "seeded" }).waitFor();
  const cmd = (c) => page.evaluate(async (c) => JSON.parse(await window.ppCommand(JSON.stringify(c))), c);
  await tab(page, "Schema");
  await page.getByLabel("Collection to analyse").selectOption("orders");
  await page.locator("li.finding[data-kind=lookupOnRead]").waitFor();
  assert.match(await page.locator("li.finding[data-kind=lookupOnRead]").innerText(), /every one of the session's 2 reads of 'orders' joins 'customers'/);
  // The index no read used: dropping it says what it frees and asks once more.
  const unused = page.locator("li.finding[data-kind=unusedIndex]");
  assert.match(await unused.innerText(), /index 'customerId_1' was used by none/);
  await unused.locator("button.draft", { hasText: /^Drop this index \(frees \d+(\.\d+)? (B|KiB)\)…$/ }).click();
  await unused.locator("button.drop-index").click();
  await page.locator("li.finding[data-kind=unusedIndex]").waitFor({ state: "detached" });
  assert.deepEqual((await cmd({ listIndexes: "orders" })).cursor.firstBatch.map((i) => i.name), ["_id_", "total_1"]);
  // The join, written into the documents: stepped through first, then run with its $merge.
  await page.locator("li.finding[data-kind=lookupOnRead] button.draft").click();
  assert.equal(await page.getByRole("tab", { name: "Aggregate" }).getAttribute("aria-selected"), "true");
  assert.match(await page.locator("#pipeline-text").inputValue(), /"\$merge"/);
  await page.getByRole("button", { name: "Run stage by stage" }).click();
  await page.locator("ol.stage-list button", { hasText: "1. $lookup → 2 docs" }).waitFor();
  assert.equal((await cmd({ find: "orders", filter: { customer: { $exists: true } } })).cursor.firstBatch.length, 0);
  await page.locator("#apply-pipeline").click();
  await page.locator(".notice", { hasText: "The pipeline ran on orders" }).waitFor();
  const orders = (await cmd({ find: "orders", filter: {}, sort: { _id: 1 } })).cursor.firstBatch;
  assert.deepEqual(orders.map((o) => o.customer.map((c) => c.name)), [["Ann"], ["Bo"]]);
  // Three collections of one shape, merged into one with a field telling them apart.
  await tab(page, "Schema");
  await page.getByLabel("Collection to analyse").selectOption("temps_2024_02");
  const shape = page.locator("li.finding[data-kind=sameShapeCollections]");
  assert.match(await shape.innerText(), /3 collections of this database hold documents with the same fields \(celsius, day\)/);
  await page.screenshot({ path: join(SHOTS, "advisor.png"), fullPage: true });
  await shape.locator("button.draft").click();
  await page.getByRole("button", { name: "Run stage by stage" }).click();
  await page.locator("ol.stage-list button", { hasText: "3. $unionWith → 6 docs" }).waitFor();
  await page.locator("#apply-pipeline").click();
  await page.locator(".notice", { hasText: "The pipeline ran on temps_2024_01" }).waitFor();
  const merged = (await cmd({ aggregate: "temps", pipeline: [{ $group: { _id: "$source", n: { $sum: 1 } } }, { $sort: { _id: 1 } }], cursor: {} })).cursor.firstBatch;
  assert.deepEqual(merged, ["temps_2024_01", "temps_2024_02", "temps_2024_03"].map((s) => ({ _id: s, n: { $numberInt: "2" } })));
  // The UI's writes are in the session: a reload replays them.
  // (At once: the save waits for 300 ms of quiet, and leaving the page must not lose it.)
  await page.reload();
  await page.waitForFunction(() => window.ppReady === true, null, { timeout: 60_000 });
  assert.equal((await cmd({ count: "temps" })).n.$numberInt, "6");
  assert.deepEqual((await cmd({ listIndexes: "orders" })).cursor.firstBatch.map((i) => i.name), ["_id_", "total_1"]);
  assert.deepEqual(errors, []);
  await context.close();
});

test("a run that prints nothing says so; an uncaught error marks its line until the next edit", async () => {
  const { context, page, errors } = await open();
  await setScript(page, "db.quiet.insertOne({ _id: 1 });\ndb.quiet.insertOne({ _id: 2 });");
  await page.locator("#run").click();
  const summary = page.locator("pre.output .run-summary");
  await summary.waitFor();
  assert.match(await summary.innerText(), /^The script ran in \d+ ms, printed nothing and made 2 writes\.$/);
  await setScript(page, 'print("one");\nprint(missing);\nprint("three");');
  await page.locator("#run").click();
  await page.locator("pre.output .error-line").waitFor();
  const marked = page.locator("#script-editor .cm-error-line");
  await marked.waitFor();
  assert.equal(await marked.count(), 1);
  assert.equal(await marked.innerText(), "print(missing);");
  await page.locator("#script-editor .cm-content").click();
  await page.keyboard.press("End");
  await page.keyboard.insertText(" ");
  await page.waitForFunction(() => document.querySelectorAll("#script-editor .cm-error-line").length === 0);
  assert.deepEqual(errors, []);
  await context.close();
});

test("export the session, re-run it headlessly and compare the databases", async () => {
  const { context, page } = await open();
  await runAllSteps(page);
  // A UI write too, with hostile text.
  await tab(page, "Data");
  await page.getByRole("button", { name: "+ Insert a document" }).click();
  await page.getByLabel("Collection", { exact: true }).fill("hostile");
  await page.locator("#new-doc-text").fill(JSON.stringify({ s: "quote\" back\\ </script> \u2028 é 🍃 ${x} `", nested: { "$weird": 1, "a b": [1.5, { $numberLong: "9007199254740993" }] } }));
  await page.getByRole("button", { name: "Insert", exact: true }).click();
  await page.locator(".notice", { hasText: "Document inserted." }).waitFor();
  const expected = await dump(page);
  await tab(page, "Export & share");
  const script = await page.locator("#export-script").innerText();
  await page.screenshot({ path: join(SHOTS, "export.png"), fullPage: true });
  assert.match(script, /insertMany\(\[\{ "/);
  assert.doesNotMatch(script, /EJSON\.parse/);
  assert.match(script, /Health check/);
  assert.deepEqual(await replayExport(script), expected);
  await context.close();
});

test("reload finds the state; a share link opens the same playground in a fresh browser context", async () => {
  const { context, page } = await open();
  await runStep(page, 0);
  await setScript(page, 'db.notes.insertOne({ _id: 1, text: "kept" }); print("edited")');
  await page.locator("#run").click();
  await page.locator("pre.output .line", { hasText: "edited" }).waitFor();
  const expected = await dump(page);
  await page.reload();
  await page.waitForFunction(() => window.ppReady === true);
  assert.deepEqual(await dump(page), expected);
  assert.match(await page.locator("#script-editor .cm-content").innerText(), /kept/);
  await tab(page, "Export & share");
  const link = await page.locator("#share-link").inputValue();
  assert.ok(link.includes("#s="), link.slice(0, 200));
  const other = await open(link);
  assert.deepEqual(await dump(other.page), expected);
  await other.page.locator(".notice", { hasText: "Opened a shared playground." }).waitFor();
  await other.context.close();
  // A damaged link gives a message and a fresh playground, never a blank page.
  const broken = await open(server.url + "#s=AAAAnot-a-playground");
  await broken.page.locator(".notice.error", { hasText: "could not be opened" }).waitFor();
  assert.ok(await broken.page.locator("#run").isVisible());
  await broken.context.close();
  await context.close();
});

test("a reload rebuilds writes that name time zones with the time-zone file, which the replay waits for", async () => {
  // Without the service worker, which would answer the reload's request for the file from its cache.
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, serviceWorkers: "block" });
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(server.url);
  await page.waitForFunction(() => window.ppReady === true, null, { timeout: 60_000 });
  await setScript(
    page,
    'db.events.insertMany([{ _id: 1, at: ISODate("2024-07-01T00:00:00Z"), zone: "Asia/Kolkata" }, { _id: 2, at: ISODate("2024-01-15T12:00:00Z"), zone: "Europe/Paris" }]);\n' +
      'db.events.updateMany({}, [{ $set: { local: { $dateToString: { date: "$at", timezone: "$zone", format: "%H:%M %z" } }, ny: { $hour: { date: "$at", timezone: "America/New_York" } }, times: { $add: [{ $ifNull: ["$times", 0] }, 1] } } }]);\n' +
      'print("done")',
  );
  await page.locator("#run").click();
  await page.locator("pre.output .line", { hasText: "done" }).waitFor();
  const expected = await dump(page);
  // `times` counts the update's applications: a write replayed twice would show.
  const events = (d) => JSON.stringify(d).match(/"local":"[^"]*"|"(ny|times)":\{"\$numberInt":"\d+"\}/g);
  assert.deepEqual(events(expected), ['"local":"05:30 +0530"', '"ny":{"$numberInt":"20"}', '"times":{"$numberInt":"1"}', '"local":"13:00 +0100"', '"ny":{"$numberInt":"7"}', '"times":{"$numberInt":"1"}']);
  await page.waitForTimeout(800); // the state is saved 300 ms after the last change
  // The reload: the time-zone file is held back; the session's writes wait for it.
  const zones = await holdTimeZones(context);
  await page.reload();
  await page.waitForFunction(() => typeof window.ppSandbox?.timeZones === "function");
  await page.waitForTimeout(1500);
  assert.ok(zones.asked() > 0, "the replay asked for the time-zone file");
  assert.notEqual(await page.evaluate(() => window.ppReady), true, "the replay waits for the time-zone file");
  zones.release();
  await page.waitForFunction(() => window.ppReady === true, null, { timeout: 60_000 });
  assert.deepEqual(await dump(page), expected);
  assert.equal(await page.locator(".notice.error").count(), 0);
  assert.deepEqual(errors, []);
  await context.close();
});

test("a runaway loop is stopped, the data restored, and the page still works", async () => {
  const { context, page } = await open();
  await runStep(page, 0);
  const expected = await dump(page);
  await page.getByLabel("Script time limit in seconds").fill("2");
  await page.getByLabel("Script time limit in seconds").press("Enter");
  await setScript(page, 'db.filmsEmbedded.deleteMany({}); while (true) {}');
  const t0 = Date.now();
  await page.locator("#run").click();
  await page.locator(".notice.error", { hasText: "was stopped" }).waitFor({ timeout: 20_000 });
  console.log(`# runaway script stopped after ${Date.now() - t0} ms (limit 2 s)`);
  assert.deepEqual(await dump(page), expected);
  await setScript(page, 'print("alive", db.filmsEmbedded.countDocuments({}))');
  await page.locator("#run").click();
  await page.locator("pre.output .line", { hasText: "alive 1" }).waitFor();
  await context.close();
});

test("dark theme follows the system", async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme: "dark" });
  const page = await context.newPage();
  await page.goto(server.url);
  await page.waitForFunction(() => window.ppReady === true);
  const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  assert.notEqual(bg, "rgb(255, 255, 255)");
  await page.screenshot({ path: join(SHOTS, "lesson-dark.png"), fullPage: true });
  await context.close();
});

test("a panic in WebAssembly is reported in a visible banner, and the work survives a reload", async () => {
  const { context, page } = await open();
  await setScript(page, 'print("before the panic")');
  await page.waitForTimeout(500); // the state is saved 300 ms after the last change
  await page.evaluate(() => { try { window.ppTestPanic(); } catch (e) { /* the trap surfaces here */ } });
  await page.locator("#pp-fatal", { hasText: "deliberate panic" }).waitFor();
  assert.ok(await page.getByRole("alert").filter({ hasText: "Something broke" }).isVisible());
  await page.getByRole("button", { name: "Reload" }).click();
  await page.waitForFunction(() => window.ppReady === true);
  assert.match(await page.locator("#script-editor .cm-content").innerText(), /before the panic/);
  await context.close();
});

test("keyboard: the tools are tabs moved with the arrow keys; every control has a name", async () => {
  const { context, page } = await open();
  await page.getByRole("tab", { name: "Lesson" }).focus();
  await page.keyboard.press("ArrowRight");
  assert.equal(await page.getByRole("tab", { name: "Data" }).getAttribute("aria-selected"), "true");
  assert.equal(await page.evaluate(() => document.activeElement.id), "tab-data");
  await page.keyboard.press("End");
  assert.equal(await page.getByRole("tab", { name: "Export & share" }).getAttribute("aria-selected"), "true");
  for (const t of ["Lesson", "Data", "Update", "Aggregate", "Audits", "Sizes", "Schema", "Export & share"]) {
    await tab(page, t);
    const unnamed = await page.evaluate(() =>
      [...document.querySelectorAll("button, input, select, textarea")]
        .filter((el) => el.checkVisibility())
        .filter((el) => !(el.getAttribute("aria-label") || el.labels?.length || el.textContent?.trim() || el.getAttribute("aria-labelledby") || el.title))
        .map((el) => el.outerHTML.slice(0, 120)),
    );
    assert.deepEqual(unnamed, [], `unnamed controls on ${t}`);
  }
  await context.close();
});

test("the data view pages through 10 000 documents", async () => {
  const { context, page } = await open();
  await setScript(page, 'db.many.insertMany(Array.from({ length: 10000 }, (_, i) => ({ _id: i, pad: "x".repeat(i % 500) })));\nprint("inserted", db.many.countDocuments({}))');
  await page.locator("#run").click();
  await page.locator("pre.output .line", { hasText: "inserted 10000" }).waitFor();
  await tab(page, "Data");
  let t0 = Date.now();
  await page.getByRole("button", { name: "many", exact: true }).click();
  await page.locator(".pager", { hasText: "Page 1 of 200" }).waitFor();
  await page.locator(".doc-button").first().waitFor();
  console.log(`# data view: first page of 10 000 documents in ${Date.now() - t0} ms`);
  t0 = Date.now();
  await page.getByLabel("Go to page").fill("150");
  await page.getByLabel("Go to page").press("Enter");
  await page.locator(".doc-id", { hasText: /^7450$/ }).waitFor();
  console.log(`# data view: jump to page 150 in ${Date.now() - t0} ms`);
  t0 = Date.now();
  await page.getByRole("button", { name: "Next →" }).click();
  await page.locator(".doc-id", { hasText: /^7500$/ }).waitFor();
  console.log(`# data view: next page in ${Date.now() - t0} ms`);
  assert.equal(await page.locator(".doc-button").count(), 50);
  await context.close();
});

test("corrupt saved state gives a message and a fresh playground, and is kept aside; Reset lesson empties the database and can be undone", async () => {
  const { context, page } = await open();
  await runStep(page, 0);
  await page.waitForTimeout(600); // saved 300 ms after the last change
  // The open lesson's slot (this deployment's keys are under its path) gets damaged.
  const slot = await page.evaluate(() => Object.keys(localStorage).find((k) => k.includes("/lesson/")));
  assert.match(slot, /^pattern-playground@\/sub\/path\/lesson\//);
  await page.evaluate((k) => localStorage.setItem(k, "this is not a saved playground"), slot);
  await page.reload();
  await page.waitForFunction(() => window.ppReady === true);
  await page.locator(".notice.error", { hasText: "damaged" }).waitFor();
  assert.deepEqual(await dump(page), {});
  const aside = await page.evaluate(() => Object.entries(localStorage).filter(([k]) => k.includes("/aside/")).map(([, v]) => v));
  assert.deepEqual(aside, ["this is not a saved playground"]);
  await runStep(page, 0);
  const ran = await dump(page);
  assert.notDeepEqual(ran, {});
  await page.getByRole("button", { name: "Reset lesson" }).click();
  await page.locator(".notice", { hasText: "The lesson was reset" }).waitFor();
  await page.waitForFunction(async () => JSON.parse(await window.ppCommand('{"listCollections": 1}')).cursor.firstBatch.length === 0);
  await page.getByRole("button", { name: "Restore previous work" }).click();
  await page.locator(".notice", { hasText: "Your earlier work is back." }).waitFor();
  assert.deepEqual(await dump(page), ran);
  await context.close();
});

test("a link with ?lesson=<id>&step=<n> opens that lesson at that step", async () => {
  const { context, page } = await open(server.url + "?lesson=computed&step=2");
  await page.locator(".lesson-text h2", { hasText: "Computed" }).waitFor();
  assert.equal(await page.locator("ol.steps button.current").count(), 1);
  assert.equal(await page.locator("ol.steps button").nth(1).getAttribute("aria-current"), "step");
  await context.close();
});
