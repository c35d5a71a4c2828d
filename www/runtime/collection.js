// db.<collection>: mongosh 2.x's Collection methods on top of the commands the Node driver sends.
import { addCustomInspect, asPrintable, shellApiType } from './format.js';
import { Cursor, AggregationCursor } from './cursor.js';
import { InsertOneResult, InsertManyResult, UpdateResult, DeleteResult, BulkWriteResult } from './results.js';
import { executeBulk, fromModel, hasAtomicOperators, withId, updateStatement, deleteStatement } from './bulk.js';
import {
  MongoServerError, MongoInvalidArgumentError, MongoshInvalidInputError, MongoshRuntimeError, CommonErrors, assertArgsDefinedType,
} from './errors.js';

export function isValidCollectionName(name) {
  return typeof name === 'string' && name.length > 0 && !/[\x00"$*<>?|]/.test(name);
}

/** Update results from an update command's reply (the driver's UpdateResult -> mongosh's). */
function updateResult(reply) {
  const upserted = Array.isArray(reply.upserted) ? reply.upserted : [];
  const n = Number(reply.n ?? 0);
  return new UpdateResult(true, n - upserted.length, Number(reply.nModified ?? 0), upserted.length, upserted[0]?._id ?? null);
}

/** A single-statement write: the driver throws the first write error as MongoServerError. */
function checkWriteErrors(reply) {
  if (Array.isArray(reply.writeErrors) && reply.writeErrors.length > 0) throw new MongoServerError(reply.writeErrors[0]);
  return reply;
}

function processFindAndModifyOptions(options) {
  const o = { ...options };
  if ('returnDocument' in o) {
    if (o.returnDocument !== 'after' && o.returnDocument !== 'before') {
      throw new MongoshInvalidInputError("returnDocument needs to be either 'before' or 'after'", CommonErrors.InvalidArgument);
    }
  } else if ('returnOriginal' in o) {
    o.returnDocument = o.returnOriginal ? 'before' : 'after';
  } else if ('returnNewDocument' in o) {
    o.returnDocument = o.returnNewDocument ? 'after' : 'before';
  } else if ('new' in o) {
    // findAndModify's `new` (mongosh reads it last, after the driver's own options).
    o.returnDocument = o.new ? 'after' : 'before';
  } else {
    o.returnDocument = 'before';
  }
  delete o.returnOriginal;
  delete o.returnNewDocument;
  delete o.new;
  return o;
}

export class Collection {
  constructor(shell, database, name) {
    this._shell = shell;
    this._database = database;
    this._name = name;
    return new Proxy(this, {
      get(target, prop, receiver) {
        if (prop in target) return Reflect.get(target, prop, receiver);
        if (typeof prop !== 'string' || prop.startsWith('_') || prop === 'then' || !isValidCollectionName(prop)) return undefined;
        return database.getCollection(`${name}.${prop}`);
      },
    });
  }

  get _client() {
    return this._database._client;
  }

  get [shellApiType]() {
    return 'Collection';
  }

  [asPrintable]() {
    return `${this._database.getName()}.${this._name}`;
  }

  toString() {
    return `${this._database.getName()}.${this._name}`;
  }

  getName() {
    return this._name;
  }

  getFullName() {
    return `${this._database.getName()}.${this._name}`;
  }

  getDB() {
    return this._database;
  }

  // ---- reads ----------------------------------------------------------------------------------

  find(query, projection, options = {}) {
    const opts = { ...options };
    if (projection) opts.projection = projection;
    return new Cursor(this, this._name, query, opts);
  }

  findOne(query = {}, projection, options = {}) {
    const opts = { ...options };
    if (projection) opts.projection = projection;
    return new Cursor(this, this._name, query, opts).limit(1).next();
  }

  aggregate(...args) {
    let pipeline;
    let options;
    if (args.length === 0 || Array.isArray(args[0])) {
      pipeline = args[0] || [];
      options = args[1] || {};
    } else {
      pipeline = args;
      options = {};
    }
    const { explain, ...aggOptions } = options;
    const cursor = new AggregationCursor(this, this._name, pipeline, aggOptions);
    if (explain) return cursor.explain(explain === true ? 'queryPlanner' : explain);
    if (pipeline.some((stage) => stage && typeof stage === 'object' && ('$out' in stage || '$merge' in stage))) cursor.hasNext();
    return cursor;
  }

  countDocuments(query, options = {}) {
    const pipeline = [{ $match: query ?? {} }];
    if (typeof options.skip === 'number') pipeline.push({ $skip: options.skip });
    if (typeof options.limit === 'number') pipeline.push({ $limit: options.limit });
    pipeline.push({ $group: { _id: 1, n: { $sum: 1 } } });
    const { skip, limit, ...rest } = options;
    const docs = new AggregationCursor(this, this._name, pipeline, rest).toArray();
    return docs[0]?.n ?? 0;
  }

  estimatedDocumentCount(options = {}) {
    const cmd = { count: this._name };
    if (options.maxTimeMS !== undefined) cmd.maxTimeMS = options.maxTimeMS;
    return Number(this._client.command(cmd).n);
  }

  count(query = {}, options = {}) {
    this._shell.deprecation('Collection.count() is deprecated. Use countDocuments or estimatedDocumentCount.');
    return Number(this._client.command({ count: this._name, query, ...options }).n);
  }

  distinct(field, query, options = {}) {
    const cmd = { distinct: this._name, key: field };
    if (query !== undefined) cmd.query = query;
    Object.assign(cmd, options);
    return addCustomInspect(this._client.command(cmd).values);
  }

  // ---- writes ---------------------------------------------------------------------------------

  insertOne(doc, options = {}) {
    assertArgsDefinedType([doc], [true], 'Collection.insertOne');
    const d = withId({ ...doc });
    const cmd = { insert: this._name, documents: [d], ordered: true };
    if (options.bypassDocumentValidation !== undefined) cmd.bypassDocumentValidation = options.bypassDocumentValidation;
    checkWriteErrors(this._client.command(cmd));
    return new InsertOneResult(true, d._id);
  }

  insertMany(docs, options = {}) {
    assertArgsDefinedType([docs], [true], 'Collection.insertMany');
    if (!Array.isArray(docs)) throw new MongoInvalidArgumentError('Argument "docs" must be an array of documents');
    if (docs.some((d) => d == null)) {
      throw new MongoInvalidArgumentError('Collection.insertMany() cannot be called with an array that has null/undefined values');
    }
    const ops = docs.map((doc) => {
      // A plain object that has its _id serializes as its copy would: it is not copied (a copy
      // per document was most of the collector's work in an insertMany of a million documents).
      const d = doc._id != null && Object.getPrototypeOf(doc) === Object.prototype ? doc : withId({ ...doc });
      return { type: 'insert', stmt: d, id: d._id, start: 0, end: 0 };
    });
    const res = executeBulk(this._client, this._name, ops, options);
    return new InsertManyResult(true, addCustomInspect(res.insertedIds));
  }

  insert(docs, options = {}) {
    this._shell.deprecation('Collection.insert() is deprecated. Use insertOne, insertMany, or bulkWrite.');
    return this.insertMany(Array.isArray(docs) ? docs : [docs], options);
  }

  bulkWrite(operations, options = {}) {
    assertArgsDefinedType([operations], [true], 'Collection.bulkWrite');
    if (!Array.isArray(operations)) throw new MongoInvalidArgumentError('Argument "operations" must be an array of documents');
    const res = executeBulk(this._client, this._name, operations.map(fromModel), options);
    return new BulkWriteResult(
      true, res.insertedCount, addCustomInspect(res.insertedIds), res.matchedCount, res.modifiedCount,
      res.deletedCount, res.upsertedCount, addCustomInspect(res.upsertedIds),
    );
  }

  _update(filter, update, options, multi, fnName) {
    assertArgsDefinedType([filter], [true], fnName);
    if (!hasAtomicOperators(update)) throw new MongoInvalidArgumentError('Update document requires atomic operators');
    return this._runUpdate(updateStatement(filter, update, options, multi), options);
  }

  _runUpdate(stmt, options) {
    const cmd = { update: this._name, updates: [stmt], ordered: true };
    if (options.bypassDocumentValidation !== undefined) cmd.bypassDocumentValidation = options.bypassDocumentValidation;
    if (options.let !== undefined) cmd.let = options.let;
    if (options.explain) return this._explainWrite(cmd, options.explain);
    return updateResult(checkWriteErrors(this._client.command(cmd)));
  }

  updateOne(filter, update, options = {}) {
    return this._update(filter, update, options, false, 'Collection.updateOne');
  }

  updateMany(filter, update, options = {}) {
    return this._update(filter, update, options, true, 'Collection.updateMany');
  }

  replaceOne(filter, replacement, options = {}) {
    assertArgsDefinedType([filter], [true], 'Collection.replaceOne');
    if (hasAtomicOperators(replacement)) throw new MongoInvalidArgumentError('Replacement document must not contain atomic operators');
    return this._runUpdate(updateStatement(filter, replacement, options, false), options);
  }

  update(filter, update, options = {}) {
    this._shell.deprecation('Collection.update() is deprecated. Use updateOne, updateMany, or bulkWrite.');
    assertArgsDefinedType([filter, update], [true, true], 'Collection.update');
    return this._runUpdate(updateStatement(filter, update, options, !!options.multi), options);
  }

  _delete(filter, options, limit, fnName) {
    assertArgsDefinedType([filter], [true], fnName);
    const cmd = { delete: this._name, deletes: [deleteStatement(filter, options, limit)], ordered: true };
    if (options.let !== undefined) cmd.let = options.let;
    if (options.explain) return this._explainWrite(cmd, options.explain);
    const reply = checkWriteErrors(this._client.command(cmd));
    return new DeleteResult(true, Number(reply.n ?? 0));
  }

  deleteOne(filter, options = {}) {
    return this._delete(filter, options, 1, 'Collection.deleteOne');
  }

  deleteMany(filter, options = {}) {
    return this._delete(filter, options, 0, 'Collection.deleteMany');
  }

  remove(query, options = {}) {
    this._shell.deprecation('Collection.remove() is deprecated. Use deleteOne, deleteMany, findOneAndDelete, or bulkWrite.');
    const justOne = typeof options === 'boolean' ? options : !!options.justOne;
    return this._delete(query, typeof options === 'object' ? options : {}, justOne ? 1 : 0, 'Collection.remove');
  }

  _findAndModify(filter, extra, options) {
    const cmd = { findAndModify: this._name, query: filter, remove: false, new: false, upsert: false };
    if (options.sort) cmd.sort = options.sort;
    if (options.projection) cmd.fields = options.projection;
    if (options.maxTimeMS) cmd.maxTimeMS = options.maxTimeMS;
    if (options.let) cmd.let = options.let;
    if (options.collation) cmd.collation = options.collation;
    Object.assign(cmd, extra);
    if (options.bypassDocumentValidation !== undefined) cmd.bypassDocumentValidation = options.bypassDocumentValidation;
    if (options.explain) return this._explainWrite(cmd, options.explain);
    const reply = this._client.command(cmd);
    return addCustomInspect(reply.value ?? null);
  }

  findOneAndUpdate(filter, update, options = {}) {
    assertArgsDefinedType([filter], [true], 'Collection.findOneAndUpdate');
    const o = processFindAndModifyOptions(options);
    if (!hasAtomicOperators(update)) throw new MongoInvalidArgumentError('Update document requires atomic operators');
    const extra = { update, new: o.returnDocument === 'after', upsert: o.upsert === true };
    if (o.arrayFilters) extra.arrayFilters = o.arrayFilters;
    return this._findAndModify(filter, extra, o);
  }

  findOneAndReplace(filter, replacement, options = {}) {
    assertArgsDefinedType([filter], [true], 'Collection.findOneAndReplace');
    const o = processFindAndModifyOptions(options);
    if (hasAtomicOperators(replacement)) throw new MongoInvalidArgumentError('Replacement document must not contain atomic operators');
    return this._findAndModify(filter, { update: replacement, new: o.returnDocument === 'after', upsert: o.upsert === true }, o);
  }

  findOneAndDelete(filter, options = {}) {
    assertArgsDefinedType([filter], [true], 'Collection.findOneAndDelete');
    return this._findAndModify(filter, { remove: true }, options);
  }

  findAndModify(options) {
    assertArgsDefinedType([options], [true], 'Collection.findAndModify');
    const o = { ...options };
    if (o.projection !== undefined && o.fields !== undefined) {
      throw new MongoshInvalidInputError('Cannot specify both .fields and .projection for findAndModify()', CommonErrors.InvalidArgument);
    }
    if (o.projection === undefined && o.fields !== undefined) o.projection = o.fields;
    const { query = {}, update, remove } = o;
    delete o.query;
    delete o.update;
    delete o.fields;
    if (remove) return this.findOneAndDelete(query, o);
    if (!update) throw new MongoshInvalidInputError('Must specify options.update or options.remove', CommonErrors.InvalidArgument);
    if (Array.isArray(update) || Object.keys(update).some((k) => k.startsWith('$'))) return this.findOneAndUpdate(query, update, o);
    return this.findOneAndReplace(query, update, o);
  }

  // ---- indexes ------------------------------------------------------------------------------

  _createIndexes(keyPatterns, options = {}) {
    assertArgsDefinedType([keyPatterns], [true], 'Collection.createIndexes');
    if (typeof options !== 'object' || options === null || Array.isArray(options)) {
      throw new MongoshInvalidInputError('The "options" argument must be an object.', CommonErrors.InvalidArgument);
    }
    const indexes = keyPatterns.map((key) => {
      const spec = { ...options, key };
      if (spec.name === undefined) spec.name = Object.entries(key).map(([k, v]) => `${k}_${v}`).join('_');
      return spec;
    });
    this._client.command({ createIndexes: this._name, indexes });
    return indexes.map((i) => i.name);
  }

  createIndex(keys, options = {}) {
    assertArgsDefinedType([keys], [true], 'Collection.createIndex');
    return this._createIndexes([keys], options)[0];
  }

  ensureIndex(keys, options = {}) {
    return this._createIndexes([keys], options);
  }

  createIndexes(keyPatterns, options = {}) {
    return this._createIndexes(keyPatterns, options);
  }

  getIndexes() {
    const reply = this._client.command({ listIndexes: this._name });
    return addCustomInspect([...(reply.cursor?.firstBatch ?? [])]);
  }

  getIndexSpecs() {
    return this.getIndexes();
  }

  getIndices() {
    return this.getIndexes();
  }

  getIndexKeys() {
    return this.getIndexes().map((i) => i.key);
  }

  dropIndexes(indexes = '*') {
    return addCustomInspect(this._client.command({ dropIndexes: this._name, index: indexes }));
  }

  dropIndex(index) {
    assertArgsDefinedType([index], [true], 'Collection.dropIndex');
    if (index === '*') {
      throw new MongoshInvalidInputError("To drop indexes in the collection using '*', use db.collection.dropIndexes().", CommonErrors.InvalidArgument);
    }
    if (Array.isArray(index)) {
      throw new MongoshInvalidInputError('The index to drop must be either the index name or the index specification document.', CommonErrors.InvalidArgument);
    }
    return this.dropIndexes(index);
  }

  // ---- collection -----------------------------------------------------------------------------

  drop(options = {}) {
    try {
      this._client.command({ drop: this._name, ...options });
      return true;
    } catch (e) {
      if (e?.codeName === 'NamespaceNotFound') return false;
      throw e;
    }
  }

  exists() {
    const reply = this._client.command({ listCollections: 1, filter: { name: this._name } });
    return addCustomInspect(reply.cursor?.firstBatch?.[0] ?? null);
  }

  isCapped() {
    const info = this.exists();
    if (!info) throw new MongoshRuntimeError(`collection ${this.getFullName()} not found`);
    return !!info.options?.capped;
  }

  runCommand(commandName, options) {
    assertArgsDefinedType([commandName], [['string', 'object']], 'Collection.runCommand');
    const cmd = typeof commandName === 'string' ? { [commandName]: this._name, ...options } : commandName;
    return addCustomInspect(this._client.command(cmd));
  }

  renameCollection(newName, dropTarget) {
    assertArgsDefinedType([newName], ['string'], 'Collection.renameCollection');
    const db = this._database.getName();
    this._client.command({ renameCollection: `${db}.${this._name}`, to: `${db}.${newName}`, dropTarget: !!dropTarget });
    return { ok: 1 };
  }

  /** mongosh's stats(): the $collStats storage stats, summed and scaled as mongosh does. */
  stats(originalOptions = {}) {
    const options = typeof originalOptions === 'number' ? { scale: originalOptions } : { ...originalOptions };
    const scale = options.scale || 1;
    let collStats;
    try {
      collStats = new AggregationCursor(this, this._name, [{ $collStats: { storageStats: { scale: 1 } } }]).toArray();
    } catch (e) {
      // mongosh falls back to collStats on FailedToParse, 13388 and StaleConfig; the playground
      // also does when the engine has no $collStats stage (unrecognized or NotImplemented):
      // the collStats command's reply is the same storageStats document.
      const noStage = e?.code === 40324 || e?.codeName === 'NotImplemented';
      if (e?.codeName === 'FailedToParse' || e?.code === 13388 || e?.codeName === 'StaleConfig' || noStage) {
        collStats = [{ storageStats: this._client.command({ collStats: this._name, scale: 1 }) }];
      } else {
        throw e;
      }
    }
    if (!collStats || collStats[0] === undefined) {
      throw new MongoshRuntimeError(`Error running $collStats aggregation stage on ${this.getFullName()}`, CommonErrors.CommandFailed);
    }
    const result = aggregateCollStats(collStats, scale, this.getFullName());
    if (!options.indexDetails) delete result.indexDetails;
    return result;
  }

  /** mongosh's validate(): the validate command's reply (`true`/`false` is `{ full }`). */
  validate(options = false) {
    const opts = typeof options === 'boolean' ? { full: options } : { ...options };
    return addCustomInspect(this._client.command({ validate: this._name, ...opts }));
  }

  dataSize() {
    return this.stats().size;
  }

  storageSize() {
    return this.stats().storageSize;
  }

  totalIndexSize() {
    return this.stats().totalIndexSize;
  }

  totalSize() {
    return this.stats().totalSize;
  }

  latencyStats(options = {}) {
    return new AggregationCursor(this, this._name, [{ $collStats: { latencyStats: options } }]).toArray();
  }

  explain(verbosity = 'queryPlanner') {
    return new Explainable(this, this._shell.explainVerbosity(verbosity));
  }

  _explainWrite(cmd, verbosity) {
    const v = verbosity === true ? 'queryPlanner' : verbosity;
    return this._shell.explainOutput(this._client.command({ explain: cmd, verbosity: this._shell.explainVerbosity(v) }));
  }

  hideIndex(index) {
    return this._client.command({ collMod: this._name, index: { [typeof index === 'string' ? 'name' : 'keyPattern']: index, hidden: true } });
  }

  unhideIndex(index) {
    return this._client.command({ collMod: this._name, index: { [typeof index === 'string' ? 'name' : 'keyPattern']: index, hidden: false } });
  }
}

const num = (v) => (v !== null && typeof v === 'object' && typeof v.toNumber === 'function' ? v.toNumber() : Number(v));

/** mongosh's _aggregateAndScaleCollStats for a standalone server (one $collStats document). */
function aggregateCollStats(collStats, scale, ns) {
  const result = { ok: 1 };
  const counts = {};
  const indexSizes = {};
  const tsStats = {};
  let unscaledCollSize = 0;
  let nindexes = 0;
  let bucketsNs;
  let tsTotalBucketSize = 0;
  let maxSize = 0;
  for (const shard of collStats) {
    const s = shard.storageStats ?? {};
    const objCount = s.count !== undefined ? s.count : 0;
    for (const field of Object.keys(s)) {
      if (['ns', 'ok', 'lastExtentSize', 'paddingFactor'].includes(field)) continue;
      if (['userFlags', 'capped', 'max', 'paddingFactorNote', 'indexDetails', 'wiredTiger'].includes(field)) {
        result[field] ??= s[field];
      } else if (field === 'timeseries') {
        for (const [name, stat] of Object.entries(s.timeseries)) {
          if (typeof stat === 'string') bucketsNs ??= stat;
          else if (name === 'avgBucketSize') tsTotalBucketSize += num(s.timeseries.bucketCount) * num(stat);
          else tsStats[name] = (tsStats[name] ?? 0) + num(stat);
        }
      } else if (['count', 'size', 'storageSize', 'totalIndexSize', 'totalSize', 'numOrphanDocs'].includes(field)) {
        counts[field] = (counts[field] ?? 0) + num(s[field]);
      } else if (field === 'avgObjSize') {
        unscaledCollSize += num(s[field]) * num(objCount);
      } else if (field === 'maxSize') {
        maxSize = Math.max(maxSize, num(s[field]));
      } else if (field === 'indexSizes') {
        for (const name of Object.keys(s.indexSizes)) indexSizes[name] = (indexSizes[name] ?? 0) + num(s.indexSizes[name]);
      } else if (field === 'nindexes') {
        if (nindexes === 0 || s.nindexes > nindexes) nindexes = s.nindexes;
      }
    }
  }
  result.sharded = false;
  for (const [field, count] of Object.entries(counts)) {
    result[field] = ['size', 'storageSize', 'totalIndexSize', 'totalSize'].includes(field) ? count / scale : count;
  }
  if (bucketsNs && Object.keys(tsStats).length > 0) {
    result.timeseries = { ...tsStats, avgBucketSize: tsStats.bucketCount ? tsTotalBucketSize / tsStats.bucketCount : 0, bucketsNs };
  }
  result.indexSizes = {};
  for (const [name, size] of Object.entries(indexSizes)) result.indexSizes[name] = size / scale;
  result.avgObjSize = counts.count > 0 ? unscaledCollSize / counts.count : 0;
  if (result.capped) result.maxSize = maxSize / scale;
  result.ns = ns;
  result.nindexes = nindexes;
  if (collStats[0].storageStats?.scaleFactor !== undefined) result.scaleFactor = scale;
  result.ok = 1;
  return result;
}

/** db.c.explain(): the same methods, returning the explain output. */
class Explainable {
  constructor(collection, verbosity) {
    this._collection = collection;
    this._verbosity = verbosity;
  }

  get [shellApiType]() {
    return 'Explainable';
  }

  find(query, projection, options) {
    const cursor = this._collection.find(query, projection, options);
    const verbosity = this._verbosity;
    return Object.assign(cursor, {
      [asPrintable]: () => cursor.explain(verbosity),
      toArray: () => cursor.explain(verbosity),
      next: () => cursor.explain(verbosity),
      finish: () => cursor.explain(verbosity),
    });
  }

  aggregate(...args) {
    const pipeline = Array.isArray(args[0]) ? args[0] : args;
    const options = Array.isArray(args[0]) ? args[1] ?? {} : {};
    return this._collection.aggregate(pipeline, { ...options, explain: this._verbosity });
  }

  count(query = {}, options = {}) {
    return this._collection._explainWrite({ count: this._collection.getName(), query, ...options }, this._verbosity);
  }

  countDocuments(query, options = {}) {
    const pipeline = [{ $match: query ?? {} }];
    if (typeof options.skip === 'number') pipeline.push({ $skip: options.skip });
    if (typeof options.limit === 'number') pipeline.push({ $limit: options.limit });
    pipeline.push({ $group: { _id: 1, n: { $sum: 1 } } });
    return this.aggregate(pipeline);
  }

  distinct(field, query, options = {}) {
    return this._collection._explainWrite({ distinct: this._collection.getName(), key: field, query: query ?? {}, ...options }, this._verbosity);
  }

  updateOne(filter, update, options = {}) {
    return this._collection.updateOne(filter, update, { ...options, explain: this._verbosity });
  }

  updateMany(filter, update, options = {}) {
    return this._collection.updateMany(filter, update, { ...options, explain: this._verbosity });
  }

  replaceOne(filter, replacement, options = {}) {
    return this._collection.replaceOne(filter, replacement, { ...options, explain: this._verbosity });
  }

  deleteOne(filter, options = {}) {
    return this._collection.deleteOne(filter, { ...options, explain: this._verbosity });
  }

  deleteMany(filter, options = {}) {
    return this._collection.deleteMany(filter, { ...options, explain: this._verbosity });
  }

  findOneAndUpdate(filter, update, options = {}) {
    return this._collection.findOneAndUpdate(filter, update, { ...options, explain: this._verbosity });
  }

  findOneAndReplace(filter, replacement, options = {}) {
    return this._collection.findOneAndReplace(filter, replacement, { ...options, explain: this._verbosity });
  }

  findOneAndDelete(filter, options = {}) {
    return this._collection.findOneAndDelete(filter, { ...options, explain: this._verbosity });
  }
}
