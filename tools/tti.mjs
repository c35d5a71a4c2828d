#!/usr/bin/env node
// Time to interactive of the built site (make dist): dist/ served from 127.0.0.1 (the browser
// tests' static server, no caching), opened in Debian's headless Chromium through playwright-core
// (never a downloaded browser), each run in a fresh context (cold cache). "Interactive" is the
// moment the UI sets `window.ppReady = true`: the engine worker answered and the first lesson is
// open. Prints the median of the runs against the 300 ms target; a report, never a test.
//
// Usage: node tools/tti.mjs [--runs=N] [dist-dir]
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { serve } from '../tests/browser/server.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const TARGET_MS = 300;

// Records when the page sets window.ppReady (performance.now() counts from navigation start).
const RECORD_READY = () => {
  let ready;
  Object.defineProperty(window, 'ppReady', {
    configurable: true,
    get: () => ready,
    set: (v) => {
      ready = v;
      if (v === true && window.__ppReadyAt === undefined) window.__ppReadyAt = performance.now();
    },
  });
};

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

async function main(argv) {
  const runs = Number(argv.find((a) => a.startsWith('--runs='))?.slice(7) ?? 7);
  const dist = path.resolve(argv.find((a) => !a.startsWith('--')) ?? path.join(root, 'dist'));
  if (!fs.existsSync(path.join(dist, 'index.html'))) {
    process.stderr.write('tti: no dist/index.html (make dist first)\n');
    return 2;
  }
  const server = await serve(dist);
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS, headless: true });
  const samples = [];
  try {
    for (let i = 0; i <= runs; i++) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      await context.addInitScript(RECORD_READY);
      const page = await context.newPage();
      await page.goto(server.url);
      await page.waitForFunction(() => window.__ppReadyAt !== undefined, null, { timeout: 60_000, polling: 50 });
      const t = await page.evaluate(() => {
        const nav = performance.getEntriesByType('navigation')[0];
        const resources = performance.getEntriesByType('resource').map((r) => [r.name.split('/').pop(), Math.round(r.responseEnd)]);
        return { ready: window.__ppReadyAt, dcl: nav ? nav.domContentLoadedEventEnd : NaN, load: nav ? nav.loadEventEnd : NaN, resources };
      });
      await context.close();
      if (i > 0) samples.push(t); // the first run warms Chromium itself up
    }
  } finally {
    await browser.close();
    await server.close();
  }
  const ready = median(samples.map((s) => s.ready));
  const dcl = median(samples.map((s) => s.dcl));
  const load = median(samples.map((s) => s.load));
  process.stdout.write(
    `\nTime to interactive (first lesson open, engine ready), headless Chromium on 127.0.0.1, cold cache, median of ${samples.length}\n` +
      `  DOMContentLoaded ${dcl.toFixed(0)} ms, load ${load.toFixed(0)} ms, interactive ${ready.toFixed(0)} ms ` +
      `(runs: ${samples.map((s) => s.ready.toFixed(0)).join(', ')}); target ${TARGET_MS} ms: ${ready <= TARGET_MS ? 'met' : 'MISSED'}\n` +
      `  resources received by (ms, last run): ${samples[samples.length - 1].resources.map(([n, t]) => `${n} ${t}`).join(', ')}\n`,
  );
  return 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await main(process.argv.slice(2));
}
