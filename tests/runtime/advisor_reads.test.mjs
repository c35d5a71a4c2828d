// The reads a run hands to the advisor (client.js logQuery): a find's filter and sort, an
// aggregation's leading $match and its $lookup stages, as canonical Extended JSON.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { run } from './helpers.mjs';

test('advisor reads: finds, and aggregations with a leading $match or a $lookup', async () => {
  const r = await run([
    "db.orders.insertOne({ _id: 1, customerId: 7 });",
    "db.orders.find({ customerId: 7 }).sort({ _id: -1 }).toArray();",
    "const join = { from: 'customers', localField: 'customerId', foreignField: '_id', as: 'customer' };",
    "db.orders.aggregate([{ $match: { _id: 1 } }, { $lookup: join }, { $unwind: '$customer' }]).toArray();",
    "db.orders.aggregate([{ $lookup: join }]).toArray();",
    "db.orders.aggregate([{ $group: { _id: null, n: { $sum: 1 } } }]).toArray();",
  ].join('\n'));
  assert.equal(r.error, null);
  // (plain objects of this realm: the run's come from the vm's)
  const reads = JSON.parse(JSON.stringify(r.reports[0].queries)).map((q) => ({ ...q, query: JSON.parse(q.query) }));
  const join = { from: 'customers', localField: 'customerId', foreignField: '_id', as: 'customer' };
  assert.deepEqual(reads, [
    { db: 'test', collection: 'orders', query: { filter: { customerId: { $numberInt: '7' } }, sort: { _id: { $numberInt: '-1' } } } },
    { db: 'test', collection: 'orders', query: { filter: { _id: { $numberInt: '1' } }, lookups: [join] } },
    { db: 'test', collection: 'orders', query: { filter: {}, lookups: [join] } },
  ]);
});
