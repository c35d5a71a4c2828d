// Result objects as mongosh 2.x returns and prints them (its result.ts): printed as plain objects,
// field order as mongosh's constructors set them.
import { asPrintable, shellApiType } from './format.js';

class ShellValue {
  [asPrintable]() {
    return { ...this };
  }
}

function typed(cls, name) {
  Object.defineProperty(cls.prototype, shellApiType, { get: () => name, configurable: true });
  return cls;
}

export const InsertOneResult = typed(class InsertOneResult extends ShellValue {
  constructor(acknowledged, insertedId) {
    super();
    this.acknowledged = acknowledged;
    this.insertedId = insertedId;
  }
}, 'InsertOneResult');

export const InsertManyResult = typed(class InsertManyResult extends ShellValue {
  constructor(acknowledged, insertedIds) {
    super();
    this.acknowledged = acknowledged;
    this.insertedIds = insertedIds;
  }
}, 'InsertManyResult');

export const UpdateResult = typed(class UpdateResult extends ShellValue {
  constructor(acknowledged, matchedCount, modifiedCount, upsertedCount, insertedId) {
    super();
    this.acknowledged = acknowledged;
    this.insertedId = insertedId;
    this.matchedCount = matchedCount;
    this.modifiedCount = modifiedCount;
    this.upsertedCount = upsertedCount;
  }
}, 'UpdateResult');

export const DeleteResult = typed(class DeleteResult extends ShellValue {
  constructor(acknowledged, deletedCount) {
    super();
    this.acknowledged = acknowledged;
    this.deletedCount = deletedCount;
  }
}, 'DeleteResult');

export const BulkWriteResult = typed(class BulkWriteResult extends ShellValue {
  constructor(acknowledged, insertedCount, insertedIds, matchedCount, modifiedCount, deletedCount, upsertedCount, upsertedIds) {
    super();
    this.acknowledged = acknowledged;
    this.insertedCount = insertedCount;
    this.insertedIds = insertedIds;
    this.matchedCount = matchedCount;
    this.modifiedCount = modifiedCount;
    this.deletedCount = deletedCount;
    this.upsertedCount = upsertedCount;
    this.upsertedIds = upsertedIds;
  }
}, 'BulkWriteResult');

/** The driver's BulkWriteResult (what MongoBulkWriteError.result holds; printed by that name). */
export const DriverBulkWriteResult = class BulkWriteResult {
  /** `ops`: the statements (`{ type, id }`), for the id map of a write without errors (whose
   * `bulk.insertedIds` list is left empty: see executeBulk). */
  constructor(bulk, ordered, ops = null) {
    Object.defineProperty(this, 'result', { value: bulk, enumerable: false });
    this.insertedCount = bulk.nInserted;
    this.matchedCount = bulk.nMatched;
    this.modifiedCount = bulk.nModified;
    this.deletedCount = bulk.nRemoved;
    this.upsertedCount = bulk.upserted.length;
    this.upsertedIds = idMap(bulk.upserted);
    this.insertedIds = ops && bulk.writeErrors.length === 0 ? insertedIdMap(ops) : idMap(successfulInserts(bulk, ordered));
  }
  get ok() {
    return this.result.ok;
  }
  getWriteErrors() {
    return this.result.writeErrors;
  }
  hasWriteErrors() {
    return this.result.writeErrors.length > 0;
  }
};

function insertedIdMap(ops) {
  const out = {};
  for (let i = 0; i < ops.length; i++) if (ops[i].type === 'insert') out[i] = ops[i].id;
  return out;
}

function idMap(list) {
  const out = {};
  for (const { index, _id } of list) out[index] = _id;
  return out;
}

function successfulInserts(bulk, ordered) {
  if (bulk.writeErrors.length === 0) return bulk.insertedIds;
  if (ordered) return bulk.insertedIds.slice(0, bulk.writeErrors[0].index);
  const failed = new Set(bulk.writeErrors.map((e) => e.index));
  return bulk.insertedIds.filter(({ index }) => !failed.has(index));
}
