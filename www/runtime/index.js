// The mongosh runtime: one bundle (build/runtime.js, an IIFE defining `PatternRuntime`) that runs
// in the browser's worker and, unchanged, inside one Node `vm` context for `make script`.
//
//   const session = PatternRuntime.createSession(engine, { locateSyntaxError });
//   session.install(globalThis);                     // db, print, ObjectId, assert, ...
//   const r = await session.run(code, 'a.js');       // { output, error, cost, writes }
//   session.commandEJSON('{"find": "c"}');           // canonical EJSON in and out
//
// `engine` is the wasm-bindgen Engine (command(bytes) -> bytes, lastCost()). Scripts run as
// written for mongosh 2.x: every shell method is synchronous (the engine is in memory), and each
// run is its own top-level scope (an async function, so top-level `await` works too).
import { BSON, shellBson, makePrintableBson, bsonsize, toBytes, recordIds, endIds } from './bson.js';
import { formatPrint, addCustomInspect, shellApiType, asPrintable, inspect } from './format.js';
import { Client } from './client.js';
import { Database, assertDbName } from './database.js';
import { ClientSession } from './session.js';
import { MongoshInvalidInputError, MongoshUnimplementedError, CommonErrors } from './errors.js';
import * as errors from './errors.js';

const WRAP_PREFIX = '(async function () {';

function explainVerbosity(v) {
  if (v === true) return 'allPlansExecution';
  if (v === false || v === undefined) return 'queryPlanner';
  if (!['queryPlanner', 'executionStats', 'allPlansExecution'].includes(v)) {
    throw new MongoshInvalidInputError(`verbosity can only be one of queryPlanner, executionStats, allPlansExecution. Received ${v}.`, CommonErrors.InvalidArgument);
  }
  return v;
}

/** Blocks for `ms` (mongosh's sleep() is awaited implicitly; ours must not return early). */
function sleepSync(ms) {
  const n = Number(ms);
  if (!(n > 0)) return;
  try {
    if (typeof SharedArrayBuffer === 'function' && typeof Atomics?.wait === 'function') {
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, n);
      return;
    }
  } catch {
    // Atomics.wait is not allowed here: busy-wait instead
  }
  const end = Date.now() + n;
  while (Date.now() < end) {
    // wait
  }
}

function escapeRegExp(s) {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The first frame of `stack` in the user's file: { line, column } (column 1-based, as V8). */
function locate(stack, filename) {
  if (typeof stack !== 'string') return null;
  const re = new RegExp(`${escapeRegExp(filename)}:(\\d+):(\\d+)`);
  for (const frameLine of stack.split('\n').slice(1)) {
    const m = re.exec(frameLine);
    if (m) {
      const line = Number(m[1]);
      let column = Number(m[2]);
      if (line === 1) column -= WRAP_PREFIX.length;
      return { line, column };
    }
  }
  return null;
}

function userStack(stack, filename) {
  if (typeof stack !== 'string') return undefined;
  const lines = stack.split('\n');
  const frames = lines.filter((l) => l.includes(`${filename}:`));
  return [lines[0], ...frames].join('\n');
}

function isErrorLike(e) {
  return e !== null && typeof e === 'object' && typeof e.message === 'string' && 'stack' in e;
}

class Session {
  constructor(engine, hooks = {}) {
    makePrintableBson();
    this.client = new Client(engine);
    this.hooks = hooks;
    this.output = [];
    this.warningsShown = new Set();
    this.databases = new Map();
    this.db = this.getDb('test');
    this.mongo = new Mongo(this);
  }

  /** The Database object of `name` (one per name, as mongosh keeps them). */
  getDb(name) {
    assertDbName(name, 'Mongo.getDB');
    let db = this.databases.get(name);
    if (!db) {
      db = new Database(this, name);
      this.databases.set(name, db);
    }
    return db;
  }

  setEngine(engine) {
    this.client.engine = engine;
  }

  emit(stream, text) {
    this.output.push({ stream, text });
    if (typeof this.hooks.onOutput === 'function') this.hooks.onOutput(stream, text);
  }

  warn(message) {
    this.emit('out', message);
  }

  deprecation(message) {
    if (this.warningsShown.has(message)) return;
    this.warningsShown.add(message);
    this.warn(`DeprecationWarning: ${message}`);
  }

  explainVerbosity(v) {
    return explainVerbosity(v);
  }

  explainOutput(reply) {
    const out = addCustomInspect(reply);
    Object.defineProperty(out, shellApiType, { value: 'ExplainOutput', enumerable: false, configurable: true });
    return out;
  }

  /** Defines the shell's globals on `g` (the realm's global object). */
  install(g) {
    this.global = g;
    const session = this;
    const print = (...args) => session.emit('out', formatPrint(args, 'print'));
    const printjson = (...args) => session.emit('out', formatPrint(args, 'printjson'));
    const printErr = (...args) => session.emit('err', formatPrint(args, 'print'));
    const globals = {
      ...shellBson((m) => session.warn(`Warning: ${m}`)),
      db: this.db,
      print,
      printjson,
      sleep: sleepSync,
      load() {
        throw new MongoshUnimplementedError('load is not currently implemented for this platform', CommonErrors.NotImplemented);
      },
      version: () => '2.11.1',
      isInteractive: () => false,
      quit() {},
      exit() {},
    };
    for (const [k, v] of Object.entries(globals)) {
      Object.defineProperty(g, k, { value: v, writable: true, configurable: true, enumerable: false });
    }
    // `assert` (the npm package, Node's assert, with the `util` polyfill it brings) is evaluated
    // when a script first reads it: its set-up is a third of the runtime's start-up. The global
    // then becomes a plain value, as mongosh's is.
    const define = (value) => Object.defineProperty(g, 'assert', { value, writable: true, configurable: true, enumerable: false });
    Object.defineProperty(g, 'assert', {
      get() {
        const a = require('assert');
        define(a);
        return a;
      },
      set: define,
      configurable: true,
      enumerable: false,
    });
    const cons = g.console ?? {};
    const shellConsole = Object.create(cons);
    shellConsole.log = print;
    shellConsole.info = print;
    shellConsole.warn = printErr;
    shellConsole.error = printErr;
    shellConsole.clear = () => {};
    Object.defineProperty(g, 'console', { value: shellConsole, writable: true, configurable: true, enumerable: false });
    Object.defineProperty(g.Object, 'bsonsize', { value: bsonsize, writable: true, configurable: true, enumerable: false });
  }

  /** Runs one script; resolves to the run's report (never rejects). `writes: false` leaves out
   * the write log (converting it to EJSON costs time the Node runner need not spend).
   * `freshDb: true` points the global `db` at "test" first, as a new mongosh starts (the site:
   * every Run is a script of its own); without it a `db = db.getSiblingDB(...)` of an earlier
   * file holds, as in one mongosh given several files. `ids` (`null`, or an earlier run's
   * `{ seed, times }`) records the ObjectIds the run makes, reported as `ids` (see recordIds). */
  async run(code, filename = 'script.js', { writes = true, freshDb = false, ids = undefined } = {}) {
    if (ids !== undefined) {
      recordIds(ids);
      try {
        const report = await this.run(code, filename, { writes, freshDb });
        return { ...report, ids: endIds() };
      } finally {
        endIds();
      }
    }
    this.output = [];
    this.client.resetRun();
    if (freshDb && this.global) this.global.db = this.db;
    const source = `${WRAP_PREFIX}${code}\n})\n//# sourceURL=${filename}`;
    let error = null;
    let fn;
    try {
      fn = (0, eval)(source);
    } catch (e) {
      error = this.describeError(e, filename);
      const use = e instanceof SyntaxError ? /^[ \t]*use[ \t]+([^\s;]+)[ \t]*;?[ \t]*$/m.exec(code) : null;
      if (use) {
        // mongosh's `use <db>` is a command of its interactive prompt, not JavaScript
        error.message += ` (\`use ${use[1]}\` works at mongosh's prompt only; in a script write db = db.getSiblingDB(${JSON.stringify(use[1])}))`;
      }
      if (e instanceof SyntaxError) {
        let where = null;
        try {
          where = typeof this.hooks.locateSyntaxError === 'function' ? await this.hooks.locateSyntaxError(source, filename) : null;
        } catch {
          // no location then
        }
        const line = where?.line ?? e.lineNumber;
        const column = where?.column ?? e.columnNumber;
        if (line !== undefined) {
          error.line = line;
          error.column = line === 1 && column !== undefined ? column - WRAP_PREFIX.length : column;
        }
      }
    }
    if (fn) {
      try {
        await fn.call(globalThis);
      } catch (e) {
        error = this.describeError(e, filename);
      }
    }
    return { output: this.output, error, cost: this.client.cost, writes: writes ? this.client.writesEJSON() : [], queries: this.client.queries };
  }

  /** { name, message, code?, codeName?, line?, column?, stack? } of a thrown value, as mongosh names it. */
  describeError(e, filename) {
    if (!isErrorLike(e)) {
      const message = formatPrint([e], 'print');
      return { name: 'Error', message };
    }
    const out = { name: String(e.name ?? 'Error'), message: e.message };
    if (e.code !== undefined && (typeof e.code === 'number' || typeof e.code === 'string')) out.code = e.code;
    if (typeof e.codeName === 'string') out.codeName = e.codeName;
    const where = locate(e.stack, filename);
    if (where) {
      out.line = where.line;
      out.column = where.column;
    }
    const stack = userStack(e.stack, filename);
    if (stack) out.stack = stack;
    return out;
  }

  /** A command given as canonical EJSON; the reply as canonical EJSON (types kept exactly). */
  commandEJSON(text) {
    return this.commandBson(toBytes(BSON.EJSON.parse(text, { relaxed: false })));
  }

  /** A command given as BSON bytes (a logged write, replayed exactly); the reply as canonical EJSON. */
  commandBson(bytes) {
    const reply = BSON.deserialize(this.client.engine.command(bytes), { promoteLongs: false, promoteValues: false, promoteBuffers: false });
    return BSON.EJSON.stringify(reply, { relaxed: false });
  }
}

/** `db.getMongo()`: the connection's side of several databases. */
class Mongo {
  constructor(shell) {
    this._shell = shell;
  }

  get [shellApiType]() {
    return 'Mongo';
  }

  [asPrintable]() {
    return 'mongodb://playground/';
  }

  toString() {
    return 'mongodb://playground/';
  }

  getDB(name) {
    return this._shell.getDb(name);
  }

  getDBNames() {
    return this.getDBs().databases.map((d) => d.name);
  }

  getDBs() {
    return addCustomInspect(this._shell.getDb('admin')._client.command({ listDatabases: 1 }));
  }

  /** A session: its databases' commands carry its `lsid`; it runs transactions. */
  startSession(options = {}) {
    const driverOptions = {};
    const txn = {};
    for (const k of ['readConcern', 'writeConcern', 'readPreference']) if (options?.[k]) txn[k] = options[k];
    if (Object.keys(txn).length > 0) driverOptions.defaultTransactionOptions = txn;
    if (options?.causalConsistency !== undefined) driverOptions.causalConsistency = options.causalConsistency;
    return new ClientSession(this._shell, driverOptions);
  }
}

export function createSession(engine, hooks) {
  return new Session(engine, hooks);
}

export { BSON, errors, inspect, formatPrint };
