// The engine worker: the mongosh runtime (runtime.js, from www/runtime/) over the engine
// (engine/engine.js + engine/engine_bg.wasm, wasm-bindgen no-modules), in one classic worker.
// Paths are relative to this file: the site ships worker.js, runtime.js and engine/ side by side.
//
// Protocol (the UI's src/protocol.rs speaks it; every request carries an `id` that its reply echoes):
//
//   worker -> page, once loaded:  { kind: "ready" }
//                  or if loading failed: { kind: "failed", error: "<message>" }
//
//   { id, kind: "run", code, filename }
//     -> { id, kind: "run",
//          output: [{ stream: "out" | "err", text }],   // one entry per print/console call, as
//                                                       // mongosh formats it (text may hold "\n")
//          error: null | { name, message, code?, codeName?, line?, column?, stack? },
//                                                       // line/column: 1-based, in the user's script
//          cost: null | { docsExamined, keysExamined, docsReturned, bytesRead, bytesWritten },
//                                                       // summed over the run's commands
//          writes: [{ collection, command, bson, inexact? }] } // each successful write command:
//                                                       // its BSON bytes (Uint8Array, the log's
//                                                       // exact record), canonical EJSON text (export),
//                                                       // inexact: true if that text reads back otherwise
//   { id, kind: "command", command: "<canonical EJSON command>" }
//     -> { id, kind: "command", reply: "<canonical EJSON reply>" }   (ok: 0 replies included)
//   { id, kind: "commandBson", bson: Uint8Array }  (a logged write replayed as its exact bytes)
//     -> { id, kind: "command", reply: "<canonical EJSON reply>" }
//   { id, kind: "snapshot" }       -> { id, kind: "snapshot", bytes: Uint8Array }
//   { id, kind: "restore", bytes } -> { id, kind: "restore" }  (or { id, kind: "restore", error })
//   { id, kind: "reset" }          -> { id, kind: "reset" }    (an empty database)
//
// A request the worker cannot serve is answered { id, kind, error: "<message>" }.
// Runs are synchronous: the page enforces the time limit by terminating this worker and starting
// a new one, then restoring the snapshot it took before the run.
/* global importScripts, wasm_bindgen, PatternRuntime */
'use strict';

let session = null;
const queue = [];

function reply(msg, transfer) {
  self.postMessage(msg, transfer ?? []);
}

async function handle(msg) {
  const { id, kind } = msg;
  try {
    switch (kind) {
      case 'run': {
        const r = await session.run(String(msg.code ?? ''), String(msg.filename || 'script.js'));
        reply({ id, kind, output: r.output, error: r.error, cost: r.cost, writes: r.writes });
        break;
      }
      case 'command':
        reply({ id, kind, reply: session.commandEJSON(String(msg.command)) });
        break;
      case 'commandBson':
        reply({ id, kind: 'command', reply: session.commandBson(new Uint8Array(msg.bson)) });
        break;
      case 'snapshot': {
        const bytes = session.client.engine.snapshot();
        reply({ id, kind, bytes }, [bytes.buffer]);
        break;
      }
      case 'restore':
        session.client.engine.restore(new Uint8Array(msg.bytes));
        reply({ id, kind });
        break;
      case 'reset':
        session.setEngine(new wasm_bindgen.Engine());
        reply({ id, kind });
        break;
      default:
        reply({ id, kind, error: `unknown request kind: ${kind}` });
    }
  } catch (e) {
    reply({ id, kind, error: String(e && e.message ? e.message : e) });
  }
}

// V8 gives no position for a SyntaxError thrown by eval; a nested worker started on the same
// source reports it (an error event with lineno/colno) without running anything, since the
// source does not parse.
function locateSyntaxError(source) {
  return new Promise((resolve) => {
    let w;
    const url = URL.createObjectURL(new Blob([source], { type: 'text/javascript' }));
    const done = (where) => {
      clearTimeout(timer);
      if (w) w.terminate();
      URL.revokeObjectURL(url);
      resolve(where);
    };
    const timer = setTimeout(() => done(null), 2000);
    try {
      w = new Worker(url);
      w.onerror = (event) => {
        event.preventDefault();
        done(event.lineno ? { line: event.lineno, column: event.colno } : null);
      };
    } catch {
      done(null);
    }
  });
}

// Requests are served one at a time, in order (a run may await).
let busy = false;
async function pump() {
  if (busy || !session) return;
  busy = true;
  while (queue.length > 0) await handle(queue.shift());
  busy = false;
}

self.onmessage = (event) => {
  queue.push(event.data);
  pump();
};

/** A WebAssembly.Module of the file at `url` (streaming compilation when the server says
 * application/wasm). */
async function compileEngine(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  if (typeof WebAssembly.compileStreaming === 'function' && /application\/wasm/.test(response.headers.get('content-type') || '')) {
    return WebAssembly.compileStreaming(response);
  }
  return WebAssembly.compile(await response.arrayBuffer());
}

(async () => {
  try {
    // `self.ppBase`: the site's URL when this file was loaded by a blob: worker (embed mode,
    // src/app/embed.rs), whose own URL cannot resolve relative paths.
    const base = self.ppBase || self.location.href;
    // The engine's WebAssembly downloads and compiles (streaming, off this thread) while the
    // glue and the runtime load.
    const engineModule = compileEngine(new URL('engine/engine_bg.wasm', base));
    engineModule.catch(() => {});
    importScripts(new URL('engine/engine.js', base).href, new URL('runtime.js', base).href);
    await wasm_bindgen({ module_or_path: await engineModule });
    session = PatternRuntime.createSession(new wasm_bindgen.Engine(), { locateSyntaxError });
    session.install(self);
    reply({ kind: 'ready' });
    pump();
  } catch (e) {
    reply({ kind: 'failed', error: String(e && e.message ? e.message : e) });
  }
})();
