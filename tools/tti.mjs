#!/usr/bin/env node
// Time to interactive of the built site (make dist) in the three browser engines learners use:
// dist/ served from 127.0.0.1 (the browser tests' static server, no caching), each run a fresh
// page (Chromium: a fresh context, cold cache), the engines driven as the browser tests drive them
// (tests/browser/driver.mjs: Debian's Chromium, Firefox ESR and WebKitGTK; never a downloaded
// browser). "Interactive" is the `pp-ready` performance mark the UI sets with `window.ppReady`:
// the engine worker answered and the first lesson is open (src/app/editor.rs `page_ready`).
// Prints each engine's median against the 300 ms target; a report, never a test.
//
// Usage: node tools/tti.mjs [--runs=N] [--engines=chromium,firefox,webkit] [dist-dir]
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve } from '../tests/browser/server.mjs';
import { launchEngine, ENGINES } from '../tests/browser/driver.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const TARGET_MS = 300;

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/** `runs` loads of `url` in `engine` (after one that warms the browser up): ms to `pp-ready`. */
async function measure(engine, url, runs) {
  const browser = await launchEngine(engine);
  const samples = [];
  try {
    for (let i = 0; i <= runs; i++) {
      const page = await browser.newPage({ width: 1280, height: 900 });
      try {
        await page.goto(url);
        await page.waitFor(() => performance.getEntriesByName('pp-ready').length > 0, null, { timeout: 120_000, what: 'pp-ready' });
        const t = await page.evaluate(() => performance.getEntriesByName('pp-ready')[0].startTime);
        if (i > 0) samples.push(t);
      } finally {
        await page.close();
      }
    }
  } finally {
    await browser.close();
  }
  return samples;
}

async function main(argv) {
  const runs = Number(argv.find((a) => a.startsWith('--runs='))?.slice(7) ?? 7);
  const engines = (argv.find((a) => a.startsWith('--engines='))?.slice(10) ?? ENGINES.join(',')).split(',');
  const dist = path.resolve(argv.find((a) => !a.startsWith('--')) ?? path.join(root, 'dist'));
  if (!fs.existsSync(path.join(dist, 'index.html'))) {
    process.stderr.write('tti: no dist/index.html (make dist first)\n');
    return 2;
  }
  const server = await serve(dist);
  const rows = [];
  try {
    for (const engine of engines) {
      try {
        const samples = await measure(engine, server.url, runs);
        const m = median(samples);
        rows.push(`| ${engine} | ${m.toFixed(0)} ms | ${samples.map((s) => s.toFixed(0)).join(', ')} | ${m <= TARGET_MS ? 'met' : 'MISSED'} |`);
      } catch (e) {
        rows.push(`| ${engine} | - | ${String(e.message ?? e).split('\n')[0]} | not measured |`);
      }
    }
  } finally {
    await server.close();
  }
  process.stdout.write(
    `\nTime to interactive (first lesson open, engine ready: the pp-ready mark), 127.0.0.1, median of ${runs}; target ${TARGET_MS} ms\n` +
      `| engine | median | runs | target |\n|---|---|---|---|\n${rows.join('\n')}\n`,
  );
  return 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await main(process.argv.slice(2));
}
