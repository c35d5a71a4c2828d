// The wire: a command document goes to the engine as BSON bytes, the reply comes back as BSON and
// is read with the driver's options. A reply with `ok: 0` throws MongoServerError, as the driver
// does. The client also keeps what a run reports besides its output: the summed cost counters and
// the log of successful write commands (the UI's export replays them).
import { BSON, toBytes, fromBytes } from './bson.js';
import { MongoServerError, MongoshUnimplementedError, CommonErrors } from './errors.js';

const WRITE_COMMANDS = new Set([
  'insert', 'update', 'delete', 'findAndModify', 'create', 'createIndexes', 'drop', 'dropIndexes',
  'dropDatabase', 'renameCollection', 'collMod',
]);
const STATEMENTS = { insert: 'documents', update: 'updates', delete: 'deletes' };

/** Reads a run reports for the advisor, at most. */
const MAX_QUERIES = 200;

/** The database a command without `$db` runs in (the engine's default too). */
export const DEFAULT_DB = 'test';

/** The server's own databases: the playground keeps no users, sharding or oplog there, so a
 * write into one is refused (reads and admin commands such as listDatabases work). */
const SYSTEM_DBS = new Set(['admin', 'config', 'local']);

export class Client {
  constructor(engine) {
    this.engine = engine;
    this.views = new Map();
    this.resetRun();
  }

  /** The client as one database's commands use it: each command carries `$db` (none for
   * DEFAULT_DB, so its commands and their logged bytes are what they always were). */
  forDb(name) {
    if (name === DEFAULT_DB) return this;
    let view = this.views.get(name);
    if (!view) {
      view = new BoundClient(this, name, null);
      this.views.set(name, view);
    }
    return view;
  }

  /** The client as a session's database uses it (ClientSession.getDatabase). */
  forSession(name, session) {
    return new BoundClient(this, name, session);
  }

  /** Clears the per-run cost and write log. */
  resetRun() {
    this.cost = null;
    this.writes = [];
    this.queries = [];
  }

  /** The reads of the run, for the advisor (at most MAX_QUERIES): a find's filter and sort, an
   * aggregation's leading $match and its $lookup stages. `{ db, collection, query }`, the query as
   * canonical Extended JSON text of `{ filter, sort?, lookups? }`. */
  logQuery(cmd) {
    if (this.queries.length >= MAX_QUERIES) return;
    const name = Object.keys(cmd)[0];
    const collection = cmd[name];
    if (typeof collection !== 'string') return;
    let query = null;
    if (name === 'find') {
      query = { filter: cmd.filter ?? {} };
      if (cmd.sort && typeof cmd.sort === 'object') query.sort = cmd.sort;
    } else if (name === 'aggregate' && Array.isArray(cmd.pipeline)) {
      const first = cmd.pipeline[0]?.$match;
      const lookups = cmd.pipeline.map((s) => s?.$lookup).filter((l) => l && typeof l === 'object');
      if ((first && typeof first === 'object') || lookups.length > 0) {
        query = { filter: first && typeof first === 'object' ? first : {} };
        if (lookups.length > 0) query.lookups = lookups;
      }
    }
    if (query === null) return;
    const db = typeof cmd.$db === 'string' ? cmd.$db : DEFAULT_DB;
    try {
      this.queries.push({ db, collection, query: BSON.EJSON.stringify(query, { relaxed: false }) });
    } catch {
      // a filter that does not serialize was refused by the engine anyway
    }
  }

  /** Sends one command and returns the reply document, whatever its `ok`. `mark`: the
   * reply's documents are marked as a command's as they are read (a cursor's batches; see
   * reply.js `decodeReply`). */
  raw(cmd, mark = false) {
    return this.send(cmd, toBytes(cmd), null, mark);
  }

  /** Sends `bytes` (the command `cmd`). `log` is what the write log keeps of it when it
   * succeeds: `{ cmd, bytes? }` without session fields (`bytes` serialized from `cmd` when
   * left out, for writes only), and the session whose open transaction holds it until the
   * commit. */
  send(cmd, bytes, log = null, mark = false) {
    refuseSystemWrite(cmd);
    const reply = fromBytes(this.engine.command(bytes), mark);
    this.addCost(this.engine.lastCost());
    if (reply && Number(reply.ok) !== 0) {
      const plain = log?.cmd ?? cmd;
      this.logQuery(plain);
      if (isWrite(Object.keys(plain)[0], plain)) {
        const entry = this.writeEntry(plain, log ? (log.bytes ?? toBytes(plain)) : bytes, reply);
        if (log?.session?.inTransaction()) log.session.pendingWrites.push(entry);
        else this.writes.push(entry);
      }
    }
    return reply;
  }

  /** Sends one command; throws MongoServerError for `ok: 0`; logs successful writes. */
  command(cmd, mark = false) {
    return check(this.raw(cmd, mark));
  }

  /** Tells the engine that commands of `bytes` bytes in all are coming (a bulk write's
   * batches): it makes room for them at once (engines without the call ignore it). */
  reserve(bytes) {
    this.engine.reserve?.(bytes);
  }

  /** The same, for a command already serialized (bulk writes build their bytes themselves). */
  commandBytes(cmd, bytes) {
    return check(this.send(cmd, bytes));
  }

  addCost(cost) {
    if (!cost || typeof cost !== 'object') return;
    const c = (this.cost ??= { docsExamined: 0, keysExamined: 0, docsReturned: 0, bytesRead: 0, bytesWritten: 0 });
    for (const k of Object.keys(c)) c[k] += Number(cost[k] ?? 0);
  }

  /** Keeps the command's bytes (cheap, and immune to later changes of the script's objects);
   * writesEJSON() turns them into the log only when a run report asks for it. */
  writeEntry(cmd, bytes, reply) {
    const name = Object.keys(cmd)[0];
    const errors = Array.isArray(reply.writeErrors) ? reply.writeErrors.map((e) => e.index) : [];
    const db = typeof cmd.$db === 'string' ? cmd.$db : DEFAULT_DB;
    return { name, db, collection: typeof cmd[name] === 'string' ? cmd[name] : null, bytes, errors };
  }

  /** The successful write commands of the run: [{ collection, command, bson, inexact? }]
   * (a command in another database than DEFAULT_DB names it in its `$db`).
   * `bson` is the command's BSON bytes as the engine ran it (the statements that failed left
   * out): the log keeps them, and a replay sends them, so nothing changes type. `command` is the
   * same as canonical Extended JSON text, for reading and the export; `inexact: true` when that
   * text does not give back the same command (a document has a field named like an Extended JSON
   * type, `{ $date: "2020-01-01" }`, which EJSON.parse reads as a Date). */
  writesEJSON() {
    const out = [];
    for (const { name, collection, bytes, errors } of this.writes) {
      // bsonRegExp: a regex keeps its BSON options (x, l, u), which a JavaScript RegExp cannot hold.
      let cmd = BSON.deserialize(bytes, { promoteLongs: false, promoteValues: false, promoteBuffers: false, bsonRegExp: true });
      let bson = bytes.slice();
      const key = STATEMENTS[name];
      if (key && errors.length > 0) {
        // keep the statements that were applied: before the first error when ordered
        const failed = new Set(errors);
        const ordered = cmd.ordered !== false;
        const first = Math.min(...errors);
        const kept = cmd[key].filter((_, i) => (ordered ? i < first : !failed.has(i)));
        if (kept.length === 0) continue;
        cmd = { ...cmd, [key]: kept };
        bson = toBytes(cmd);
      }
      const record = { collection, command: BSON.EJSON.stringify(cmd, { relaxed: false }), bson };
      if (hasTypeKey(cmd)) record.inexact = true;
      out.push(record);
    }
    return out;
  }
}

// The keys that make Extended JSON read an object as a typed value.
const EJSON_KEYS = new Set([
  '$oid', '$numberInt', '$numberLong', '$numberDouble', '$numberDecimal', '$binary', '$date', '$regularExpression',
  '$regex', '$timestamp', '$minKey', '$maxKey', '$undefined', '$code', '$symbol', '$dbPointer', '$uuid', '$ref',
]);

/** True if a plain object in `v` (a document, not a BSON value) has a key of EJSON_KEYS. */
function hasTypeKey(v) {
  if (v === null || typeof v !== 'object') return false;
  if (Array.isArray(v)) return v.some(hasTypeKey);
  const proto = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) return false;
  for (const k of Object.keys(v)) {
    if (EJSON_KEYS.has(k) || hasTypeKey(v[k])) return true;
  }
  return false;
}

/** A database's view of the client, and a session's: every command gets `$db` (none for
 * DEFAULT_DB) and, in a session, `lsid` and the open transaction's fields (the session's
 * `fields`), appended to its bytes too; the write log keeps the command without the session's
 * fields. */
class BoundClient {
  constructor(client, name, session) {
    this.client = client;
    this.name = name;
    this.session = session;
  }

  raw(cmd, mark = false) {
    const plain = this.name === DEFAULT_DB ? cmd : { ...cmd, $db: this.name };
    if (!this.session) return this.client.send(plain, toBytes(plain), null, mark);
    const full = { ...plain, ...this.session.fields(plain) };
    return this.client.send(full, toBytes(full), { cmd: plain, session: this.session }, mark);
  }

  command(cmd, mark = false) {
    return check(this.raw(cmd, mark));
  }

  reserve(bytes) {
    this.client.reserve(bytes);
  }

  /** A command serialized by the caller (bulk writes): the fields are appended to its bytes. */
  commandBytes(cmd, bytes) {
    const plain = this.name === DEFAULT_DB ? cmd : { ...cmd, $db: this.name };
    const plainBytes = this.name === DEFAULT_DB ? bytes : appendFields(bytes, { $db: this.name });
    if (!this.session) return check(this.client.send(plain, plainBytes));
    const fields = this.session.fields(plain);
    return check(this.client.send({ ...plain, ...fields }, appendFields(plainBytes, fields), { cmd: plain, bytes: plainBytes, session: this.session }));
  }
}

/** `bytes` (a BSON document) with the fields of `extra` added at its end. */
function appendFields(bytes, extra) {
  const e = toBytes(extra);
  const element = e.subarray(4, e.length - 1);
  const out = new Uint8Array(bytes.length + element.length);
  out.set(bytes.subarray(0, bytes.length - 1), 0);
  out.set(element, bytes.length - 1);
  out[out.length - 1] = 0;
  new DataView(out.buffer).setInt32(0, out.length, true);
  return out;
}

/** An aggregation's `$out`/`$merge` stage (its last), or null. */
function outStage(cmd) {
  const last = Array.isArray(cmd.pipeline) ? cmd.pipeline[cmd.pipeline.length - 1] : null;
  if (last === null || typeof last !== 'object') return null;
  if ('$out' in last) return { db: typeof last.$out === 'object' && last.$out !== null ? last.$out.db : undefined };
  if ('$merge' in last) {
    const into = typeof last.$merge === 'object' && last.$merge !== null ? last.$merge.into : undefined;
    return { db: typeof into === 'object' && into !== null ? into.db : undefined };
  }
  return null;
}

/** A command that changes data: the write commands, and aggregations ending in `$out`/`$merge`
 * (the log replays them; the engine makes their results again from the same data). */
function isWrite(name, cmd) {
  return WRITE_COMMANDS.has(name) || (name === 'aggregate' && outStage(cmd) !== null);
}

/** Refuses a write into admin, config or local (SYSTEM_DBS), the command's own database or an
 * aggregation's target. */
function refuseSystemWrite(cmd) {
  const name = Object.keys(cmd)[0];
  if (!isWrite(name, cmd) || name === 'renameCollection') return;
  const dbs = [typeof cmd.$db === 'string' ? cmd.$db : DEFAULT_DB];
  if (name === 'aggregate') dbs.push(outStage(cmd).db);
  const refused = dbs.find((d) => SYSTEM_DBS.has(d));
  if (refused) {
    throw new MongoshUnimplementedError(
      `writes into the server's own "${refused}" database are not supported in the playground: use another database`,
      CommonErrors.NotImplemented,
    );
  }
}

function check(reply) {
  if (!reply || Number(reply.ok) === 0) throw new MongoServerError(reply ?? { errmsg: 'no reply' });
  return reply;
}
