#!/usr/bin/env node
// make bench (the Node half): runs each workload script (bench/workloads/*.js, mongosh scripts
// that generate their data deterministically and call `measure(fn)` around the part being timed)
// through the Node runner — the same build/runtime.js + build/engine wasm as `make script`, so
// every JS/WASM crossing is included — and through mingo behind bench/mingo-adapter.mjs. Prints a
// table of medians and the ratio, and checks that both printed the same results.
//
// Usage: node tools/bench.mjs [--reps=N] [--json=FILE] [workload.js ...]
//   --reps=N     measured repetitions per workload and engine (default 7, after a warm-up run;
//                a side whose runs take seconds stops after 20 s)
//   --json=FILE  also write the medians as JSON
//   --build=DIR  the engine and runtime build to measure (default build/: engine/, runtime.js)
import fs from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { createShellContext, runFile, formatUncaught } from './run-script.mjs';
import { createMingoDb } from '../bench/mingo-adapter.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** A `measure(fn)` that records how long `fn` took (once per run). */
function timer() {
  const t = { ms: null };
  t.measure = (fn) => {
    const start = performance.now();
    const r = fn();
    t.ms = performance.now() - start;
    return r;
  };
  return t;
}

/** Our engine: one shell context per workload (warm JIT, as a page that runs several scripts). */
function oursRunner(buildDir) {
  let printed = [];
  const { context } = createShellContext({ ...(buildDir ? { buildDir } : {}), onOutput: (_stream, text) => printed.push(text) });
  return async (code, name) => {
    vm.runInContext('db.dropDatabase()', context);
    printed = [];
    const t = timer();
    context.measure = t.measure;
    const report = await runFile(context, code, name, 0);
    if (report.error) throw new Error(`ours: ${formatUncaught(report.error, name)}`);
    return { ms: t.ms, output: printed.join('\n') };
  };
}

/** mingo: the script runs in this realm (mingo checks `instanceof Date`) with the adapter's db. */
function mingoRunner() {
  return async (code, name) => {
    const printed = [];
    const t = timer();
    const print = (...args) => printed.push(args.map(String).join(' '));
    const fn = new Function('db', 'print', 'measure', `return (async () => {\n${code}\n})();\n//# sourceURL=${name}`);
    try {
      await fn(createMingoDb(), print, t.measure);
    } catch (e) {
      throw new Error(`mingo: ${name}: ${e && e.stack ? e.stack : e}`);
    }
    return { ms: t.ms, output: printed.join('\n') };
  };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/** Runs a workload `reps` times after a warm-up run; a slow side (a run over 2 s) gets fewer
 * runs: the warm-up counts, and runs stop once 20 s were spent. */
async function measureWorkload(run, code, name, reps) {
  const first = await run(code, name);
  const times = first.ms > 2000 ? [first.ms] : [];
  let spent = first.ms;
  while (times.length < reps && (times.length === 0 || spent < 20000)) {
    const r = await run(code, name);
    times.push(r.ms);
    spent += r.ms;
  }
  return { median: median(times), runs: times.length, output: first.output };
}

function fmt(ms) {
  return ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms.toFixed(2);
}

export function table(rows, headers) {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells) => cells.map((c, i) => (i === 0 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join('  ');
  return [line(headers), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

async function main(argv) {
  let reps = 7;
  let jsonOut = null;
  let buildDir = null;
  let files = [];
  for (const a of argv) {
    if (a.startsWith('--reps=')) reps = Math.max(1, Number(a.slice(7)));
    else if (a.startsWith('--json=')) jsonOut = a.slice(7);
    else if (a.startsWith('--build=')) buildDir = path.resolve(a.slice(8));
    else files.push(a);
  }
  if (files.length === 0) {
    const dir = path.join(root, 'bench', 'workloads');
    files = fs.readdirSync(dir).filter((f) => f.endsWith('.js')).sort().map((f) => path.join(dir, f));
  }
  const ours = oursRunner(buildDir);
  const mingo = mingoRunner();
  const rows = [];
  const results = [];
  let mismatches = 0;
  for (const file of files) {
    const name = path.basename(file, '.js');
    const code = fs.readFileSync(file, 'utf8');
    const a = await measureWorkload(ours, code, `${name}.js`, reps);
    const b = await measureWorkload(mingo, code, `${name}.js`, reps);
    const ratio = b.median / a.median;
    const same = a.output === b.output;
    if (!same) {
      mismatches++;
      process.stderr.write(`${name}: results differ\n  ours:  ${a.output}\n  mingo: ${b.output}\n`);
    }
    rows.push([name, fmt(a.median), fmt(b.median), `${ratio.toFixed(1)}x`, ratio >= 10 ? 'yes' : 'NO', `${a.runs}/${b.runs}`, same ? 'same' : 'DIFFER']);
    results.push({ workload: name, oursMs: a.median, mingoMs: b.median, ratio, output: a.output });
    process.stderr.write(`  ${name}: ours ${fmt(a.median)} ms, mingo ${fmt(b.median)} ms  (${a.output})\n`);
  }
  process.stdout.write(`\nWorkloads through the Node runner vs mingo 7.2.7 (median ms of up to ${reps} runs after a warm-up; runs = ours/mingo)\n`);
  process.stdout.write(`${table(rows, ['workload', 'ours ms', 'mingo ms', 'ratio', '>=10x', 'runs', 'results'])}\n`);
  if (jsonOut) fs.writeFileSync(jsonOut, JSON.stringify({ reps, results }, null, 2));
  return mismatches === 0 ? 0 : 1;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await main(process.argv.slice(2));
}
