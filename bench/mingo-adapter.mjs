// A small mongosh-style `db` over mingo (used only by `make bench`): each collection is a plain JS
// array of plain objects; reads go through mingo's Query (find + projection), aggregation through
// its Aggregator, writes through its update functions (in place, as mingo intends). This is the
// idiomatic way to use mingo as an in-memory database: no indexes (createIndex is a no-op), linear
// scans, documents mutated in place.
//
//   import { createMingoDb } from './mingo-adapter.mjs';
//   const db = createMingoDb();
//   db.orders.insertMany([...]); db.orders.find({ a: 1 }).toArray();
import { Query, Aggregator, update, updateOne, updateMany } from 'mingo';
import { ObjectId } from 'bson';

const isOperatorDoc = (v) =>
  v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Date) && Object.keys(v).some((k) => k.startsWith('$'));

/** The document an upsert starts from: the filter's equality fields (as the server seeds it). */
function upsertSeed(filter) {
  const seed = {};
  const eq = {};
  for (const [k, v] of Object.entries(filter ?? {})) {
    if (k.startsWith('$')) continue;
    if (isOperatorDoc(v)) {
      if ('$eq' in v) eq[k] = v.$eq;
      continue;
    }
    eq[k] = v;
  }
  if (Object.keys(eq).length > 0) update(seed, { $set: eq });
  return seed;
}

/** Splits `$setOnInsert` off an update (mingo's updater has no such operator). */
function splitSetOnInsert(modifier) {
  const { $setOnInsert, ...rest } = modifier;
  return { onInsert: $setOnInsert, rest };
}

class MingoCursor {
  constructor(cursor) {
    this.cursor = cursor;
  }

  sort(spec) {
    this.cursor.sort(spec);
    return this;
  }

  skip(n) {
    this.cursor.skip(n);
    return this;
  }

  limit(n) {
    this.cursor.limit(n);
    return this;
  }

  toArray() {
    return this.cursor.all();
  }

  next() {
    return this.cursor.hasNext() ? this.cursor.next() : null;
  }
}

class MingoCollection {
  constructor(name, resolve) {
    this.name = name;
    this.docs = [];
    this.resolve = resolve;
  }

  insertOne(doc) {
    const d = { ...doc };
    if (d._id == null) d._id = new ObjectId();
    this.docs.push(d);
    return { acknowledged: true, insertedId: d._id };
  }

  insertMany(docs) {
    const insertedIds = {};
    docs.forEach((doc, i) => {
      insertedIds[i] = this.insertOne(doc).insertedId;
    });
    return { acknowledged: true, insertedIds };
  }

  find(filter = {}, projection) {
    return new MingoCursor(new Query(filter).find(this.docs, projection));
  }

  findOne(filter = {}, projection) {
    return this.find(filter, projection).limit(1).next();
  }

  countDocuments(filter = {}) {
    const q = new Query(filter);
    let n = 0;
    for (const d of this.docs) if (q.test(d)) n++;
    return n;
  }

  aggregate(pipeline) {
    // `$lookup` finds its `from` collection through the resolver.
    const docs = new Aggregator(pipeline, { collectionResolver: this.resolve }).run(this.docs);
    return { toArray: () => docs };
  }

  _update(filter, modifier, options = {}, multi) {
    const { onInsert, rest } = splitSetOnInsert(modifier);
    const config = options.arrayFilters ? { arrayFilters: options.arrayFilters } : {};
    const r = multi ? updateMany(this.docs, filter, rest, config) : updateOne(this.docs, filter, rest, config);
    if (r.matchedCount === 0 && options.upsert) {
      const doc = upsertSeed(filter);
      update(doc, onInsert ? { ...rest, $set: { ...(rest.$set ?? {}), ...onInsert } } : rest);
      if (doc._id == null) doc._id = new ObjectId();
      this.docs.push(doc);
      return { acknowledged: true, matchedCount: 0, modifiedCount: 0, upsertedCount: 1, upsertedId: doc._id };
    }
    return { acknowledged: true, matchedCount: r.matchedCount, modifiedCount: r.modifiedCount, upsertedCount: 0, upsertedId: null };
  }

  updateOne(filter, modifier, options) {
    return this._update(filter, modifier, options, false);
  }

  updateMany(filter, modifier, options) {
    return this._update(filter, modifier, options, true);
  }

  deleteMany(filter = {}) {
    const q = new Query(filter);
    const before = this.docs.length;
    this.docs = this.docs.filter((d) => !q.test(d));
    return { acknowledged: true, deletedCount: before - this.docs.length };
  }

  deleteOne(filter = {}) {
    const q = new Query(filter);
    const i = this.docs.findIndex((d) => q.test(d));
    if (i >= 0) this.docs.splice(i, 1);
    return { acknowledged: true, deletedCount: i >= 0 ? 1 : 0 };
  }

  bulkWrite(operations) {
    const res = { insertedCount: 0, matchedCount: 0, modifiedCount: 0, deletedCount: 0, upsertedCount: 0 };
    for (const op of operations) {
      if (op.insertOne) {
        this.insertOne(op.insertOne.document);
        res.insertedCount++;
      } else if (op.updateOne || op.updateMany) {
        const m = op.updateOne ?? op.updateMany;
        const r = this._update(m.filter, m.update, m, !!op.updateMany);
        res.matchedCount += r.matchedCount;
        res.modifiedCount += r.modifiedCount;
        res.upsertedCount += r.upsertedCount;
      } else if (op.deleteOne) {
        res.deletedCount += this.deleteOne(op.deleteOne.filter).deletedCount;
      } else if (op.deleteMany) {
        res.deletedCount += this.deleteMany(op.deleteMany.filter).deletedCount;
      } else {
        throw new Error(`bulkWrite: unsupported operation ${Object.keys(op)[0]}`);
      }
    }
    return { acknowledged: true, ...res };
  }

  createIndex() {
    return 'noop';
  }

  drop() {
    this.docs = [];
    return true;
  }
}

/** A `db` whose properties are collections (created on first use). */
export function createMingoDb() {
  const collections = new Map();
  const target = {
    getCollection(name) {
      if (!collections.has(name)) collections.set(name, new MingoCollection(name, (n) => target.getCollection(n).docs));
      return collections.get(name);
    },
    dropDatabase() {
      collections.clear();
      return { ok: 1 };
    },
  };
  return new Proxy(target, {
    get(t, prop) {
      if (prop in t) return t[prop];
      if (typeof prop !== 'string') return undefined;
      return t.getCollection(prop);
    },
  });
}
