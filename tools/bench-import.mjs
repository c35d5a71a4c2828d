#!/usr/bin/env node
// make bench (import): a mongoexport-style JSON lines file of small documents (about 64 bytes of
// BSON each: an ObjectId, a sensor name, a date, a double, a boolean), generated here, imported
// through the Node runner with the importer `make script DATA=...` uses (tools/run-script.mjs
// importData, Engine.importData, src/import), at 100 000 and 1 000 000 documents: documents per
// second, seconds (CPU and wall), the growth factor for 10x the data, and the engine's wasm
// memory growth per document and per byte of the file (the memory never shrinks: this is the
// import's peak, what the Data tab's warning estimates, src/app/pg.rs held_per_byte).
//
// With --browser (make bench does it when dist/ is built), the largest file is also imported in
// the site itself (dist/, headless Chromium, the Data tab's file input, as a learner imports it):
// seconds to the import's report, and the progress bar seen moving on the way.
//
// Usage: node tools/bench-import.mjs [--sizes=100000,1000000] [--browser]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import vm from 'node:vm';
import { BSON } from 'bson';
import { createShellContext, importData, formatImport } from './run-script.mjs';

/** Document `i` as mongoexport writes it (relaxed Extended JSON, one a line). */
function line(i) {
  const oid = (0x65920080 + Math.floor(i / 1000)).toString(16).padStart(8, '0') + 'a1b2c3d4e5' + (i % 0xffffff).toString(16).padStart(6, '0');
  const t = new Date(1704067200000 + i * 1000).toISOString();
  const v = ((i * 7919) % 10000) / 100;
  return `{"_id":{"$oid":"${oid}"},"sensorId":"s${String(i % 500).padStart(3, '0')}","t":{"$date":"${t}"},"v":${v.toFixed(2)},"ok":${i % 10 !== 0}}\n`;
}

/** Writes `n` documents to `file` (in chunks: the text of 1 000 000 is about 120 MB). */
function generate(file, n) {
  const fd = fs.openSync(file, 'w');
  try {
    for (let start = 0; start < n; start += 10_000) {
      let chunk = '';
      for (let i = start; i < Math.min(n, start + 10_000); i++) chunk += line(i);
      fs.writeSync(fd, chunk);
    }
  } finally {
    fs.closeSync(fd);
  }
  return fs.statSync(file).size;
}

/** The BSON bytes of the same documents (js-bson), for the figure per BSON byte. */
function bsonBytes(n) {
  let total = 0;
  for (let i = 0; i < n; i++) total += BSON.calculateObjectSize(BSON.EJSON.parse(line(i), { relaxed: true }));
  return total;
}

function measure(n, dir) {
  const file = path.join(dir, `readings-${n}.json`);
  const fileBytes = generate(file, n);
  const { context, engine } = createShellContext();
  const memory = () => vm.runInContext('wasm_bindgen.initSync({ module: new Uint8Array(0) }).memory.buffer.byteLength', context);
  const before = memory();
  const cpu0 = process.cpuUsage();
  const wall0 = performance.now();
  const reports = importData(engine, file);
  const wall = (performance.now() - wall0) / 1000;
  const cpuUsed = process.cpuUsage(cpu0);
  const cpu = (cpuUsed.user + cpuUsed.system) / 1e6;
  const grown = memory() - before;
  fs.rmSync(file);
  const r = reports[0];
  if (reports.length !== 1 || r.stopped || r.inserted !== n) throw new Error(`the import of ${n} documents failed: ${formatImport(r)}`);
  return { n, fileBytes, bson: bsonBytes(n), cpu, wall, grown };
}

/** The file imported through the site's Data tab in headless Chromium: seconds to its report. */
async function inBrowser(file, n) {
  const { chromium } = await import('playwright-core');
  const { serve } = await import('../tests/browser/server.mjs');
  const site = await serve(path.join(path.dirname(new URL(import.meta.url).pathname), '..', 'dist'), { gzip: true });
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
  try {
    const page = await browser.newPage();
    page.on('dialog', (d) => d.accept());
    await page.goto(site.url);
    await page.waitForFunction(() => window.ppReady === true, null, { timeout: 120_000 });
    await page.getByRole('tab', { name: 'Data' }).click();
    await page.locator('details.import summary').click();
    await page.getByLabel('Files to import', { exact: true }).setInputFiles(file);
    await page.locator('.import .pending li').first().waitFor();
    const t0 = performance.now();
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    const seen = new Set();
    const report = page.locator('.import-report li').first();
    while (!(await report.count())) {
      const text = await page.locator('.import-progress .progress-text').innerText({ timeout: 1000 }).catch(() => null);
      if (text) seen.add(text);
      await page.waitForTimeout(250);
    }
    const seconds = (performance.now() - t0) / 1000;
    const line = await report.innerText();
    const count = await page.evaluate(async (c) => JSON.parse(await window.ppCommand(JSON.stringify({ count: c }))).n, path.basename(file, '.json'));
    if (!line.includes(`${n} document(s) imported`)) throw new Error(`the site's import of ${n} documents: ${line}`);
    return { seconds, line, count, progress: seen.size };
  } finally {
    await browser.close();
    await site.close();
  }
}

const sizes = (process.argv.find((a) => a.startsWith('--sizes='))?.slice('--sizes='.length) ?? '100000,1000000').split(',').map(Number);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pp-bench-import-'));
const results = [];
try {
  for (const n of sizes) {
    const m = measure(n, dir);
    results.push(m);
    process.stdout.write(
      `import ${n} documents (${(m.fileBytes / 1048576).toFixed(1)} MiB of JSON lines, ${(m.bson / n).toFixed(1)} BSON bytes each): ` +
        `${(n / m.cpu).toFixed(0)} documents/s, ${m.cpu.toFixed(2)} s CPU (${m.wall.toFixed(2)} s wall); ` +
        `wasm memory grew ${(m.grown / n).toFixed(1)} bytes per document, ${(m.grown / m.fileBytes).toFixed(2)} per byte of the file, ${(m.grown / m.bson).toFixed(2)} per BSON byte\n`,
    );
  }
  if (process.argv.includes('--browser')) {
    const n = Math.max(...sizes);
    const file = path.join(dir, `readings.json`);
    const bytes = generate(file, n);
    const b = await inBrowser(file, n);
    process.stdout.write(
      `import ${n} documents (${(bytes / 1048576).toFixed(1)} MiB) in the site (Chromium, the Data tab): ${b.seconds.toFixed(1)} s to "${b.line}"; ` +
        `count ${JSON.stringify(b.count)}; the progress bar showed ${b.progress} different states on the way\n`,
    );
  }
  for (let i = 1; i < results.length; i++) {
    const [a, b] = [results[i - 1], results[i]];
    process.stdout.write(`import growth ${a.n} -> ${b.n} (${b.n / a.n}x the data): ${(b.cpu / a.cpu).toFixed(1)}x the CPU time, ${(b.grown / a.grown).toFixed(1)}x the memory\n`);
  }
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
