#!/usr/bin/env node
// The size of the built site (make dist): every file in dist/ compressed with gzip -9, grouped by
// part (engine wasm, UI wasm, JS glue, editor bundle, mongosh runtime, ...); the first load (what a
// first visit downloads before it is interactive) against the 700 KB target. A report for
// `make bench`; nothing here fails on size.
//
// Usage: node tools/size-report.mjs [dist-dir] [--json=FILE]
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// What may be downloaded before the first lesson can run (the phones issue's target).
const BUDGET = 700 * 1024;

/** The part a dist/ file belongs to (first matching rule), and whether a first visit of the
 * playground downloads it before it is interactive (tools/tti.mjs: the engine worker answered and
 * the first lesson is open). Later: CodeMirror (loaded once the page is interactive, a textarea
 * stands in until then: src/app/editor.rs), the service worker (registered then, www/register-sw.js),
 * the time-zone file (fetched then, www/sandbox.js) and the other pages. */
const PARTS = [
  ['engine wasm', /^engine\/.*\.wasm$/, true],
  ['engine glue', /^engine\/.*\.js$/, true],
  ['UI wasm', /\.wasm$/, true],
  ['UI glue', /^pattern-playground.*\.js$/, true],
  ['editor bundle', /^editor\.js$/, false],
  ['mongosh runtime', /^runtime\.js$/, true],
  ['worker', /^worker\.js$/, true],
  ['styles', /\.css$/, true],
  ['html', /^index\.html$/, true],
  ['other pages', /\.html$/, false],
  ['register-sw.js', /^register-sw\.js$/, true],
  // The sandbox frame's script (www/sandbox.js) starts the engine worker: on the first load.
  ['sandbox', /^sandbox\.js$/, true],
  ['icon', /^favicon\.svg$/, true],
  // The time-zone file: fetched once the page is interactive (www/sandbox.js).
  ['time zones', /^tz\//, false],
];

function walk(dir, base = dir) {
  // Dot entries (trunk's .stage/ leftovers) are not served as part of the site.
  return fs.readdirSync(dir, { withFileTypes: true }).filter((e) => !e.name.startsWith('.')).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? walk(p, base) : [path.relative(base, p).split(path.sep).join('/')];
  });
}

export function sizeReport(dist) {
  const files = walk(dist).map((rel) => {
    const bytes = fs.readFileSync(path.join(dist, rel));
    const gz = zlib.gzipSync(bytes, { level: 9 }).length;
    const [part, , first] = PARTS.find(([, re]) => re.test(rel)) ?? ['other', null, false];
    return { file: rel, part, first, raw: bytes.length, gzip: gz };
  });
  const parts = new Map();
  for (const f of files) {
    const p = parts.get(f.part) ?? { part: f.part, first: f.first, raw: 0, gzip: 0, files: [] };
    p.raw += f.raw;
    p.gzip += f.gzip;
    p.files.push(f.file);
    parts.set(f.part, p);
  }
  const list = [...parts.values()].sort((a, b) => b.gzip - a.gzip);
  const sum = (fs) => ({ raw: fs.reduce((n, f) => n + f.raw, 0), gzip: fs.reduce((n, f) => n + f.gzip, 0) });
  const total = sum(files);
  const firstLoad = sum(files.filter((f) => f.first));
  return { files, parts: list, total, firstLoad, budget: BUDGET };
}

const kb = (n) => `${(n / 1024).toFixed(1)} KB`;

function main(argv) {
  const jsonOut = argv.find((a) => a.startsWith('--json='))?.slice(7);
  const dist = path.resolve(argv.find((a) => !a.startsWith('--')) ?? path.join(root, 'dist'));
  if (!fs.existsSync(path.join(dist, 'index.html'))) {
    process.stderr.write(`size-report: no ${path.relative(root, dist)}/index.html (make dist first)\n`);
    return 2;
  }
  const r = sizeReport(dist);
  const rows = r.parts.map((p) => [p.part, p.first ? 'first' : 'later', kb(p.raw), kb(p.gzip), `${((100 * p.gzip) / r.total.gzip).toFixed(0)}%`, p.files.join(' ')]);
  rows.push(['first load', '', kb(r.firstLoad.raw), kb(r.firstLoad.gzip), `${((100 * r.firstLoad.gzip) / r.total.gzip).toFixed(0)}%`, 'what a first visit downloads before it is interactive']);
  rows.push(['total', '', kb(r.total.raw), kb(r.total.gzip), '100%', '']);
  const headers = ['part', 'when', 'raw', 'gzip -9', 'share', 'files'];
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((row) => String(row[i]).length)));
  const line = (cells) => cells.map((c, i) => (i <= 1 || i === 5 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join('  ').trimEnd();
  process.stdout.write(`\nSize of the site (dist/, gzip -9 per file; "first": downloaded before the first lesson is interactive)\n${[line(headers), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n')}\n`);
  const verdict = r.firstLoad.gzip <= BUDGET ? 'within' : 'OVER';
  process.stdout.write(`first-load target ${kb(BUDGET)}: ${verdict} (${kb(r.firstLoad.gzip)}; the whole site ${kb(r.total.gzip)})\n`);
  if (jsonOut) fs.writeFileSync(jsonOut, JSON.stringify(r, null, 2));
  return 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = main(process.argv.slice(2));
}
