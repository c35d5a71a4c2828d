// The engine worker: the mongosh runtime (runtime.js, from www/runtime/) over the engine
// (engine/engine.js + engine/engine_bg.wasm, wasm-bindgen no-modules), in one classic worker that
// runs inside the engine's sandbox (www/sandbox.js): an iframe with an opaque origin, whose CSP
// cuts the network. The frame starts it from a blob: of engine.js + runtime.js + this file and
// posts one message, { pp: "boot", wasm: MessagePort, port: MessagePort } (the wasm's bytes arrive
// on the first in chunks, compiled as they come); every message of the
// protocol then goes over that port, which only this file's closure holds (a user's script can
// neither read the requests nor post answers).
//
// Protocol (the UI's src/protocol.rs speaks it; every request carries an `id` that its reply echoes):
//
//   worker -> page, once loaded:  { kind: "ready", started: { script, boot, compiled, instance, session } }
//                                  (start-up times, ms since the epoch: tools/tti.mjs)
//                  or if loading failed: { kind: "failed", error: "<message>" }
//
//   { id, kind: "run", code, filename, ids? }          // ids: an earlier run's { seed, times }:
//                                                       // its ObjectIds made again (bson.js recordIds)
//     -> { id, kind: "run", ids: { seed, times },      // how this run's ObjectIds were made
//          output: [{ stream: "out" | "err", text }],   // one entry per print/console call, as
//                                                       // mongosh formats it (text may hold "\n")
//          error: null | { name, message, code?, codeName?, line?, column?, stack? },
//                                                       // line/column: 1-based, in the user's script;
//                                                       // code: a number (server) or a string (mongosh)
//          cost: null | { docsExamined, keysExamined, docsReturned, bytesRead, bytesWritten },
//                                                       // summed over the run's commands
//          writes: [{ collection, command, bson, inexact? }] } // each successful write command:
//                                                       // its BSON bytes (Uint8Array, the log's
//                                                       // exact record), canonical EJSON text (export),
//                                                       // inexact: true if that text reads back otherwise;
//                                                       // collection null for database-wide ones
//   { id, kind: "command", command: "<canonical EJSON command>" }
//     -> { id, kind: "command", reply: "<canonical EJSON reply>" }   (ok: 0 replies included)
//   { id, kind: "commandBson", bson: Uint8Array }  (a logged write replayed as its exact bytes)
//     -> { id, kind: "command", reply: "<canonical EJSON reply>" }
//   { id, kind: "snapshot" }       -> { id, kind: "snapshot", bytes: Uint8Array }
//   { id, kind: "restore", bytes } -> { id, kind: "restore" }
//   { id, kind: "reset" }          -> { id, kind: "reset" }    (an empty database)
//   { id, kind: "import", file, bytes, format, db, collection, options } -> { id, kind: "import", report }
//   an import in slices (the page can cancel between them; src/protocol.rs):
//   { id, kind: "importBegin", file, bytes, format, db, collection, options }
//                                  -> { id, kind: "importProgress", progress }
//   { id, kind: "importStep", maxDocs, maxBytes } -> { id, kind: "importProgress", progress }
//   { id, kind: "importEnd", keep } -> { id, kind: "import", report }   (keep false: undone)
//   { id, kind: "export", db, collection, format } -> { id, kind: "export", bytes }
//
// A request the worker cannot serve is answered { id, kind: "error", error: "<message>" }.
//
// Time zones: the engine's wasm carries no time-zone database. The page (www/sandbox.js) fetches
// the time-zone file once the page is interactive and posts it, no id, no answer:
//   { kind: "timeZones", bytes: ArrayBuffer }   (wasm_bindgen.loadTimeZones)
// A request that asked for a named zone before that is answered
//   { id, kind: "needsTimeZones" }
// instead of its own answer (which is not the server's: the zone was neither found nor unknown);
// the page then gets the file, puts the database back as it was before the request and sends the
// request again (src/app/worker.rs).
// Runs are synchronous: the page enforces the time limit by terminating the sandbox and starting
// a new one, then restoring the database. Timers and nested workers a script leaves behind are
// cleared when its run ends, so nothing of it runs between requests.
/* global wasm_bindgen, PatternRuntime */
'use strict';

(() => {
  // Captured before any user code runs: the script sees only the wrappers below.
  // When start-up reached each step (ms since the epoch, so the page can place them on its own
  // timeline: www/sandbox.js marks them for tools/tti.mjs): this file ran (engine.js and runtime.js
  // before it were parsed and evaluated), the boot message came, the wasm compiled, the engine was
  // instantiated, the runtime's session was made.
  const now = () => performance.timeOrigin + performance.now();
  const started = { script: now() };
  const realSetTimeout = self.setTimeout.bind(self);
  const realSetInterval = self.setInterval.bind(self);
  const realClearTimeout = self.clearTimeout.bind(self);
  const RealWorker = self.Worker;

  let session = null;
  let port = null;
  const queue = [];

  function reply(msg, transfer) {
    // A request that met a named time zone before the time-zone file came gets no answer of its own.
    if (msg.id !== undefined && session && wasm_bindgen.timeZonesMissed()) {
      port.postMessage({ id: msg.id, kind: 'needsTimeZones' });
      return;
    }
    port.postMessage(msg, transfer ?? []);
  }

  // What a script leaves behind dies with its run: its timers are cleared and the workers it
  // started are terminated once the run ends.
  const timers = new Set();
  const workers = new Set();
  const track = (real) =>
    function (fn, ms, ...args) {
      const id = real(fn, ms, ...args);
      timers.add(id);
      return id;
    };
  const define = (name, value) => Object.defineProperty(self, name, { value, writable: true, configurable: true, enumerable: true });
  define('setTimeout', track(realSetTimeout));
  define('setInterval', track(realSetInterval));
  if (typeof RealWorker === 'function') {
    define(
      'Worker',
      class Worker extends RealWorker {
        constructor(...args) {
          super(...args);
          workers.add(this);
        }
      },
    );
  }
  function endRun() {
    for (const id of timers) realClearTimeout(id);
    timers.clear();
    for (const w of workers) w.terminate();
    workers.clear();
  }

  // A file's bytes as they came (a transferred Uint8Array is used as is, not copied again).
  const asBytes = (b) => (b instanceof Uint8Array ? b : new Uint8Array(b));

  async function handle(msg) {
    const { id, kind } = msg;
    if (kind === 'timeZones' && id === undefined) {
      try {
        wasm_bindgen.loadTimeZones(asBytes(msg.bytes));
      } catch (e) {
        console.warn(`the time-zone file was refused: ${e && e.message ? e.message : e}`);
      }
      return;
    }
    wasm_bindgen.timeZonesMissed();
    try {
      switch (kind) {
        case 'run': {
          let r;
          try {
            r = await session.run(String(msg.code ?? ''), String(msg.filename || 'script.js'), { freshDb: true, ids: msg.ids ?? null });
          } finally {
            endRun();
          }
          reply({ id, kind, output: r.output, error: r.error, cost: r.cost, writes: r.writes, queries: r.queries, ids: r.ids });
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
        case 'export': {
          const bytes = session.client.engine.exportData(String(msg.db ?? ''), String(msg.collection ?? ''), String(msg.format ?? 'json'));
          reply({ id, kind, bytes }, [bytes.buffer]);
          break;
        }
        case 'import': {
          const e = session.client.engine;
          const report = e.importData(String(msg.file ?? ''), asBytes(msg.bytes), String(msg.format ?? ''), String(msg.db ?? ''), String(msg.collection ?? ''), String(msg.options ?? '{}'));
          reply({ id, kind, report });
          break;
        }
        // An import in slices: the page sends a step at a time, so it can cancel between them.
        case 'importBegin': {
          const e = session.client.engine;
          const progress = e.importBegin(String(msg.file ?? ''), asBytes(msg.bytes), String(msg.format ?? ''), String(msg.db ?? ''), String(msg.collection ?? ''), String(msg.options ?? '{}'));
          reply({ id, kind: 'importProgress', progress });
          break;
        }
        case 'importStep':
          reply({ id, kind: 'importProgress', progress: session.client.engine.importStep(Number(msg.maxDocs) >>> 0, Number(msg.maxBytes) >>> 0) });
          break;
        case 'importEnd':
          reply({ id, kind: 'import', report: session.client.engine.importEnd(msg.keep === true) });
          break;
        default:
          reply({ id, kind: 'error', error: `unknown request kind: ${kind}` });
      }
    } catch (e) {
      reply({ id, kind: 'error', error: String(e && e.message ? e.message : e) });
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
        realClearTimeout(timer);
        if (w) w.terminate();
        URL.revokeObjectURL(url);
        resolve(where);
      };
      const timer = realSetTimeout(() => done(null), 2000);
      try {
        w = new RealWorker(url);
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

  // An error a script throws from a callback after its run is its own: it must not reach the
  // page as a dead worker.
  self.addEventListener('error', (e) => {
    if (session) e.preventDefault();
  });

  /** The engine's wasm, compiled while its bytes arrive on `wasmPort` (`{ chunk }` messages, then
   * `{ done }` or `{ error }`: www/sandbox.js streams them from its download). */
  function compileStreamed(wasmPort) {
    const stream = new ReadableStream({
      start(controller) {
        wasmPort.onmessage = (e) => {
          const m = e.data || {};
          if (m.chunk) controller.enqueue(m.chunk);
          else if (m.done) {
            controller.close();
            wasmPort.close();
          } else {
            controller.error(new Error(String(m.error || 'the engine could not be loaded')));
            wasmPort.close();
          }
        };
      },
    });
    if (typeof WebAssembly.compileStreaming === 'function') {
      return WebAssembly.compileStreaming(new Response(stream, { headers: { 'Content-Type': 'application/wasm' } }));
    }
    return new Response(stream).arrayBuffer().then((bytes) => WebAssembly.compile(bytes));
  }

  async function boot({ wasm, port: p }) {
    port = p;
    port.onmessage = (event) => {
      queue.push(event.data);
      pump();
    };
    try {
      started.boot = now();
      const module = await compileStreamed(wasm);
      started.compiled = now();
      await wasm_bindgen({ module_or_path: module });
      started.instance = now();
      session = PatternRuntime.createSession(new wasm_bindgen.Engine(), { locateSyntaxError });
      session.install(self);
      started.session = now();
      reply({ kind: 'ready', started });
      pump();
    } catch (e) {
      reply({ kind: 'failed', error: String(e && e.message ? e.message : e) });
    }
  }

  // The one message from the sandbox frame; nothing else is listened to on `self`.
  const onBoot = (event) => {
    const d = event.data;
    if (!d || d.pp !== 'boot' || !d.port) return;
    self.removeEventListener('message', onBoot);
    boot(d);
  };
  self.addEventListener('message', onBoot);
})();
