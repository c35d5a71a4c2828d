// mongosh-visible results of issue 13's query lines: min()/max(), indexes on positional paths,
// positional projection of a parallel array, $rename onto an equal number, validate().
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { out, run } from './helpers.mjs';

test('fidelity: find().max().hint() stops before the max key; min()/max() need a hint', async () => {
  const text = await out(`
    for (let i = 0; i < 10; i++) db.mm.insertOne({ _id: i, a: i });
    db.mm.createIndex({ a: 1 });
    print(db.mm.find({}).max({ a: 4 }).hint({ a: 1 }).toArray().length);
    print(db.mm.find({}).min({ a: 7 }).hint({ a: 1 }).toArray().map((d) => d.a).join(','));
    try { db.mm.find({}).max({ a: 4 }).toArray(); } catch (e) { print(e.code); }
  `);
  assert.equal(text, '4\n7,8,9\n51173');
});

test('fidelity: an index on a positional path finds what the collection scan finds', async () => {
  const text = await out(`
    db.pos.insertMany([{ _id: 1, a: { '0': 5 } }, { _id: 2, a: [5] }]);
    print(db.pos.countDocuments({ 'a.0': 5 }));
    db.pos.createIndex({ 'a.0': 1 });
    print(db.pos.countDocuments({ 'a.0': 5 }));
    db.em.insertOne({ _id: 1, a: [{ b: [0, 2] }] });
    db.em.createIndex({ a: 1 });
    db.em.createIndex({ 'a.b': 1 });
    const q = { a: { $elemMatch: { b: { $gte: 1, $lte: 1 } } } };
    print(db.em.find(q).hint({ $natural: 1 }).itcount(), db.em.find(q).hint({ 'a.b': 1 }).itcount());
  `);
  assert.equal(text, '2\n2\n1 1');
});

test('fidelity: positional projection of a parallel array; $rename onto an equal number', async () => {
  const text = await out(`
    db.pp.insertOne({ _id: 1, a: [1, 2, 3], b: ['one', 'two', 'three'] });
    print(EJSON.stringify(db.pp.find({ a: 2 }, { 'b.$': 1 }).toArray()));
    db.rn.insertOne({ _id: 1, to: NumberLong(100), from: NumberInt(100) });
    db.rn.updateOne({ _id: 1 }, { $rename: { from: 'to' } });
    print(EJSON.stringify(db.rn.findOne(), { relaxed: false }));
  `);
  assert.equal(text, '[{"_id":1,"b":["two"]}]\n{"_id":{"$numberInt":"1"},"to":{"$numberInt":"100"}}');
});

test('fidelity: db.coll.validate() checks the documents and indexes', async () => {
  const text = await out(`
    db.val.insertMany([{ _id: 1, a: [1, 2] }, { _id: 2, a: 3 }]);
    db.val.createIndex({ a: 1 });
    const r = db.val.validate({ full: true });
    print(r.valid, r.nrecords, r.nIndexes, EJSON.stringify(r.keysPerIndex), r.errors.length, r.ok);
  `);
  assert.equal(text, 'true 2 2 {"_id_":2,"a_1":3} 0 1');
  const missing = await run('db.nothere.validate()');
  assert.match(missing.error?.uncaught ?? '', /does not exist to validate/);
});
