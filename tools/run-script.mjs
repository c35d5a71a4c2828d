#!/usr/bin/env node
// make script FILE="a.js b.js": runs mongosh scripts headless, as the browser's output pane shows
// them. The same build/runtime.js bundle and build/engine wasm the worker loads are evaluated
// inside ONE Node vm context, so every value a script sees is built in that realm (instanceof and
// assert.deepStrictEqual behave as in mongosh). Files run in order against one database, each in
// its own top-level scope. On an uncaught error the runner prints it as mongosh does
// (`MongoServerError: E11000 ...`), then where it happened, and exits 1.
//
// Usage: node tools/run-script.mjs [--timeout=MS] [--json] file.js...
//   --timeout=MS  per-file time limit on the synchronous run (default: none)
//   --json        print one JSON report per file ({ file, output, error, cost, writes }) instead
import fs from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Creates the vm context with the engine and the runtime loaded; returns { context, session }. */
export function createShellContext({ buildDir = path.join(root, 'build'), onOutput } = {}) {
  const glue = fs.readFileSync(path.join(buildDir, 'engine', 'engine.js'), 'utf8');
  const wasm = fs.readFileSync(path.join(buildDir, 'engine', 'engine_bg.wasm'));
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
  context.__hooks = { locateSyntaxError, onOutput: onOutput ?? (() => {}) };
  vm.runInContext(
    `wasm_bindgen.initSync({ module: __wasm });
     globalThis.__session = PatternRuntime.createSession(new wasm_bindgen.Engine(), __hooks);
     __session.install(globalThis);
     delete globalThis.__wasm; delete globalThis.__hooks;`,
    context,
    { filename: 'boot.js' },
  );
  return { context, session: context.__session };
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
  for (const arg of argv) {
    if (arg.startsWith('--timeout=')) timeout = Number(arg.slice('--timeout='.length));
    else if (arg === '--json') json = true;
    else if (arg.trim() !== '') files.push(arg);
  }
  if (files.length === 0) {
    process.stderr.write('usage: make script FILE="a.js b.js"  (node tools/run-script.mjs [--timeout=MS] [--json] file.js...)\n');
    return 2;
  }
  const out = (stream, text) => {
    if (!json) process.stdout.write(`${text}\n`);
  };
  const { context } = createShellContext({ onOutput: out });
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
