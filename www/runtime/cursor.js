// Cursors as mongosh's: built lazily, the command runs on first read; then firstBatch and getMore.
// Everything is synchronous (the engine is in memory), so scripts written for mongosh — which
// awaits implicitly — run as written, and `for..of` as well as `for await` iterate.
import { addCustomInspect, markFromServer, asPrintable, shellApiType } from './format.js';
import { MongoCursorInUseError, MongoInvalidArgumentError, MongoshInvalidInputError, CommonErrors } from './errors.js';

const DISPLAY_BATCH = 20;

class BaseCursor {
  /** `owner` is the Collection or Database that made the cursor: its database runs the commands. */
  constructor(owner, collName) {
    this._owner = owner;
    this._shell = owner._shell;
    this._coll = collName;
    this._buffer = null; // the current batch (null until the command ran)
    this._pos = 0; // the next document of the batch to return
    this._id = null; // server cursor id (0 once exhausted)
    this._numReturned = 0; // documents received from the server so far
    this._transform = null;
    this._batchSize = undefined;
  }

  get _client() {
    return this._owner._client;
  }

  _ensure() {
    if (this._buffer !== null) return;
    // The batches' documents are marked as a command's as they are read (`addCustomInspect`).
    const reply = this._client.command(this._command(), true);
    const c = reply.cursor ?? {};
    this._buffer = c.firstBatch ?? [];
    this._pos = 0;
    this._numReturned += this._buffer.length;
    this._id = c.id;
  }

  _alive() {
    return this._id !== undefined && this._id !== null && Number(this._id) !== 0;
  }

  /** True when a document is buffered, after fetching batches as the Node driver does: a
   * getMore of the cursor's batchSize (1000 when it has none). */
  _more() {
    if (this._pos < this._buffer.length) return true;
    while (this._alive() && this._pos >= this._buffer.length) {
      const batchSize = this._getMoreBatchSize(this._batchSize || 1000);
      if (batchSize <= 0) {
        this.close();
        return false;
      }
      const reply = this._client.command({ getMore: this._id, collection: this._getMoreCollection(), batchSize }, true);
      const c = reply.cursor ?? {};
      this._buffer = c.nextBatch ?? [];
      this._pos = 0;
      this._numReturned += this._buffer.length;
      this._id = c.id;
    }
    return this._pos < this._buffer.length;
  }

  /** The batchSize of the next getMore. */
  _getMoreBatchSize(batchSize) {
    return batchSize;
  }

  _getMoreCollection() {
    return this._coll;
  }

  _rawNext() {
    this._ensure();
    if (!this._more()) return null;
    const doc = this._buffer[this._pos];
    this._buffer[this._pos++] = undefined;
    return addCustomInspect(doc);
  }

  _assertNotStarted() {
    if (this._buffer !== null) throw new MongoCursorInUseError('Cursor is already initialized');
  }

  hasNext() {
    this._ensure();
    return this._more();
  }

  next() {
    const doc = this._rawNext();
    return doc !== null && this._transform ? this._transform(doc) : doc;
  }

  tryNext() {
    return this.next();
  }

  toArray() {
    const out = [];
    this._ensure();
    while (this._more()) {
      const buf = this._buffer;
      for (let i = this._pos; i < buf.length; i++) {
        const doc = addCustomInspect(buf[i]);
        buf[i] = undefined;
        out.push(this._transform ? this._transform(doc) : doc);
      }
      this._pos = buf.length;
    }
    return this._transform ? out : markFromServer(out);
  }

  forEach(f) {
    for (let doc = this.next(); doc !== null; doc = this.next()) {
      if (f(doc) === false) break;
    }
  }

  map(f) {
    const g = this._transform;
    this._transform = g ? (doc) => f(g(doc)) : f;
    return this;
  }

  itcount() {
    let n = 0;
    while (this.next() !== null) n++;
    return n;
  }

  batchSize(size) {
    this._assertNotStarted();
    if (typeof size !== 'number') throw new MongoInvalidArgumentError('Operation "batchSize" requires an integer');
    this._batchSize = size;
    return this;
  }

  maxTimeMS() {
    return this;
  }

  pretty() {
    return this;
  }

  close() {
    if (this._alive()) {
      try {
        this._client.command({ killCursors: this._getMoreCollection(), cursors: [this._id] });
      } catch {
        // a cursor the engine does not know is closed already
      }
    }
    this._id = 0;
    this._buffer = [];
    this._pos = 0;
  }

  isClosed() {
    return this._buffer !== null && !this._alive();
  }

  isExhausted() {
    return this.isClosed() && this.objsLeftInBatch() === 0;
  }

  objsLeftInBatch() {
    return this._buffer ? this._buffer.length - this._pos : 0;
  }

  *[Symbol.iterator]() {
    for (let doc = this.next(); doc !== null; doc = this.next()) yield doc;
  }

  async *[Symbol.asyncIterator]() {
    for (let doc = this.next(); doc !== null; doc = this.next()) yield doc;
  }

  /** What printing a cursor shows: its next 20 documents (mongosh's "it" batch). */
  [asPrintable]() {
    const documents = [];
    for (let i = 0; i < DISPLAY_BATCH; i++) {
      const doc = this.next();
      if (doc === null) break;
      documents.push(doc);
    }
    return { cursorHasMore: this.hasNext(), documents };
  }
}

export class Cursor extends BaseCursor {
  constructor(owner, collName, filter, options = {}) {
    super(owner, collName);
    const { batchSize, ...rest } = options;
    this._spec = { filter: filter ?? {}, ...rest };
    if (batchSize !== undefined) this._batchSize = batchSize;
  }

  /** The driver's FindCursor: a getMore never asks past the cursor's limit; at the limit the
   * cursor is closed instead. */
  _getMoreBatchSize(batchSize) {
    const limit = this._spec.limit;
    if (this._numReturned && limit && limit > 0 && this._numReturned + batchSize > limit) return limit - this._numReturned;
    return batchSize;
  }

  get [shellApiType]() {
    return 'Cursor';
  }

  _command() {
    const s = this._spec;
    const cmd = { find: this._coll, filter: s.filter };
    if (s.sort !== undefined) cmd.sort = s.sort;
    if (s.projection !== undefined) cmd.projection = s.projection;
    if (s.hint !== undefined) cmd.hint = s.hint;
    if (s.skip !== undefined && s.skip !== 0) cmd.skip = s.skip;
    if (s.limit !== undefined && s.limit !== 0) {
      if (s.limit < 0) {
        cmd.limit = -s.limit;
        cmd.singleBatch = true;
      } else {
        cmd.limit = s.limit;
      }
    }
    if (typeof this._batchSize === 'number') {
      // The driver's makeFindCommand: a negative batchSize asks for one batch.
      if (this._batchSize < 0) {
        if (s.limit && Math.abs(this._batchSize) < Math.abs(s.limit)) cmd.limit = -this._batchSize;
        cmd.singleBatch = true;
      } else {
        cmd.batchSize = this._batchSize;
      }
    }
    if (s.collation !== undefined) cmd.collation = s.collation;
    if (s.min !== undefined) cmd.min = s.min;
    if (s.max !== undefined) cmd.max = s.max;
    if (s.returnKey !== undefined) cmd.returnKey = s.returnKey;
    if (s.showRecordId !== undefined) cmd.showRecordId = s.showRecordId;
    if (s.comment !== undefined) cmd.comment = s.comment;
    if (s.let !== undefined) cmd.let = s.let;
    return cmd;
  }

  _set(key, value) {
    this._assertNotStarted();
    this._spec[key] = value;
    return this;
  }

  sort(spec) {
    return this._set('sort', spec);
  }
  skip(n) {
    return this._set('skip', n);
  }
  limit(n) {
    return this._set('limit', n);
  }
  project(spec) {
    return this._set('projection', spec);
  }
  projection(spec) {
    return this._set('projection', spec);
  }
  hint(spec) {
    return this._set('hint', spec);
  }
  collation(spec) {
    return this._set('collation', spec);
  }
  min(spec) {
    return this._set('min', spec);
  }
  max(spec) {
    return this._set('max', spec);
  }
  comment(c) {
    return this._set('comment', c);
  }
  returnKey(v) {
    return this._set('returnKey', v);
  }
  showRecordId(v) {
    return this._set('showRecordId', v);
  }
  allowDiskUse() {
    return this;
  }
  readPref() {
    return this;
  }
  noCursorTimeout() {
    return this;
  }

  /** The `count` command over the cursor's filter, skip and limit (the driver's cursor.count(),
   * which mongosh's count() and size() both call). */
  count() {
    return this._count(true);
  }

  size() {
    return this._count(true);
  }

  toJSON() {
    throw new MongoshInvalidInputError('Cannot serialize a cursor to JSON. Did you mean to call .toArray() first?', CommonErrors.InvalidArgument);
  }

  allowPartialResults() {
    return this;
  }

  readConcern() {
    return this;
  }

  tailable() {
    return this;
  }

  _count(applySkipLimit) {
    const s = this._spec;
    const cmd = { count: this._coll, query: s.filter };
    if (applySkipLimit) {
      if (s.skip) cmd.skip = s.skip;
      if (s.limit) cmd.limit = Math.abs(s.limit);
    }
    if (s.hint !== undefined) cmd.hint = s.hint;
    if (s.collation !== undefined) cmd.collation = s.collation;
    return Number(this._client.command(cmd).n);
  }

  explain(verbosity = 'queryPlanner') {
    const reply = this._client.command({ explain: this._command(), verbosity: this._shell.explainVerbosity(verbosity) });
    return this._shell.explainOutput(reply);
  }
}

export class AggregationCursor extends BaseCursor {
  constructor(owner, collName, pipeline, options = {}) {
    super(owner, collName);
    this._pipeline = pipeline;
    this._options = options;
    if (options.batchSize !== undefined) this._batchSize = options.batchSize;
  }

  get [shellApiType]() {
    return 'AggregationCursor';
  }

  _command() {
    const { batchSize, explain, ...rest } = this._options;
    const cmd = { aggregate: this._coll ?? 1, pipeline: this._pipeline };
    Object.assign(cmd, rest);
    // The driver's AggregateOperation sends a batchSize only when it is not 0 and the pipeline
    // does not write.
    const writes = this._pipeline.some((stage) => stage && typeof stage === 'object' && ('$out' in stage || '$merge' in stage));
    cmd.cursor = this._batchSize && !writes ? { batchSize: this._batchSize } : {};
    return cmd;
  }

  _getMoreCollection() {
    return this._coll ?? '$cmd.aggregate';
  }

  explain(verbosity = 'queryPlanner') {
    const cmd = this._command();
    const reply = this._client.command({ explain: cmd, verbosity: this._shell.explainVerbosity(verbosity) });
    return this._shell.explainOutput(reply);
  }
}

export function checkCursorOption(name, value) {
  if (value !== undefined && typeof value !== 'number') {
    throw new MongoshInvalidInputError(`${name} must be a number`, CommonErrors.InvalidArgument);
  }
}
