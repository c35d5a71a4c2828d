// mongosh's Session (`db.getMongo().startSession()`) over the engine, which runs as the one
// member of a replica set: multi-document transactions as the Node driver drives them. Every
// command of a session carries `lsid`; a transaction's carry `txnNumber` and `autocommit: false`,
// its first also `startTransaction: true` (and the transaction's readConcern), as the driver sends
// them. Writes made in a transaction reach the run's write log only when it commits.
import { BSON } from './bson.js';
import { addCustomInspect, shellApiType } from './format.js';
import { Database, assertDbName } from './database.js';
import { MongoTransactionError } from './errors.js';

const { Long, UUID } = BSON;

// The driver's transaction states (sessions.ts, TxnState).
const NONE = 'NO_TRANSACTION';
const STARTING = 'STARTING_TRANSACTION';
const IN_PROGRESS = 'TRANSACTION_IN_PROGRESS';
const COMMITTED = 'TRANSACTION_COMMITTED';
const COMMITTED_EMPTY = 'TRANSACTION_COMMITTED_EMPTY';
const ABORTED = 'TRANSACTION_ABORTED';

/** How long withTransaction retries a transient failure (the driver's limit). */
const RETRY_MS = 120_000;

export class ClientSession {
  constructor(shell, options = {}) {
    this._shell = shell;
    this._options = options;
    this._id = { id: new UUID() };
    this._txnNumber = 0;
    this._state = NONE;
    this._txnOptions = {};
    this._ended = false;
    this._databases = new Map();
    /** Writes of the open transaction, logged when it commits. */
    this.pendingWrites = [];
  }

  get [shellApiType]() {
    return 'Session';
  }

  getSessionId() {
    return addCustomInspect({ ...this._id });
  }

  getOptions() {
    return this._options;
  }

  hasEnded() {
    return this._ended;
  }

  inTransaction() {
    return this._state === STARTING || this._state === IN_PROGRESS;
  }

  /** The database `name` seen through this session: its commands belong to the session. */
  getDatabase(name) {
    assertDbName(name, 'Session.getDatabase');
    let db = this._databases.get(name);
    if (!db) {
      db = new Database(this._shell, name, this);
      this._databases.set(name, db);
    }
    return db;
  }

  /** The session's fields for one command (called as it is sent). */
  fields(cmd) {
    const out = { lsid: this._id };
    const retryCommit = this._state === COMMITTED && 'commitTransaction' in cmd;
    if (!this.inTransaction() && !retryCommit) return out;
    out.txnNumber = Long.fromNumber(this._txnNumber);
    if (this._state === STARTING) {
      out.startTransaction = true;
      const readConcern = this._txnOptions.readConcern ?? this._options.defaultTransactionOptions?.readConcern;
      if (readConcern && !('commitTransaction' in cmd) && !('abortTransaction' in cmd)) out.readConcern = readConcern;
      this._state = IN_PROGRESS;
    }
    out.autocommit = false;
    return out;
  }

  startTransaction(options = {}) {
    this._assertNotEnded();
    if (this.inTransaction()) throw new MongoTransactionError('Transaction already in progress');
    this._txnNumber += 1;
    this._txnOptions = options ?? {};
    this._state = STARTING;
    this.pendingWrites = [];
  }

  commitTransaction() {
    this._assertNotEnded();
    if (this._state === NONE) throw new MongoTransactionError('No transaction started');
    if (this._state === ABORTED) throw new MongoTransactionError('Cannot call commitTransaction after calling abortTransaction');
    if (this._state === STARTING || this._state === COMMITTED_EMPTY) {
      // Nothing was sent: nothing to commit.
      this._state = COMMITTED_EMPTY;
      return addCustomInspect({ ok: 1 });
    }
    let reply;
    try {
      reply = this._admin().command({ commitTransaction: 1, ...this._writeConcern() });
      this._shell.client.writes.push(...this.pendingWrites);
    } finally {
      // As the driver: committed (or failed to) either way; the transaction is over.
      this._state = COMMITTED;
      this.pendingWrites = [];
    }
    return addCustomInspect(reply);
  }

  abortTransaction() {
    this._assertNotEnded();
    if (this._state === NONE) throw new MongoTransactionError('No transaction started');
    if (this._state === COMMITTED || this._state === COMMITTED_EMPTY) {
      throw new MongoTransactionError('Cannot call abortTransaction after calling commitTransaction');
    }
    if (this._state === ABORTED) throw new MongoTransactionError('Cannot call abortTransaction twice');
    if (this._state === IN_PROGRESS) {
      // The driver ignores the server's answer (the transaction may already be aborted).
      this._admin().raw({ abortTransaction: 1, ...this._writeConcern() });
    }
    this._state = ABORTED;
    this.pendingWrites = [];
    return addCustomInspect({ ok: 1 });
  }

  /** Runs `fn(session)` in a transaction and commits it, retrying the whole transaction on a
   * TransientTransactionError and the commit on UnknownTransactionCommitResult (the driver's
   * convenient transaction API), within its 120 s. Returns what `fn` returned. Synchronous for a
   * synchronous `fn` (every shell method is); an async `fn` gives a promise, as in mongosh. */
  withTransaction(fn, options = {}) {
    const start = Date.now();
    const transient = (e) => e?.hasErrorLabel?.('TransientTransactionError') && Date.now() - start < RETRY_MS;
    const failed = (e) => {
      if (this.inTransaction()) this.abortTransaction();
      return transient(e);
    };
    const finish = (result) => {
      if (!this.inTransaction()) return { result }; // fn committed or aborted it itself
      try {
        this.commitTransaction();
        return { result };
      } catch (e) {
        if (transient(e)) return null;
        throw e;
      }
    };
    const attempt = () => {
      for (;;) {
        this.startTransaction(options);
        let result;
        try {
          result = fn(this);
        } catch (e) {
          if (failed(e)) continue;
          throw e;
        }
        if (result && typeof result.then === 'function') {
          return result.then(
            (value) => {
              const done = finish(value);
              return done ? done.result : attempt();
            },
            (e) => {
              if (failed(e)) return attempt();
              throw e;
            },
          );
        }
        const done = finish(result);
        if (done) return done.result;
      }
    };
    return attempt();
  }

  endSession() {
    if (this._ended) return;
    if (this.inTransaction()) this.abortTransaction();
    this._shell.client.raw({ endSessions: [this._id] });
    this._ended = true;
  }

  advanceOperationTime() {}

  advanceClusterTime() {}

  _admin() {
    return this._shell.client.forSession('admin', this);
  }

  _writeConcern() {
    const wc = this._txnOptions.writeConcern ?? this._options.defaultTransactionOptions?.writeConcern;
    return wc ? { writeConcern: wc } : {};
  }

  _assertNotEnded() {
    if (this._ended) throw new MongoTransactionError('Cannot use a session that has ended');
  }
}
