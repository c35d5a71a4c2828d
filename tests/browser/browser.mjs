// What the embed and site browser tests share: Debian's Chromium through playwright-core (never a
// downloaded browser), the built site's paths, and reading a page's database.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { execFile } from "node:child_process";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const DIST = join(ROOT, "dist");
export const SHOTS = join(ROOT, "tests", "screenshots");
const CHROMIUM = process.env.CHROMIUM_PATH || "/usr/bin/chromium";
const ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];

/** Headless Chromium (a fresh, temporary profile); screenshots' folder made. */
export async function launch() {
  await mkdir(SHOTS, { recursive: true });
  return chromium.launch({ executablePath: CHROMIUM, args: ARGS, headless: true });
}

/** Every collection's documents (canonical EJSON) of the page or frame's database, read through
 * its `ppCommand` test hook. */
export function dump(target) {
  return target.evaluate(async () => {
    const cmd = async (c) => JSON.parse(await window.ppCommand(JSON.stringify(c)));
    const names = (await cmd({ listCollections: 1 })).cursor.firstBatch.map((c) => c.name).sort();
    const out = {};
    for (const n of names) out[n] = (await cmd({ find: n, filter: {}, batchSize: { $numberInt: "1000000" } })).cursor.firstBatch;
    return out;
  });
}

/** Runs an exported session script headlessly (`make script`, as a course author would) and
 * returns every collection of the database it built: { name: { docs, indexes } }, canonical EJSON
 * (with `allDbs`, every database's: { db: { name: { docs, indexes } } }). */
export async function replayExport(script, { allDbs = false } = {}) {
  const dir = await mkdtemp(join(tmpdir(), "pp-export-"));
  const file = join(dir, "session.js");
  await writeFile(file, script + "\n" + (allDbs ? DUMP_ALL_SNIPPET : DUMP_SNIPPET));
  try {
    const stdout = await new Promise((ok, fail) =>
      execFile("make", ["--no-print-directory", "-s", "script", `FILE=${file}`], { cwd: ROOT, maxBuffer: 256 << 20 }, (e, out, err) =>
        e ? fail(new Error(`make script failed: ${e.message}\n${err}`)) : ok(out)),
    );
    const marker = stdout.lastIndexOf("PP-DUMP ");
    if (marker < 0) throw new Error("no PP-DUMP line in:\n" + stdout.slice(-2000));
    return JSON.parse(stdout.slice(marker + 8).split("\n")[0]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

// Appended to the exported script: prints every collection as canonical Extended JSON.
const DUMP_ONE = `
const ppDump = (d) => {
  const out = {};
  for (const n of d.getCollectionNames().sort()) {
    out[n] = {
      docs: EJSON.serialize(d.getCollection(n).find().toArray(), { relaxed: false }),
      indexes: EJSON.serialize(d.getCollection(n).getIndexes(), { relaxed: false }),
    };
  }
  return out;
};
`;
const DUMP_SNIPPET = `${DUMP_ONE}print("PP-DUMP " + JSON.stringify(ppDump(db)));\n`;
const DUMP_ALL_SNIPPET = `${DUMP_ONE}print("PP-DUMP " + JSON.stringify(Object.fromEntries(db.getMongo().getDBNames().map((n) => [n, ppDump(db.getSiblingDB(n))]))));\n`;

/** Every database's collections' documents (canonical EJSON): { db: { coll: docs } }. */
export function dumpAll(target) {
  return target.evaluate(async () => {
    const cmd = async (c) => JSON.parse(await window.ppCommand(JSON.stringify(c)));
    const out = {};
    for (const { name: db } of (await cmd({ listDatabases: 1, nameOnly: true, $db: "admin" })).databases) {
      out[db] = {};
      const names = (await cmd({ listCollections: 1, $db: db })).cursor.firstBatch.map((c) => c.name).sort();
      for (const n of names) out[db][n] = (await cmd({ find: n, filter: {}, batchSize: { $numberInt: "1000000" }, $db: db })).cursor.firstBatch;
    }
    return out;
  });
}

// The same page API in Chromium, Firefox and WebKit (tests/browser/driver.mjs).
export { ENGINES, enginesToTest, launchEngine } from "./driver.mjs";

/** Clicks Run and waits until that run is over: #run is watched becoming disabled (the run
 * started) before it is waited for enabled again, so that a step is never judged by the previous
 * run's output. */
export async function runAndWait(page, { timeout = 120_000 } = {}) {
  await page.evaluate(() => {
    window.__runStarted = false;
    window.__runObserver?.disconnect();
    window.__runObserver = new MutationObserver((records) => {
      if (records.some((r) => r.target.id === "run" && r.attributeName === "disabled" && r.oldValue === null)) window.__runStarted = true;
    });
    window.__runObserver.observe(document.body, { subtree: true, attributes: true, attributeOldValue: true, attributeFilter: ["disabled"] });
  });
  await page.locator("#run").click();
  await page.waitForFunction(() => window.__runStarted && !document.querySelector("#run")?.disabled && document.querySelector("pre.output .line"), null, { timeout });
}

/** Holds back the time-zone file (`tz/zones.tzdb`) for every page of a Playwright `context` until
 * `release()`; `asked()` counts the requests for it. For the tests of a run that needs the zones
 * before they came. */
export async function holdTimeZones(context) {
  let release;
  const held = new Promise((r) => (release = r));
  let asked = 0;
  await context.route("**/tz/zones.tzdb", async (route) => {
    asked += 1;
    await held;
    await route.continue();
  });
  return { release: () => release(), asked: () => asked };
}
