#!/usr/bin/env node
// make script FILE="a.js b.js": runs mongosh scripts headless, as the browser's output pane shows
// them. The same build/runtime.js bundle and build/engine wasm the worker loads are evaluated
// inside ONE Node vm context, so every value a script sees is built in that realm (instanceof and
// assert.deepStrictEqual behave as in mongosh). Files run in order against one database, each in
// its own top-level scope. On an uncaught error the runner prints it as mongosh does
// (`MongoServerError: E11000 ...`), then where it happened, and exits 1.
//
// With DATA (`make script DATA="orders.json dump/shop" FILE="check.js"`) the files and folders
// are imported first, with the engine's importer (src/import, `Engine.importData`): a file goes
// to the collection of database `test` named after it without its extension (.json/.jsonl/
// .ndjson, .bson with its .metadata.json beside it, .csv, .tsv); a dump folder holding
// <coll>.bson files gives its collections, in `test` too; a folder of such folders (mongodump's
// dump/) gives every database, each under its own name, as mongorestore restores them. A line
// per collection goes to stderr; an import error stops the run (exit 1) before any script runs.
//
// Usage: node tools/run-script.mjs [--timeout=MS] [--json] [--data=PATH]... file.js...
//   --timeout=MS  per-file time limit on the synchronous run (default: none)
//   --data=PATH   a file or dump folder to import first (repeatable)
//   --json        print one JSON report per file ({ file, output, error, cost, writes }) instead
import fs from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Creates the vm context with the engine and the runtime loaded; returns { context, session }.
 * The engine gets the time-zone file (build/tz/zones.tzdb, `make`) at once, as the site's worker
 * gets it once fetched; `timeZones: false` leaves it out (named zones then wait for it: see
 * src/expr/date/tzdb.rs). */
export function createShellContext({ buildDir = path.join(root, 'build'), onOutput, timeZones = true } = {}) {
  const glue = fs.readFileSync(path.join(buildDir, 'engine', 'engine.js'), 'utf8');
  const wasm = fs.readFileSync(path.join(buildDir, 'engine', 'engine_bg.wasm'));
  const tzFile = path.join(buildDir, 'tz', 'zones.tzdb');
  // (An engine built before the file existed bundles its zones: tools/bench.mjs --build=.)
  if (timeZones && !fs.existsSync(tzFile) && glue.includes('loadTimeZones')) {
    throw new Error(`${path.relative(process.cwd(), tzFile) || tzFile}: no time-zone file (make build/tz/zones.tzdb)`);
  }
  const tz = timeZones && fs.existsSync(tzFile) ? fs.readFileSync(tzFile) : null;
  const runtime = fs.readFileSync(path.join(buildDir, 'runtime.js'), 'utf8');
  // What a browser worker has besides the JS builtins (mongosh's plain-vm context copies Node's
  // globals in the same way).
  const context = vm.createContext({
    TextEncoder, TextDecoder, crypto: globalThis.crypto, URL, URLSearchParams, atob, btoa,
    setTimeout, clearTimeout, setInterval, clearInterval, queueMicrotask, structuredClone,
  });
  vm.runInContext(glue, context, { filename: 'engine.js' });
  vm.runInContext(runtime, context, { filename: 'runtime.js' });
  context.__wasm = wasm;
  context.__tz = tz;
  context.__hooks = { locateSyntaxError, onOutput: onOutput ?? (() => {}) };
  vm.runInContext(
    `wasm_bindgen.initSync({ module: __wasm });
     if (__tz) wasm_bindgen.loadTimeZones(__tz);
     globalThis.__engine = new wasm_bindgen.Engine();
     globalThis.__session = PatternRuntime.createSession(__engine, __hooks);
     __session.install(globalThis);
     delete globalThis.__wasm; delete globalThis.__tz; delete globalThis.__hooks;`,
    context,
    { filename: 'boot.js' },
  );
  const engine = context.__engine;
  vm.runInContext('delete globalThis.__engine;', context);
  return { context, session: context.__session, engine };
}

/** The imports one DATA path stands for: [{ file, bytes, db, collection, metadata }]. A file,
 * or a dump folder's <coll>.bson files (with their .metadata.json), go into `test`; a folder of
 * such folders gives every database under its own name; system.*, admin, config, local,
 * oplog.bson are skipped as mongorestore skips them. */
export function dataImports(target) {
  const stat = fs.statSync(target);
  if (!stat.isDirectory()) {
    return [importOfFile(target, 'test')];
  }
  const entries = fs.readdirSync(target, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name));
  const own = entries.filter((e) => e.isFile() && (e.name.endsWith('.bson') || e.name.endsWith('.metadata.json')));
  if (own.length > 0) return dumpDatabase(target, 'test');
  return entries
    .filter((e) => e.isDirectory() && !['admin', 'config', 'local'].includes(e.name))
    .flatMap((e) => dumpDatabase(path.join(target, e.name), e.name));
}

function importOfFile(file, db) {
  const base = path.basename(file);
  let metadata;
  if (base.endsWith('.bson')) {
    const meta = file.slice(0, -'.bson'.length) + '.metadata.json';
    if (fs.existsSync(meta)) metadata = { file: meta, text: fs.readFileSync(meta, 'utf8') };
  }
  return { file, bytes: fs.readFileSync(file), db, collection: '', metadata };
}

function dumpDatabase(dir, db) {
  const names = fs.readdirSync(dir).sort();
  const collections = new Set();
  for (const n of names) {
    const m = /^(.*)\.(bson|metadata\.json)$/.exec(n);
    if (m && !m[1].startsWith('system.') && m[1] !== 'oplog') collections.add(m[1]);
  }
  return [...collections].map((coll) => {
    const bson = path.join(dir, `${coll}.bson`);
    const meta = path.join(dir, `${coll}.metadata.json`);
    const metadata = fs.existsSync(meta) ? { file: meta, text: fs.readFileSync(meta, 'utf8') } : undefined;
    const hasData = fs.existsSync(bson);
    return { file: hasData ? bson : meta, bytes: hasData ? fs.readFileSync(bson) : new Uint8Array(0), db, collection: coll, metadata, format: 'bson' };
  });
}

/** Imports one DATA path into the engine; resolves to the engine's reports (one per collection). */
export function importData(engine, target, options = {}) {
  return dataImports(target).map((imp) => {
    const opts = { ...options };
    if (imp.metadata) {
      opts.metadata = imp.metadata.text;
      opts.metadataFile = imp.metadata.file;
    }
    return engine.importData(imp.file, imp.bytes, imp.format ?? '', imp.db, imp.collection, JSON.stringify(opts));
  });
}

/** mongoimport's closing words for one report, with the first errors. */
export function formatImport(report) {
  let text = `${report.file} -> ${report.db}.${report.collection}: ${report.inserted} document(s) imported successfully. ${report.failed} document(s) failed to import.`;
  if (report.indexes) text += ` ${report.indexes} index(es) created.`;
  for (const e of report.errors.slice(0, 5)) {
    const where = e.line != null ? `:${e.line}` : e.offset != null ? `: at byte ${e.offset}` : '';
    text += `\n  ${e.file}${where}: ${e.message}`;
  }
  if (report.errors.length > 5) text += `\n  ... ${report.errors.length - 5} more`;
  return text;
}

/** Where V8 puts a syntax error of `source` (compiled as `filename`): { line, column }. */
function locateSyntaxError(source, filename) {
  try {
    new vm.Script(source, { filename });
  } catch (e) {
    // The stack of a compile error starts "file:LINE\n<code line>\n<spaces>^^^".
    const lines = String(e.stack).split('\n');
    const m = /:(\d+)$/.exec(lines[0] ?? '');
    if (m) {
      const caret = (lines[2] ?? '').indexOf('^');
      return { line: Number(m[1]), column: caret >= 0 ? caret + 1 : undefined };
    }
  }
  return null;
}

/** Runs one file in the context; resolves to its report. `timeout` bounds its synchronous run. */
export async function runFile(context, code, filename, timeout, { writes = false } = {}) {
  context.__code = code;
  context.__file = filename;
  context.__opts = { writes };
  try {
    const pending = vm.runInContext('__session.run(__code, __file, __opts)', context, timeout ? { timeout } : {});
    return await pending;
  } catch (e) {
    // only the vm's own time limit lands here (run() never rejects)
    return {
      output: [],
      error: { name: 'Error', message: `Script execution timed out after ${timeout}ms` },
      cost: null,
      writes: [],
      timedOut: true,
    };
  } finally {
    delete context.__code;
    delete context.__file;
    delete context.__opts;
  }
}

/** mongosh's last words on an uncaught error (run.ts prints `${name}: ${message}`). */
export function formatUncaught(error, filename) {
  let text = `${error.name}: ${error.message}`;
  if (error.line !== undefined) text += `\n    at ${filename}:${error.line}${error.column !== undefined ? `:${error.column}` : ''}`;
  return text;
}

async function main(argv) {
  let timeout = 0;
  let json = false;
  const files = [];
  const data = [];
  for (const arg of argv) {
    if (arg.startsWith('--timeout=')) timeout = Number(arg.slice('--timeout='.length));
    else if (arg.startsWith('--data=')) data.push(arg.slice('--data='.length));
    else if (arg === '--json') json = true;
    else if (arg.trim() !== '') files.push(arg);
  }
  if (files.length === 0) {
    process.stderr.write('usage: make script [DATA="orders.json dump/shop"] FILE="a.js b.js"  (node tools/run-script.mjs [--timeout=MS] [--json] [--data=PATH]... file.js...)\n');
    return 2;
  }
  const out = (stream, text) => {
    if (!json) process.stdout.write(`${text}\n`);
  };
  const { context, engine } = createShellContext({ onOutput: out });
  for (const target of data.filter((d) => d.trim() !== '')) {
    let reports;
    try {
      reports = importData(engine, target);
    } catch (e) {
      process.stderr.write(`${target}: ${e.message}\n`);
      return 1;
    }
    for (const r of reports) {
      process.stderr.write(`${formatImport(r)}\n`);
      if (r.stopped) return 1;
    }
  }
  for (const file of files) {
    const code = fs.readFileSync(file, 'utf8');
    const name = path.basename(file);
    const report = await runFile(context, code, name, timeout, { writes: json });
    if (json) process.stdout.write(`${JSON.stringify({ file: name, ...report })}\n`);
    if (report.error) {
      if (!json) process.stderr.write(`${formatUncaught(report.error, name)}\n`);
      return 1;
    }
  }
  return 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await main(process.argv.slice(2));
}
