// Browser tests of saved work (make dist, served under /sub/path/ on 127.0.0.1, Debian's Chromium):
// one saved state per lesson and per deployment, a share link that would replace work asks first and
// keeps that work as a restorable backup, links that are too large or carry foreign commands are
// refused with a message, and the write log keeps documents exactly (BSON) across a reload.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { deflateRawSync } from "node:zlib";
import { BSON } from "bson";
import { readFile, writeFile, mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serve } from "./server.mjs";
import { DIST, launch, dump, dumpAll, replayExport } from "./browser.mjs";

let server;
let browser;

before(async () => {
  server = await serve(DIST, { prefix: "/sub/path" });
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await server?.close();
});

async function open(url = server.url, context = null) {
  context ??= await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(url);
  await page.waitForFunction(() => window.ppReady === true, null, { timeout: 60_000 });
  return { context, page, errors };
}

async function setScript(page, text) {
  await page.locator("#script-editor .cm-content").click();
  await page.keyboard.press("ControlOrMeta+a");
  await page.keyboard.press("Delete");
  await page.keyboard.insertText(text);
}

/** Runs the editor's script and waits for `marker` in the output and for the save (300 ms quiet). */
async function run(page, marker) {
  await page.locator("#run").click();
  await page.locator("pre.output .line", { hasText: marker }).waitFor({ timeout: 30_000 });
  await page.waitForTimeout(600);
}

const editorText = (page) => page.locator("#script-editor .cm-content").innerText();

/** A share link's fragment for a state given as JSON (what the playground's encode does). */
function shareLink(state) {
  return server.url + "#s=" + deflateRawSync(Buffer.from(JSON.stringify(state)), { level: 9 }).toString("base64url");
}

test("a share link that would replace work asks first; the work is kept as a backup and restored", async () => {
  const { context, page, errors } = await open();
  await setScript(page, 'db.mine.insertOne({ _id: 1 }); print("mine ran")');
  await run(page, "mine ran");
  const mine = await dump(page);
  // Another browser makes a link on the same lesson.
  const other = await open();
  await setScript(other.page, 'db.theirs.insertOne({ _id: 2 }); print("theirs ran")');
  await run(other.page, "theirs ran");
  await other.page.getByRole("tab", { name: "Export & share" }).click();
  const link = await other.page.locator("#share-link").inputValue();
  const theirs = await dump(other.page);
  await other.context.close();

  // Declined: nothing changes, the link's playground is kept aside as a backup.
  let asked = null;
  page.once("dialog", (d) => { asked = d.message(); d.dismiss(); });
  await page.goto("about:blank");
  await page.goto(link);
  await page.waitForFunction(() => window.ppReady === true, null, { timeout: 60_000 });
  assert.match(asked ?? "", /would replace your work on that lesson \(1 edited script\(s\), 1 write\(s\)\)/);
  await page.locator(".notice", { hasText: "The share link was not opened" }).waitFor();
  assert.match(await editorText(page), /mine ran/);
  assert.deepEqual(await dump(page), mine);

  // Accepted: the link's playground opens; "Restore previous work" brings the work back.
  asked = null;
  page.once("dialog", (d) => { asked = d.message(); d.accept(); });
  await page.goto("about:blank");
  await page.goto(link);
  await page.waitForFunction(() => window.ppReady === true, null, { timeout: 60_000 });
  assert.ok(asked);
  await page.locator(".notice", { hasText: "previous work on this lesson is kept as a backup" }).waitFor();
  assert.deepEqual(await dump(page), theirs);
  assert.match(await editorText(page), /theirs ran/);
  await page.getByRole("button", { name: "Restore previous work" }).click();
  await page.locator(".notice", { hasText: "Your earlier work is back." }).waitFor();
  await page.waitForFunction(() => document.querySelector("#script-editor .cm-content")?.innerText.includes("mine ran"));
  assert.deepEqual(await dump(page), mine);
  // The Backups list shows what was replaced, the link's playground among them, restorable too.
  await page.getByRole("tab", { name: "Export & share" }).click();
  const backups = page.locator("#backups li");
  assert.match(await page.locator("#backups").innerText(), /replaced by restoring a backup/);
  assert.match(await page.locator("#backups").innerText(), /replaced by a share link/);
  await backups.filter({ hasText: "replaced by restoring a backup" }).getByRole("button", { name: "Restore" }).click();
  await page.locator(".notice", { hasText: "Your earlier work is back." }).waitFor();
  await page.waitForFunction(() => document.querySelector("#panel-export") !== null);
  assert.deepEqual(await dump(page), theirs);
  // Every key is under this deployment's path (another playground on the origin has its own).
  const keys = await page.evaluate(() => Object.keys(localStorage));
  assert.ok(keys.length > 0);
  for (const k of keys) assert.ok(k.startsWith("pattern-playground@/sub/path/"), k);
  assert.deepEqual(errors, []);
  await context.close();
});

test("switching lessons in the menu and back keeps each lesson's edits and data", async () => {
  const { context, page, errors } = await open();
  const first = await page.getByRole("combobox", { name: "Lesson" }).inputValue();
  await setScript(page, 'db.kept.insertOne({ _id: 1 }); print("first lesson edit")');
  await run(page, "first lesson edit");
  const before = await dump(page);
  await page.getByRole("combobox", { name: "Lesson" }).selectOption("computed");
  await page.locator(".lesson-text h2", { hasText: "Computed" }).waitFor();
  await page.waitForFunction(async () => JSON.parse(await window.ppCommand('{"listCollections": 1}')).cursor.firstBatch.length === 0);
  assert.doesNotMatch(await editorText(page), /first lesson edit/);
  await setScript(page, 'print("computed edit")');
  await page.waitForTimeout(600);
  await page.getByRole("combobox", { name: "Lesson" }).selectOption(first);
  await page.waitForFunction(() => document.querySelector("#script-editor .cm-content")?.innerText.includes("first lesson edit"));
  await page.waitForFunction(async () => JSON.parse(await window.ppCommand('{"listCollections": 1}')).cursor.firstBatch.length > 0);
  assert.deepEqual(await dump(page), before);
  // And the other lesson's edit is there too, after a reload as well.
  await page.waitForTimeout(600); // saved 300 ms after the last change
  await page.reload();
  await page.waitForFunction(() => window.ppReady === true);
  assert.match(await editorText(page), /first lesson edit/);
  await page.getByRole("combobox", { name: "Lesson" }).selectOption("computed");
  await page.waitForFunction(() => document.querySelector("#script-editor .cm-content")?.innerText.includes("computed edit"));
  // ?lesson= opens a lesson from its own slot, replacing nothing.
  await page.goto(server.url + "?lesson=" + first);
  await page.waitForFunction(() => window.ppReady === true);
  assert.match(await editorText(page), /first lesson edit/);
  assert.deepEqual(await dump(page), before);
  assert.deepEqual(errors, []);
  await context.close();
});

test("a document with a field named $date keeps its string across a reload (the log is BSON)", async () => {
  const { context, page } = await open();
  await setScript(page, 'db.t.insertOne({ _id: 1, a: { $date: "2020-01-01T00:00:00Z" } }); print("typed ran")');
  await run(page, "typed ran");
  const expected = { t: [{ _id: { $numberInt: "1" }, a: { $date: "2020-01-01T00:00:00Z" } }] };
  assert.deepEqual(await dump(page), expected);
  await page.reload();
  await page.waitForFunction(() => window.ppReady === true);
  await page.waitForFunction(async () => JSON.parse(await window.ppCommand('{"listCollections": 1}')).cursor.firstBatch.length > 0);
  assert.deepEqual(await dump(page), expected);
  // The export writes that document from its bytes, its "$date" field a field (not a Date): a headless run
  // of it makes the same database.
  await page.getByRole("tab", { name: "Export & share" }).click();
  const script = await page.locator("#export-script").innerText();
  assert.match(script, /insertMany\(\[\{ "_id": 1, "a": \{ "\$date": "2020-01-01T00:00:00Z" \} \}\]\);/);
  assert.doesNotMatch(script, /Note: a document below/);
  assert.deepEqual((await replayExport(script)).t.docs, expected.t);
  await context.close();
});

test("several databases: a script's writes in another database survive a reload, show in the Data tab and export", async () => {
  const { context, page, errors } = await open();
  await setScript(page, [
    'db.orders.insertMany([{ _id: 1, at: 1 }, { _id: 2, at: 2 }]);',
    'db.orders.aggregate([{ $match: { at: { $lt: 2 } } }, { $merge: { into: { db: "archive", coll: "orders" } } }]);',
    'db.getSiblingDB("archive").orders.createIndex({ at: 1 });',
    'db.orders.deleteOne({ _id: 1 });',
    'print("archived", db.getSiblingDB("archive").orders.countDocuments())',
  ].join("\n"));
  await run(page, "archived 1");
  const expected = {
    archive: { orders: [{ _id: { $numberInt: "1" }, at: { $numberInt: "1" } }] },
    test: { orders: [{ _id: { $numberInt: "2" }, at: { $numberInt: "2" } }] },
  };
  assert.deepEqual(await dumpAll(page), expected);
  await page.reload();
  await page.waitForFunction(() => window.ppReady === true);
  await page.waitForFunction(async () => JSON.parse(await window.ppCommand('{"listDatabases": 1, "nameOnly": true, "$db": "admin"}')).databases.length === 2);
  assert.deepEqual(await dumpAll(page), expected);
  // The Data tab offers both databases and shows the archive's documents.
  await page.getByRole("tab", { name: "Data" }).click();
  await page.getByRole("combobox", { name: "Database" }).selectOption("archive");
  await page.locator("section.documents h2", { hasText: "orders" }).waitFor();
  await page.locator(".doc-row .doc-id", { hasText: "1" }).waitFor();
  assert.equal(await page.locator(".doc-row").count(), 1);
  // The export writes there through getSiblingDB, and a headless run of it makes both databases.
  await page.getByRole("tab", { name: "Export & share" }).click();
  const script = await page.locator("#export-script").innerText();
  assert.match(script, /db\.getSiblingDB\("archive"\)\.runCommand\(/);
  const replayed = await replayExport(script, { allDbs: true });
  assert.deepEqual(Object.fromEntries(Object.entries(replayed).map(([d, colls]) => [d, Object.fromEntries(Object.entries(colls).map(([c, v]) => [c, v.docs]))])), expected);
  assert.deepEqual(replayed.archive.orders.indexes.map((i) => i.name), ["_id_", "at_1"]);
  assert.deepEqual(errors, []);
  await context.close();
});

test("import: a mongodump folder picked whole restores each collection, with its indexes, into the database it names; a dropped .bson pairs with its .metadata.json", async () => {
  const { context, page, errors } = await open();
  const root = await mkdtemp(join(tmpdir(), "pp-dump-"));
  const meta = (coll, extra) => JSON.stringify({
    indexes: [{ v: 2, key: { _id: 1 }, name: "_id_" }, ...extra],
    uuid: "0123456789abcdef0123456789abcdef", collectionName: coll, type: "collection", options: {},
  });
  const docs = (...list) => Buffer.concat(list.map((d) => BSON.serialize(d)));
  await mkdir(join(root, "dump", "shop"), { recursive: true });
  await mkdir(join(root, "dump", "admin"), { recursive: true });
  await writeFile(join(root, "dump", "shop", "orders.bson"), docs({ _id: 1, total: 5 }, { _id: 2, total: 9 }));
  await writeFile(join(root, "dump", "shop", "orders.metadata.json"), meta("orders", [{ v: 2, key: { total: -1 }, name: "total_-1" }]));
  await writeFile(join(root, "dump", "shop", "tags.bson"), docs({ _id: "a" }));
  await writeFile(join(root, "dump", "admin", "system.version.bson"), docs({ _id: "featureCompatibilityVersion", version: "8.0" }));
  await writeFile(join(root, "dump", "shop", "events.bson.gz"), Buffer.from([0x1f, 0x8b]));
  await page.getByRole("tab", { name: "Data" }).click();
  await page.locator("details.import summary").click();
  await page.getByLabel("Dump folder to import").setInputFiles(join(root, "dump"));
  await page.locator(".import .pending li").nth(4).waitFor();
  await page.getByRole("button", { name: "Import", exact: true }).click();
  const report = page.locator(".import-report li");
  await report.nth(2).waitFor();
  const lines = await report.allInnerTexts();
  assert.deepEqual(lines.slice(0, 3), [
    "dump/shop/events.bson.gz: compressed dumps (--gzip) are not supported: decompress them first",
    "dump/shop/orders.bson -> shop.orders: 2 document(s) imported, 0 failed. 1 index(es) created.",
    "dump/shop/tags.bson -> shop.tags: 1 document(s) imported, 0 failed.",
  ]);
  // The report stays in the panel; a notice says where it is (the panel may have been closed).
  await page.locator(".notice", { hasText: "Import finished (2 file(s)): the report is in the Data tab's import panel." }).waitFor();
  const cmd = (c) => page.evaluate(async (c) => JSON.parse(await window.ppCommand(JSON.stringify(c))), c);
  const names = async (db) => (await cmd({ listCollections: 1, nameOnly: true, $db: db })).cursor.firstBatch.map((c) => c.name).sort();
  assert.deepEqual(await names("shop"), ["orders", "tags"]);
  assert.deepEqual((await cmd({ listDatabases: 1, nameOnly: true, $db: "admin" })).databases.map((d) => d.name).filter((n) => n !== "admin").sort(), ["shop"]);
  assert.deepEqual((await cmd({ listIndexes: "orders", $db: "shop" })).cursor.firstBatch.map((i) => [i.name, i.key]), [["_id_", { _id: { $numberInt: "1" } }], ["total_-1", { total: { $numberInt: "-1" } }]]);
  // Loose files dropped together pair the same way, into the Data tab's database.
  await page.getByLabel("Files to import", { exact: true }).setInputFiles([
    { name: "items.bson", mimeType: "application/octet-stream", buffer: docs({ _id: 1, sku: "x" }) },
    { name: "items.metadata.json", mimeType: "application/json", buffer: Buffer.from(meta("items", [{ v: 2, key: { sku: 1 }, name: "sku_1", unique: true }])) },
  ]);
  await page.locator(".import .pending li").nth(1).waitFor();
  assert.match(await page.locator(".import .pending li").nth(1).innerText(), /^items\.metadata\.json \(\d+ B\)\s*indexes and options of its collection$/);
  await page.getByRole("button", { name: "Import", exact: true }).click();
  await page.locator(".import-report li", { hasText: "items.bson -> test.items: 1 document(s) imported, 0 failed. 1 index(es) created." }).waitFor();
  assert.deepEqual((await cmd({ listIndexes: "items" })).cursor.firstBatch.map((i) => [i.name, i.unique ?? false]), [["_id_", false], ["sku_1", true]]);
  // Logged with their metadata: a reload restores the indexes too.
  await page.reload();
  await page.waitForFunction(() => window.ppReady === true);
  await page.waitForFunction(async () => JSON.parse(await window.ppCommand('{"listIndexes": "items"}')).cursor?.firstBatch.length === 2);
  assert.deepEqual((await cmd({ listIndexes: "orders", $db: "shop" })).cursor.firstBatch.map((i) => i.name), ["_id_", "total_-1"]);
  assert.deepEqual(errors, []);
  await context.close();
  await rm(root, { recursive: true, force: true });
});

test("import: JSON lines, CSV and a .bson dump land in their collections and survive a reload; a bad file keeps nothing", async () => {
  const { context, page, errors } = await open();
  await page.getByRole("tab", { name: "Data" }).click();
  await page.locator("details.import summary").click();
  const bson = Buffer.concat([BSON.serialize({ _id: 1, at: new Date(0), n: BSON.Long.fromNumber(5) }), BSON.serialize({ _id: 2, d: BSON.Decimal128.fromString("1.10") })]);
  await page.getByLabel("Files to import", { exact: true }).setInputFiles([
    { name: "orders.json", mimeType: "application/json", buffer: Buffer.from('{"_id":1,"total":{"$numberDecimal":"9.90"}}\n{"_id":2,"total":5}\n') },
    { name: "people.csv", mimeType: "text/csv", buffer: Buffer.from("name,age,active\nAda,36,true\nAlan,41,false\n") },
    { name: "items.bson", mimeType: "application/octet-stream", buffer: bson },
  ]);
  await page.locator(".import .pending li").nth(2).waitFor();
  await page.getByLabel("Collection for people.csv").fill("staff");
  await page.getByRole("button", { name: "Import", exact: true }).click();
  const report = page.locator(".import-report li");
  await report.nth(2).waitFor();
  assert.deepEqual(await report.allInnerTexts(), [
    "orders.json -> test.orders: 2 document(s) imported, 0 failed.",
    "people.csv -> test.staff: 2 document(s) imported, 0 failed.",
    "items.bson -> test.items: 2 document(s) imported, 0 failed.",
  ]);
  const expected = {
    items: [{ _id: { $numberInt: "1" }, at: { $date: { $numberLong: "0" } }, n: { $numberLong: "5" } }, { _id: { $numberInt: "2" }, d: { $numberDecimal: "1.10" } }],
    orders: [{ _id: { $numberInt: "1" }, total: { $numberDecimal: "9.90" } }, { _id: { $numberInt: "2" }, total: { $numberInt: "5" } }],
    staff: (await dump(page)).staff,
  };
  // CSV typed as mongoimport types it: numbers become numbers, `true` stays a string.
  assert.deepEqual(expected.staff.map((d) => [d.name, d.age, d.active]), [["Ada", { $numberInt: "36" }, "true"], ["Alan", { $numberInt: "41" }, "false"]]);
  assert.deepEqual(await dump(page), expected);
  // A file with a bad line stops there and leaves nothing of itself.
  await page.getByLabel("Data to import").fill('{"_id":1}\n{"_id": }\n');
  await page.getByLabel("Pasted data's file name").fill("bad.json");
  await page.getByRole("button", { name: "Import", exact: true }).click();
  await page.locator(".import-report li", { hasText: "bad.json -> test.bad: stopped at an error; nothing of this file was kept." }).waitFor();
  assert.match(await report.nth(1).innerText(), /^bad\.json:2: /);
  assert.deepEqual(await dump(page), expected);
  // The imports are in the log with their files: a reload imports them again.
  await page.waitForTimeout(600);
  await page.reload();
  await page.waitForFunction(() => window.ppReady === true);
  await page.waitForFunction(async () => JSON.parse(await window.ppCommand('{"listCollections": 1}')).cursor.firstBatch.length === 3);
  assert.deepEqual(await dump(page), expected);
  await page.getByRole("tab", { name: "Export & share" }).click();
  assert.match(await page.locator("#export-script").innerText(), /imported the file "items\.bson" into test\.items: load it there with mongorestore/);
  await page.locator(".imported-data", { hasText: "a link cannot carry" }).waitFor();
  // No link (it cannot carry the files): the button offers the data export instead.
  assert.equal(await page.locator("#share-link").count(), 0);
  await page.locator("#export-data").click();
  assert.equal(await page.getByRole("tab", { name: "Data" }).getAttribute("aria-selected"), "true");
  // Data export: the .bson dump gives back the imported file byte for byte; canonical JSON lines
  // imported again make the same documents.
  await page.getByRole("tab", { name: "Data" }).click();
  await page.locator("button.coll-name", { hasText: "items" }).click();
  const save = async (format) => {
    const [download] = await Promise.all([page.waitForEvent("download"), page.locator(`.export-data button[data-format=${format}]`).click()]);
    return { name: download.suggestedFilename(), bytes: await readFile(await download.path()) };
  };
  const dumped = await save("bson");
  assert.equal(dumped.name, "items.bson");
  assert.ok(dumped.bytes.equals(bson));
  const lines = await save("canonical");
  assert.equal(lines.name, "items.json");
  await page.locator("details.import summary").click();
  await page.getByLabel("Files to import", { exact: true }).setInputFiles([{ name: "copy.json", mimeType: "application/json", buffer: lines.bytes }]);
  await page.locator(".import .pending li").first().waitFor();
  await page.getByRole("button", { name: "Import", exact: true }).click();
  await page.locator(".import-report li", { hasText: "copy.json -> test.copy: 2 document(s) imported, 0 failed." }).waitFor();
  assert.deepEqual((await dump(page)).copy, expected.items);
  assert.deepEqual(errors, []);
  await context.close();
});

/** Every collection of `test` with its documents and index specs (canonical EJSON). */
function state(page) {
  return page.evaluate(async () => {
    const cmd = async (c) => JSON.parse(await window.ppCommand(JSON.stringify(c)));
    const out = {};
    for (const { name } of (await cmd({ listCollections: 1 })).cursor.firstBatch) {
      out[name] = {
        docs: (await cmd({ find: name, filter: {}, batchSize: { $numberInt: "1000000" } })).cursor.firstBatch,
        indexes: (await cmd({ listIndexes: name })).cursor.firstBatch,
      };
    }
    return out;
  });
}

/** `n` small JSON lines documents (about 40 bytes each), made here. */
function bigJsonLines(n) {
  const lines = [];
  for (let i = 0; i < n; i++) lines.push(`{"_id":${i},"a":${i % 1000},"s":"row ${i}"}`);
  return Buffer.from(lines.join("\n") + "\n");
}

/** Picks `file` in the Data tab's import panel and clicks Import. */
async function startImport(page, name, buffer) {
  await page.getByRole("tab", { name: "Data" }).click();
  await page.locator("details.import summary").click();
  await page.getByLabel("Files to import", { exact: true }).setInputFiles([{ name, mimeType: "application/json", buffer }]);
  await page.locator(".import .pending li").first().waitFor();
  await page.getByRole("button", { name: "Import", exact: true }).click();
}

const parseProgress = (text) => {
  const m = /^(\d+) documents · ([\d.]+) (B|KiB|MiB) of ([\d.]+) MiB$/.exec(text);
  assert.ok(m, text);
  const unit = { B: 1, KiB: 1024, MiB: 1 << 20 }[m[3]];
  return { docs: Number(m[1]), bytes: Number(m[2]) * unit, total: Number(m[4]) * (1 << 20) };
};

test("import: a large file goes in slices with a progress bar; Cancel leaves the database as it was and out of the log", async () => {
  const { context, page, errors } = await open();
  // A collection the import goes into, with documents and an index (one of them multikey).
  await setScript(page, 'db.big.insertMany([{ _id: -1, a: 1, s: "old" }, { _id: -2, a: [2, 3] }]); db.big.createIndex({ a: 1 }); print("seeded")');
  await run(page, "seeded");
  const before = await state(page);
  const file = bigJsonLines(200_000);
  // Every text the progress bar shows is kept; Cancel is clicked once it has moved twice.
  await page.evaluate(() => {
    window.__progress = [];
    new MutationObserver(() => {
      const text = document.querySelector(".import-progress .progress-text")?.textContent;
      const bar = document.querySelector(".import-progress progress");
      if (!text || window.__progress.at(-1)?.text === text) return;
      window.__progress.push({ text, value: Number(bar.value), max: Number(bar.max), label: bar.labels?.[0]?.textContent });
      if (window.__progress.filter((p) => !p.text.startsWith("0 ")).length === 2) document.querySelector(".import-progress button")?.click();
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
  await startImport(page, "big.json", file);
  const report = page.locator(".import-report li").first();
  await report.waitFor({ timeout: 120_000 });
  assert.match(await report.innerText(), /^big\.json -> test\.big: cancelled after \d+ document\(s\); nothing of this file was kept\.$/);
  const seen = await page.evaluate(() => window.__progress);
  assert.ok(seen.length >= 3, JSON.stringify(seen));
  assert.equal(seen[0].label, "Importing big.json into test.big");
  const moved = seen.map((p) => parseProgress(p.text)).filter((p) => p.docs > 0);
  // Documents and bytes advance together, in slices, and the bar follows the bytes.
  assert.ok(moved[1].docs > moved[0].docs && moved[1].bytes > moved[0].bytes, JSON.stringify(seen));
  assert.ok(moved.at(-1).docs < 200_000, JSON.stringify(seen));
  assert.ok(Math.abs(moved[0].total - file.length) < (1 << 20) / 10, `${moved[0].total} vs ${file.length}`);
  assert.equal(seen[0].max, file.length);
  assert.ok(seen[2].value > seen[1].value && seen[2].value < file.length, JSON.stringify(seen));
  await page.locator(".import-progress").waitFor({ state: "detached" });
  // The collection is exactly as before: its two documents and its index.
  assert.deepEqual(await state(page), before);
  // The engine is free again (Run works) and the cancelled import is not in the session's log.
  await page.getByRole("tab", { name: "Export & share" }).click();
  assert.doesNotMatch(await page.locator("#export-script").innerText(), /big\.json/);
  await page.waitForTimeout(600);
  await page.reload();
  await page.waitForFunction(() => window.ppReady === true);
  await page.waitForFunction(async () => JSON.parse(await window.ppCommand('{"listCollections": 1}')).cursor.firstBatch.length === 1);
  assert.deepEqual(await state(page), before);
  assert.deepEqual(errors, []);
  await context.close();
});

test("import: a 200 000-document file imports whole while the other tabs stay usable", async () => {
  const { context, page, errors } = await open();
  const file = bigJsonLines(200_000);
  await startImport(page, "many.json", file);
  await page.locator(".import-progress").waitFor();
  // The header says what the engine is busy with.
  await page.locator(".engine-status", { hasText: /^Importing… \d+\.\d s$/ }).waitFor();
  // The page answers while the worker imports: another tab opens and shows its view.
  await page.getByRole("tab", { name: "Lesson" }).click();
  assert.equal(await page.getByRole("tab", { name: "Lesson" }).getAttribute("aria-selected"), "true");
  await page.getByRole("tab", { name: "Data" }).click();
  await page.locator(".import-progress").waitFor({ state: "detached", timeout: 180_000 });
  const count = await page.evaluate(async () => JSON.parse(await window.ppCommand('{"count": "many"}')).n);
  assert.deepEqual(count, { $numberInt: "200000" });
  const last = await page.evaluate(async () => JSON.parse(await window.ppCommand('{"find": "many", "filter": {"_id": 199999}}')).cursor.firstBatch);
  assert.deepEqual(last, [{ _id: { $numberInt: "199999" }, a: { $numberInt: "999" }, s: "row 199999" }]);
  assert.deepEqual(errors, []);
  await context.close();
});

test("links that carry other commands, or inflate past the cap, are refused with a message", async () => {
  const base = { app: "pattern-playground", v: 3, lesson: "computed", step: 0, scripts: {}, audits: [], time_limit_ms: 10000 };
  const hostile = {
    ...base,
    session: { entries: [{ origin: { by: "script", title: "x" }, writes: [{ collection: "admin", command: JSON.stringify({ createUser: "evil", pwd: "x", roles: ["root"] }) }] }] },
  };
  let { context, page } = await open(shareLink(hostile));
  await page.locator(".notice.error", { hasText: /could not be opened.*createUser/ }).waitFor();
  await context.close();
  // About 50 MB of script in a link of some 50 KB: inflating stops at the cap, at once.
  const huge = { ...base, scripts: { 0: "x".repeat(50 << 20) }, session: { entries: [] } };
  const t0 = Date.now();
  ({ context, page } = await open(shareLink(huge)));
  await page.locator(".notice.error", { hasText: /too large.*32\.0 MiB/ }).waitFor();
  const ms = Date.now() - t0;
  console.log(`# a link inflating to 50 MB refused in ${ms} ms`);
  assert.ok(await page.locator("#run").isEnabled());
  await context.close();
});
