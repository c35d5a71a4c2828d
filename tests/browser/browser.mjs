// What the embed and site browser tests share: Debian's Chromium through playwright-core (never a
// downloaded browser), the built site's paths, and reading a page's database.
import { mkdir } from "node:fs/promises";
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

// The same page API in Chromium, Firefox and WebKit (tests/browser/driver.mjs).
export { ENGINES, enginesToTest, launchEngine } from "./driver.mjs";
