// The wire: a command document goes to the engine as BSON bytes, the reply comes back as BSON and
// is read with the driver's options. A reply with `ok: 0` throws MongoServerError, as the driver
// does. The client also keeps what a run reports besides its output: the summed cost counters and
// the log of successful write commands (the UI's export replays them).
import { BSON, toBytes, fromBytes } from './bson.js';
import { MongoServerError } from './errors.js';

const WRITE_COMMANDS = new Set([
  'insert', 'update', 'delete', 'findAndModify', 'create', 'createIndexes', 'drop', 'dropIndexes',
  'dropDatabase', 'renameCollection', 'collMod',
]);
const STATEMENTS = { insert: 'documents', update: 'updates', delete: 'deletes' };

export class Client {
  constructor(engine) {
    this.engine = engine;
    this.resetRun();
  }

  /** Clears the per-run cost and write log. */
  resetRun() {
    this.cost = null;
    this.writes = [];
  }

  /** Sends one command and returns the reply document, whatever its `ok`. */
  raw(cmd) {
    const reply = fromBytes(this.engine.command(toBytes(cmd)));
    this.addCost(this.engine.lastCost());
    return reply;
  }

  /** Sends one command; throws MongoServerError for `ok: 0`; logs successful writes. */
  command(cmd) {
    const reply = this.raw(cmd);
    if (!reply || reply.ok === 0 || reply.ok === false || (reply.ok !== undefined && Number(reply.ok) === 0)) {
      throw new MongoServerError(reply ?? { errmsg: 'no reply' });
    }
    this.logWrite(cmd, reply);
    return reply;
  }

  addCost(cost) {
    if (!cost || typeof cost !== 'object') return;
    const c = (this.cost ??= { docsExamined: 0, keysExamined: 0, docsReturned: 0, bytesRead: 0, bytesWritten: 0 });
    for (const k of Object.keys(c)) c[k] += Number(cost[k] ?? 0);
  }

  logWrite(cmd, reply) {
    const name = Object.keys(cmd)[0];
    if (!WRITE_COMMANDS.has(name)) return;
    let logged = cmd;
    const key = STATEMENTS[name];
    const errors = Array.isArray(reply.writeErrors) ? reply.writeErrors : [];
    if (key && errors.length > 0) {
      const failed = new Set(errors.map((e) => e.index));
      const ordered = cmd.ordered !== false;
      const first = Math.min(...failed);
      const kept = cmd[key].filter((_, i) => (ordered ? i < first : !failed.has(i)));
      if (kept.length === 0) return;
      logged = { ...cmd, [key]: kept };
    }
    const collection = typeof cmd[name] === 'string' ? cmd[name] : null;
    this.writes.push({ collection, command: BSON.EJSON.stringify(logged, { relaxed: false }) });
  }
}
