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
 * returns every collection of the database it built: { name: { docs, indexes } }, canonical EJSON. */
export async function replayExport(script) {
  const dir = await mkdtemp(join(tmpdir(), "pp-export-"));
  const file = join(dir, "session.js");
  await writeFile(file, script + "\n" + DUMP_SNIPPET);
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
const DUMP_SNIPPET = `
{
  const out = {};
  for (const n of db.getCollectionNames().sort()) {
    out[n] = {
      docs: EJSON.serialize(db.getCollection(n).find().toArray(), { relaxed: false }),
      indexes: EJSON.serialize(db.getCollection(n).getIndexes(), { relaxed: false }),
    };
  }
  print("PP-DUMP " + JSON.stringify(out));
}
`;

// The same page API in Chromium, Firefox and WebKit (tests/browser/driver.mjs).
export { ENGINES, enginesToTest, launchEngine } from "./driver.mjs";
