// Several databases, as mongosh reaches them: db.getSiblingDB, db.getMongo().getDB / getDBNames,
// $merge and $out into another database, adminCommand, dropDatabase; `db` reassigned in one file
// holds for the next (one mongosh given several files); writes into admin/config/local refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { run, out } from './helpers.mjs';

test('databases: getSiblingDB reaches another database; cursors, bulk writes and $merge/$out work there', async () => {
  const text = await out(`
    db.orders.insertMany([{ _id: 1, s: 'open' }, { _id: 2, s: 'done' }, { _id: 3, s: 'done' }]);
    const archive = db.getSiblingDB('archive');
    print(archive.getName(), db.getName(), archive === db.getMongo().getDB('archive'));
    db.orders.aggregate([{ $match: { s: 'done' } }, { $merge: { into: { db: 'archive', coll: 'orders' } } }]);
    db.orders.aggregate([{ $match: { s: 'open' } }, { $out: { db: 'archive', coll: 'open' } }]);
    archive.orders.bulkWrite([{ insertOne: { document: { _id: 9 } } }, { deleteOne: { filter: { _id: 2 } } }]);
    print(archive.orders.find().batchSize(1).toArray().map((d) => d._id), archive.getCollectionNames());
    print(db.getMongo().getDBNames(), db.adminCommand({ listDatabases: 1, nameOnly: true }).databases.length);
    print(db.orders.countDocuments(), archive.dropDatabase().ok, db.getMongo().getDBNames());
  `);
  assert.equal(text, [
    'archive test true',
    "[ 3, 9 ] [ 'open', 'orders' ]",
    "[ 'archive', 'test' ] 2",
    "3 1 [ 'test' ]",
  ].join('\n'));
});

test('databases: `db = db.getSiblingDB(...)` in one file holds for the next; `use` is explained', async () => {
  const r = await run([
    { name: 'a.js', code: "db = db.getSiblingDB('shop'); db.items.insertOne({ _id: 1 });" },
    { name: 'b.js', code: "print(db.getName(), db.items.countDocuments(), db.getSiblingDB('test').items.countDocuments())" },
    { name: 'c.js', code: 'use shop\nprint(1)' },
  ], { continueOnError: true });
  assert.equal(r.reports[1].text, 'shop 1 0');
  assert.equal(r.error.file, 'c.js');
  assert.match(r.error.message, /`use shop` works at mongosh's prompt only; in a script write db = db.getSiblingDB\("shop"\)/);
});

test('databases: writes into admin, config or local are refused; an empty name is an error', async () => {
  for (const name of ['admin', 'config', 'local']) {
    const r = await run(`db.getSiblingDB('${name}').x.insertOne({ _id: 1 })`);
    assert.equal(r.error?.name, 'MongoshUnimplementedError', name);
    assert.match(r.error.message, new RegExp(`writes into the server's own "${name}" database are not supported`));
  }
  const out = await run("db.a.insertOne({ _id: 1 }); db.a.aggregate([{ $out: { db: 'admin', coll: 'x' } }])");
  assert.match(out.error?.message ?? '', /writes into the server's own "admin" database are not supported/);
  const empty = await run("db.getSiblingDB(' ')");
  assert.equal(empty.error?.message, '[COMMON-10001] Database name cannot be empty.');
  const typed = await run('db.getSiblingDB(1)');
  assert.equal(typed.error?.name, 'MongoshInvalidInputError');
});
