// Bulk writes as the Node driver runs them (insertMany and bulkWrite): operations grouped into
// insert/update/delete commands — consecutive ones of a kind when ordered, all of a kind when
// unordered (inserts, then updates, then deletes) — split at 100 000 statements or 16 MiB,
// results merged, and MongoBulkWriteError thrown when a statement failed.
import { BSON, toBytes } from './bson.js';
import { MongoBulkWriteError, MongoInvalidArgumentError, WriteError } from './errors.js';
import { DriverBulkWriteResult } from './results.js';

const MAX_WRITE_BATCH = 100000;
const MAX_BATCH_BYTES = 16 * 1024 * 1024;

export function hasAtomicOperators(doc) {
  if (Array.isArray(doc)) return doc.reduce((ok, stage) => ok || hasAtomicOperators(stage), false);
  const keys = Object.keys(doc ?? {});
  return keys.length > 0 && keys[0][0] === '$';
}

/** Adds `_id` to a document that lacks one (null counts as missing), as the driver does. */
export function withId(doc) {
  if (doc._id == null) doc._id = new BSON.ObjectId();
  return doc;
}

export function updateStatement(filter, update, options, multi) {
  const op = { q: filter, u: update };
  if (typeof options.upsert === 'boolean') op.upsert = options.upsert;
  if (multi) op.multi = true;
  if (options.arrayFilters) op.arrayFilters = options.arrayFilters;
  if (options.collation) op.collation = options.collation;
  return op;
}

export function deleteStatement(filter, options, limit) {
  const op = { q: filter, limit };
  if (options.collation) op.collation = options.collation;
  return op;
}

/** One bulkWrite model -> { type, stmt, id? } (the driver's validation and messages). */
export function fromModel(model) {
  if (model === null || typeof model !== 'object') {
    throw new MongoInvalidArgumentError('Operation must be an object with an operation key');
  }
  if ('insertOne' in model) {
    const m = model.insertOne;
    const document = m && m.document == null ? m : m.document;
    const doc = withId({ ...document });
    return { type: 'insert', stmt: doc, id: doc._id };
  }
  if ('updateOne' in model || 'updateMany' in model) {
    const multi = 'updateMany' in model;
    const m = multi ? model.updateMany : model.updateOne;
    if (!hasAtomicOperators(m.update)) throw new MongoInvalidArgumentError('Update document requires atomic operators');
    return { type: 'update', stmt: updateStatement(m.filter, m.update, m, multi) };
  }
  if ('replaceOne' in model) {
    const m = model.replaceOne;
    if (hasAtomicOperators(m.replacement)) throw new MongoInvalidArgumentError('Replacement document must not contain atomic operators');
    return { type: 'update', stmt: updateStatement(m.filter, m.replacement, m, false) };
  }
  if ('deleteOne' in model) return { type: 'delete', stmt: deleteStatement(model.deleteOne.filter, model.deleteOne, 1) };
  if ('deleteMany' in model) return { type: 'delete', stmt: deleteStatement(model.deleteMany.filter, model.deleteMany, 0) };
  throw new MongoInvalidArgumentError('Invalid BulkWriteOperation type: ' + Object.keys(model)[0]);
}

function batches(ops, ordered) {
  const out = [];
  const open = {};
  let current = null;
  ops.forEach((op, index) => {
    const size = op.end - op.start;
    let batch = ordered ? current : open[op.type];
    if (batch && (batch.type !== op.type || batch.ops.length + 1 > MAX_WRITE_BATCH || (batch.ops.length > 0 && batch.bytes + size > MAX_BATCH_BYTES))) {
      out.push(batch);
      batch = null;
    }
    if (!batch) batch = { type: op.type, ops: [], indexes: [], bytes: 0 };
    batch.ops.push(op);
    batch.indexes.push(index);
    batch.bytes += size;
    if (ordered) current = batch;
    else open[op.type] = batch;
  });
  if (ordered) {
    if (current) out.push(current);
    return out;
  }
  // unordered: the batches that filled up, in order, then the open ones: inserts, updates, deletes
  return [...out, ...['insert', 'update', 'delete'].map((t) => open[t]).filter(Boolean)];
}

const KEYS = { insert: 'documents', update: 'updates', delete: 'deletes' };
const utf8 = new TextEncoder();
const SERIALIZE = { checkKeys: false, ignoreUndefined: false, serializeFunctions: false };

/** Every statement serialized once, back to back in one growing buffer: `op.start`/`op.end` mark
 * its bytes. (One small array per statement made insertMany's cost grow with the batch: V8 tracks
 * every ArrayBuffer, and 100 000 of them kept its collector busy.) */
function serializeAll(ops) {
  let arena = new Uint8Array(Math.max(1024, ops.length * 64));
  let at = 0;
  // One options object for every statement (a fresh one per statement was a million objects
  // for the collector in an insertMany of a million documents).
  const options = { ...SERIALIZE, index: 0 };
  for (const op of ops) {
    for (;;) {
      try {
        options.index = at;
        op.end = BSON.serializeWithBufferAndIndex(op.stmt, arena, options) + 1;
        break;
      } catch (e) {
        if (!(e instanceof RangeError)) throw e;
        const grown = new Uint8Array(Math.max(arena.length * 2, at + BSON.calculateObjectSize(op.stmt, SERIALIZE) + 1024));
        grown.set(arena.subarray(0, at));
        arena = grown;
      }
    }
    op.start = at;
    at = op.end;
  }
  return arena;
}

function writeInt32(out, at, n) {
  out[at] = n & 0xff;
  out[at + 1] = (n >> 8) & 0xff;
  out[at + 2] = (n >> 16) & 0xff;
  out[at + 3] = (n >>> 24) & 0xff;
}

/** `{ <type>: coll, <statements>: [...], ordered, ...extra }` as BSON, from statements already
 * serialized once into `arena` (so their sizes are known and nothing is encoded twice): one
 * array for the whole command. */
function commandBytes(type, collName, ops, arena, ordered, extra) {
  const name = utf8.encode(collName);
  const typeKey = utf8.encode(type);
  const listKey = utf8.encode(KEYS[type]);
  let extraBytes = null;
  if (Object.keys(extra).length > 0) {
    const e = toBytes(extra);
    extraBytes = e.subarray(4, e.length - 1);
  }
  let list = 4 + 1;
  for (let i = 0; i < ops.length; i++) list += 1 + String(i).length + 1 + (ops[i].end - ops[i].start);
  const size = 4 + (1 + typeKey.length + 1 + 4 + name.length + 1) + (1 + listKey.length + 1 + list) + (1 + 8 + 1) + (extraBytes ? extraBytes.length : 0) + 1;
  const out = new Uint8Array(size);
  writeInt32(out, 0, size);
  let at = 4;
  const key = (type, k) => {
    out[at++] = type;
    out.set(k, at);
    at += k.length;
    out[at++] = 0;
  };
  key(0x02, typeKey);
  writeInt32(out, at, name.length + 1);
  out.set(name, at + 4);
  at += 4 + name.length + 1;
  key(0x04, listKey);
  writeInt32(out, at, list);
  at += 4;
  for (let i = 0; i < ops.length; i++) {
    out[at++] = 0x03;
    const k = String(i);
    for (let c = 0; c < k.length; c++) out[at++] = k.charCodeAt(c);
    out[at++] = 0;
    out.set(arena.subarray(ops[i].start, ops[i].end), at);
    at += ops[i].end - ops[i].start;
  }
  out[at++] = 0;
  key(0x08, utf8.encode('ordered'));
  out[at++] = ordered ? 1 : 0;
  if (extraBytes) {
    out.set(extraBytes, at);
    at += extraBytes.length;
  }
  out[at] = 0;
  return out;
}

/** Writes `i`'s decimal digits (an array element's name) at `at`; returns where they end. */
function writeIndex(out, at, i) {
  let digits = 1;
  for (let p = 10; p <= i; p *= 10) digits++;
  for (let d = digits - 1; d >= 0; d--) {
    out[at + d] = 0x30 + (i % 10);
    i = Math.floor(i / 10);
  }
  return at + digits;
}

/** The commands of a bulk write whose statements are all of one kind (an insertMany always),
 * split as `batches` splits them, each statement serialized once straight into its command's
 * bytes: no arena of statements copied again into the commands (an insertMany of a million
 * documents allocated, grew and copied a 200 MB arena, and the collector ran after every large
 * allocation). Every command is built before the first is sent, as before, so a statement that
 * does not serialize fails the whole write before anything is written. Returns `[{ batch, bytes }]`,
 * each batch `{ type, all, first, count }` (its statements are `all[first]` .. `all[first + count - 1]`). */
function oneKindCommands(type, collName, ops, ordered, extra) {
  const name = utf8.encode(collName);
  const typeKey = utf8.encode(type);
  const listKey = utf8.encode(KEYS[type]);
  const orderedKey = utf8.encode('ordered');
  let extraBytes = null;
  if (Object.keys(extra).length > 0) {
    const e = toBytes(extra);
    extraBytes = e.subarray(4, e.length - 1);
  }
  let buf = new Uint8Array(Math.min(MAX_BATCH_BYTES + 65536, 1024 + ops.length * 96));
  let at = 0;
  const room = (need) => {
    if (at + need <= buf.length) return;
    const grown = new Uint8Array(Math.max(buf.length * 2, at + need + 1024));
    grown.set(buf.subarray(0, at));
    buf = grown;
  };
  const key = (t, k) => {
    room(k.length + 2);
    buf[at++] = t;
    buf.set(k, at);
    at += k.length;
    buf[at++] = 0;
  };
  const options = { ...SERIALIZE, index: 0 };
  const out = [];
  let i = 0;
  while (i < ops.length) {
    const first = i;
    at = 4;
    key(0x02, typeKey);
    room(4 + name.length + 1);
    writeInt32(buf, at, name.length + 1);
    buf.set(name, at + 4);
    at += 4 + name.length;
    buf[at++] = 0;
    key(0x04, listKey);
    const list = at;
    at += 4;
    let bytes = 0;
    for (; i < ops.length && i - first < MAX_WRITE_BATCH; i++) {
      const element = at;
      room(8);
      buf[at++] = 0x03;
      at = writeIndex(buf, at, i - first);
      buf[at++] = 0;
      let end;
      for (;;) {
        try {
          options.index = at;
          end = BSON.serializeWithBufferAndIndex(ops[i].stmt, buf, options) + 1;
          break;
        } catch (e) {
          if (!(e instanceof RangeError)) throw e;
          room(BSON.calculateObjectSize(ops[i].stmt, SERIALIZE) + 1024);
        }
      }
      const size = end - at;
      if (i > first && bytes + size > MAX_BATCH_BYTES) {
        at = element;
        break;
      }
      bytes += size;
      at = end;
    }
    room(1 + 1 + orderedKey.length + 1 + 1 + (extraBytes ? extraBytes.length : 0) + 1);
    buf[at++] = 0;
    writeInt32(buf, list, at - list);
    key(0x08, orderedKey);
    buf[at++] = ordered ? 1 : 0;
    if (extraBytes) {
      buf.set(extraBytes, at);
      at += extraBytes.length;
    }
    buf[at++] = 0;
    writeInt32(buf, 0, at);
    out.push({ batch: { type, all: ops, first, count: i - first }, bytes: buf.slice(0, at) });
  }
  return out;
}

/** The index in the whole bulk write of statement `k` of `batch`. */
function indexIn(batch, k) {
  return batch.indexes ? batch.indexes[k] : batch.first + k;
}

/** Statement `k` of `batch`. */
function opIn(batch, k) {
  if (batch.ops) return batch.ops[k];
  return k >= 0 && k < batch.count ? batch.all[batch.first + k] : undefined;
}

/** Runs the operations; returns the driver's BulkWriteResult or throws MongoBulkWriteError. */
export function executeBulk(client, collName, ops, options = {}) {
  const ordered = options.ordered !== false;
  if (ops.length === 0) throw new MongoInvalidArgumentError('Invalid BulkOperation, Batch cannot be empty');
  const bulk = { ok: 1, writeErrors: [], writeConcernErrors: [], insertedIds: [], nInserted: 0, nUpserted: 0, nMatched: 0, nModified: 0, nRemoved: 0, upserted: [] };
  const extra = {};
  if (options.bypassDocumentValidation !== undefined) extra.bypassDocumentValidation = options.bypassDocumentValidation;
  const extraOf = (type) => (type !== 'insert' && options.let !== undefined ? { ...extra, let: options.let } : extra);
  let commands;
  if (ops.every((op) => op.type === ops[0].type)) {
    commands = oneKindCommands(ops[0].type, collName, ops, ordered, extraOf(ops[0].type));
    // An insert's documents are stored as they come: room for all of them at once (an update's
    // or a delete's statements are not kept, so theirs would be room for nothing).
    if (ops[0].type === 'insert' && commands.length > 1) client.reserve(commands.reduce((n, c) => n + c.bytes.length, 0));
  } else {
    const arena = serializeAll(ops);
    commands = batches(ops, ordered).map((batch) => ({ batch, bytes: null, arena }));
  }
  for (const command of commands) {
    const { batch } = command;
    const bytes = command.bytes ?? commandBytes(batch.type, collName, batch.ops, command.arena, ordered, extraOf(batch.type));
    const reply = client.commandBytes({ [batch.type]: collName }, bytes);
    const n = Number(reply.n ?? 0);
    const upserted = Array.isArray(reply.upserted) ? reply.upserted : [];
    if (batch.type === 'insert') bulk.nInserted += n;
    if (batch.type === 'update') {
      bulk.nUpserted += upserted.length;
      bulk.nMatched += n - upserted.length;
      bulk.nModified += Number(reply.nModified ?? 0);
      for (const u of upserted) bulk.upserted.push({ index: indexIn(batch, u.index), _id: u._id });
    }
    if (batch.type === 'delete') bulk.nRemoved += n;
    const errors = Array.isArray(reply.writeErrors) ? reply.writeErrors : [];
    for (const e of errors) {
      bulk.writeErrors.push(new WriteError({ index: indexIn(batch, e.index), code: e.code, errmsg: e.errmsg, errInfo: e.errInfo, op: opIn(batch, e.index)?.stmt }));
    }
    if (ordered && errors.length > 0) break;
  }
  // The driver's list of inserted ids ([{ index, _id }]) is made only when an error hands the
  // result to the script (MongoBulkWriteError.result); a successful write's result is read only
  // for its id map, made from the statements (a million objects less for an insertMany of a
  // million documents).
  if (bulk.writeErrors.length > 0) {
    ops.forEach((op, index) => {
      if (op.type === 'insert') bulk.insertedIds.push({ index, _id: op.id });
    });
  }
  const result = new DriverBulkWriteResult(bulk, ordered, ops);
  if (bulk.writeErrors.length > 0) {
    const first = bulk.writeErrors[0];
    throw new MongoBulkWriteError({ message: first.errmsg ? first.errmsg : 'write operation failed', code: first.code, writeErrors: bulk.writeErrors }, result);
  }
  return result;
}
