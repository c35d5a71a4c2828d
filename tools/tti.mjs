#!/usr/bin/env node
// Time to interactive of the built site (make dist) in the three browser engines learners use:
// dist/ served from 127.0.0.1 (the browser tests' static server, no caching), each run a fresh
// page (Chromium: a fresh context, cold cache), the engines driven as the browser tests drive them
// (tests/browser/driver.mjs: Debian's Chromium, Firefox ESR and WebKitGTK; never a downloaded
// browser). "Interactive" is the `pp-ready` performance mark the UI sets with `window.ppReady`:
// the engine worker answered and the first lesson is open (src/app/editor.rs `page_ready`).
// Prints each engine's median against the 300 ms target and, for an engine that misses it, the
// median load's trace: its start-up marks and file fetches, and which path interactive waited for.
// A report, never a test.
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

/** What one load did, in ms from navigation: the first contentful paint, the start-up marks
 * (`pp-ui-start`, `pp-ui-mounted`: src/app/shell.rs; `pp-ui-shown`: src/app/boot.rs; `pp-engine-ready`: www/sandbox.js, the
 * engine worker's first `ready`; `pp-ready`: interactive) and each large file's fetch. */
function breakdown() {
  const at = (name) => performance.getEntriesByName(name)[0]?.startTime ?? null;
  const files = {};
  for (const e of performance.getEntriesByType('resource')) {
    const parts = new URL(e.name).pathname.split('/');
    const f = (parts.at(-2) === 'engine' ? 'engine/' : '') + parts.at(-1);
    if (!/\.(wasm|js|css|json)$/.test(f)) continue;
    files[f.replace(/-[0-9a-f]{16}/, '')] = { start: e.startTime, end: e.responseEnd, bytes: e.encodedBodySize || e.transferSize || 0 };
  }
  return {
    fcp: at('first-contentful-paint'),
    uiStart: at('pp-ui-start'),
    uiMounted: at('pp-ui-mounted'),
    uiShown: at('pp-ui-shown'),
    engineReady: at('pp-engine-ready'),
    // the engine worker's own steps (www/worker.js reports them with `ready`)
    engine: Object.fromEntries(['script', 'boot', 'compiled', 'instance', 'session'].map((s) => [s, at(`pp-engine-${s}`)])),
    ready: at('pp-ready'),
    files,
  };
}

/** `runs` loads of `url` in `engine` (after one that warms the browser up): each load's breakdown. */
async function measure(engine, url, runs) {
  const browser = await launchEngine(engine);
  const samples = [];
  try {
    for (let i = 0; i <= runs; i++) {
      const page = await browser.newPage({ width: 1280, height: 900 });
      try {
        await page.goto(url);
        await page.waitFor(() => performance.getEntriesByName('pp-ready').length > 0, null, { timeout: 120_000, what: 'pp-ready' });
        const b = await page.evaluate(breakdown);
        if (i > 0) samples.push(b);
      } finally {
        await page.close();
      }
    }
  } finally {
    await browser.close();
  }
  return samples;
}

const ms = (t) => (t == null ? '-' : `${t.toFixed(0)}`);

/** The median load's start-up as a timeline, and which path the interactive moment waited for:
 * the trace `make bench` prints for an engine that misses the target. */
export function trace(b) {
  const f = b.files;
  const span = (name) => (f[name] ? `${ms(f[name].start)}-${ms(f[name].end)}` : '-');
  const engineFiles = ['worker.js', 'runtime.js', 'engine/engine.js', 'engine/engine_bg.wasm'].filter((n) => f[n]);
  const engineFetched = engineFiles.length ? Math.max(...engineFiles.map((n) => f[n].end)) : null;
  const uiWasm = Object.keys(f).find((n) => /^pattern-playground.*_bg\.wasm$/.test(n));
  const lines = [
    `  first contentful paint ${ms(b.fcp)} ms`,
    `  engine path: files fetched ${engineFiles.map((n) => `${n} ${span(n)}`).join(', ')}; all by ${ms(engineFetched)} ms; ` +
      `ready at ${ms(b.engineReady)} ms (${b.engineReady != null && engineFetched != null ? ms(b.engineReady - engineFetched) : '-'} ms after its files)`,
    `  in the engine worker: its scripts (engine.js, runtime.js, worker.js) evaluated at ${ms(b.engine.script)} ms, boot message at ${ms(b.engine.boot)}, ` +
      `wasm compiled at ${ms(b.engine.compiled)} (${b.engine.compiled != null && b.engine.boot != null ? ms(b.engine.compiled - b.engine.boot) : '-'} ms), instantiated at ${ms(b.engine.instance)}, ` +
      `runtime session at ${ms(b.engine.session)} (${b.engine.session != null && b.engine.instance != null ? ms(b.engine.session - b.engine.instance) : '-'} ms)`,
    `  UI path: ${uiWasm ? `${uiWasm} ${span(uiWasm)}` : 'UI wasm -'}; UI code runs at ${ms(b.uiStart)} ms, shell built (hidden) at ${ms(b.uiMounted)} ms, app shown with the lesson at ${ms(b.uiShown)} ms`,
  ];
  const waits = b.engineReady != null && b.uiMounted != null ? (b.engineReady >= b.uiMounted ? 'engine' : 'UI') : null;
  lines.push(
    `  interactive at ${ms(b.ready)} ms, ${waits === 'engine' ? `waiting for the engine (ready ${ms(b.engineReady - b.uiMounted)} ms after the shell)` : waits === 'UI' ? `waiting for the UI (mounted ${ms(b.uiMounted - b.engineReady)} ms after the engine)` : 'critical path unknown'}; ` +
      `${ms(b.ready - Math.max(b.engineReady ?? 0, b.uiMounted ?? 0))} ms from the later of the two to interactive (the first lesson opened)`,
  );
  return lines.join('\n');
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
  const traces = [];
  try {
    for (const engine of engines) {
      try {
        const loads = await measure(engine, server.url, runs);
        const samples = loads.map((b) => b.ready);
        const m = median(samples);
        rows.push(`| ${engine} | ${m.toFixed(0)} ms | ${samples.map((s) => s.toFixed(0)).join(', ')} | ${m <= TARGET_MS ? 'met' : 'MISSED'} |`);
        // The trace of the median load (the one whose time is the median, or the nearer of two).
        const mid = loads.reduce((best, b) => (Math.abs(b.ready - m) < Math.abs(best.ready - m) ? b : best));
        if (m > TARGET_MS) traces.push(`${engine} (the load of ${ms(mid.ready)} ms):\n${trace(mid)}`);
      } catch (e) {
        rows.push(`| ${engine} | - | ${String(e.message ?? e).split('\n')[0]} | not measured |`);
      }
    }
  } finally {
    await server.close();
  }
  process.stdout.write(
    `\nTime to interactive (first lesson open, engine ready: the pp-ready mark), 127.0.0.1, median of ${runs}; target ${TARGET_MS} ms\n` +
      `| engine | median | runs | target |\n|---|---|---|---|\n${rows.join('\n')}\n` +
      (traces.length ? `\nWhere the time goes (ms from navigation) where the target is missed:\n${traces.join('\n')}\n` : ''),
  );
  return 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await main(process.argv.slice(2));
}
