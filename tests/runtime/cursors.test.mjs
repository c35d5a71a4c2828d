// Cursors page as mongosh's (the Node driver's): the find or aggregate command, then getMores of
// the cursor's batchSize (1000 when it has none) until the server's cursor id is 0; and the
// shell methods mongosh has that are not collections (db.hello(), ...), findAndModify's `new`,
// `new Timestamp(t, i)`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { out, run } from './helpers.mjs';

test('find and aggregate cursors page through getMore', async () => {
  const text = await out(`
    db.c.insertMany(Array.from({ length: 250 }, (_, i) => ({ _id: i })));
    const c = db.c.find();
    print(c.hasNext(), c.objsLeftInBatch());
    c.next();
    print(c.objsLeftInBatch());
    print(db.c.find().itcount(), db.c.find().toArray().length);
    const b = db.c.find().batchSize(2);
    b.next();
    print(b.objsLeftInBatch());
    b.next(); b.next();
    print(b.objsLeftInBatch());
    print(db.c.find().batchSize(0).toArray().length, db.c.find().batchSize(7).itcount());
    print(db.c.find().limit(5).batchSize(2).toArray().map((d) => d._id).join(','));
    print(db.c.find().skip(245).batchSize(2).toArray().map((d) => d._id).join(','));
    let n = 0;
    db.c.find().batchSize(3).forEach(() => { n++; });
    print(n);
    const a = db.c.aggregate([{ $match: {} }], { batchSize: 10 });
    print(a.objsLeftInBatch(), a.toArray().length);
    print(db.c.aggregate([]).itcount());
    const raw = db.runCommand({ find: 'c', batchSize: 0 });
    print(raw.cursor.firstBatch.length, raw.cursor.id.toString() !== '0');
    const more = db.runCommand({ getMore: raw.cursor.id, collection: 'c', batchSize: 2 });
    print(more.cursor.nextBatch.map((d) => d._id).join(','));
    const agg = db.runCommand({ aggregate: 'c', pipeline: [], cursor: { batchSize: 0 } });
    print(agg.cursor.firstBatch.length);
    print(db.runCommand({ find: 'c' }).cursor.firstBatch.length);
  `);
  assert.equal(
    text,
    [
      'true 101',
      '100',
      '250 250',
      '1',
      '1',
      '250 250',
      '0,1,2,3,4',
      '245,246,247,248,249',
      '250',
      '0 250',
      '250',
      '0 true',
      '0,1',
      '0',
      '101',
    ].join('\n'),
  );
});

test('a cursor started cannot change its batchSize; a cursor closes with killCursors', async () => {
  const r = await run(`
    db.c.insertMany([{ _id: 1 }, { _id: 2 }, { _id: 3 }]);
    const c = db.c.find().batchSize(1);
    c.next();
    try { c.batchSize(5); } catch (e) { print(e.name, e.message); }
    c.close();
    print(c.isClosed(), c.hasNext());
    try { db.c.find().batchSize('2'); } catch (e) { print(e.name, e.message); }
  `);
  assert.equal(r.error, null);
  assert.equal(
    r.text,
    ['MongoCursorInUseError Cursor is already initialized', 'true false', 'MongoInvalidArgumentError Operation "batchSize" requires an integer'].join('\n'),
  );
});

test('findAndModify with new: true returns the updated document', async () => {
  const text = await out(`
    db.c.insertOne({ _id: 1, n: 1 });
    print(JSON.stringify(db.c.findAndModify({ query: { _id: 1 }, update: { $inc: { n: 1 } }, new: true })));
    print(JSON.stringify(db.c.findAndModify({ query: { _id: 1 }, update: { $inc: { n: 1 } } })));
    print(JSON.stringify(db.c.findAndModify({ query: { _id: 1 }, update: { m: 1 }, new: true, fields: { _id: 0 } })));
    print(JSON.stringify(db.c.findOneAndUpdate({ _id: 1 }, { $set: { m: 2 } }, { new: true })));
    try { db.c.findAndModify({ query: {}, update: { $set: { a: 1 } }, fields: {}, projection: {} }); } catch (e) { print(e.message); }
  `);
  assert.equal(
    text,
    ['{"_id":1,"n":2}', '{"_id":1,"n":2}', '{"m":1}', '{"_id":1,"m":2}', '[COMMON-10001] Cannot specify both .fields and .projection for findAndModify()'].join('\n'),
  );
});

test('new Timestamp(t, i) is Timestamp(t, i)', async () => {
  const text = await out(`
    const a = new Timestamp(1, 2);
    const b = Timestamp(1, 2);
    print(a.t, a.i, b.t, b.i, a instanceof Timestamp, a.equals(b));
    print(new Timestamp({ t: 5, i: 6 }).t, new Long(7).toString(), new Decimal128('1.5').toString());
  `);
  assert.equal(text, ['1 2 1 2 true true', '5 7 1.5'].join('\n'));
});

test('db.hello(), db.isMaster(), db.serverStatus(), db.version() answer as a standalone 8.0', async () => {
  const text = await out(`
    const h = db.hello();
    print(h.isWritablePrimary, h.maxWireVersion, h.ok);
    const m = db.isMaster();
    print(m.ismaster, m.isWritablePrimary);
    const s = db.serverStatus();
    print(s.version, s.process, s.ok);
    print(db.version(), db.serverBits(), db.serverBuildInfo().version);
    print(typeof db.hello, typeof db.getUsers);
    try { db.getUsers(); } catch (e) { print(e.name); }
    print(db.getCollectionNames().length);
  `);
  assert.equal(
    text,
    ['true 25 1', 'true true', '8.0.0 mongod 1', '8.0.0 64 8.0.0', 'function function', 'MongoshUnimplementedError', '0'].join('\n'),
  );
});

test('a key with a NUL byte is refused by inserts, as js-bson; Object.bsonsize measures it as js-bson does', async () => {
  const r = await run(`
    print(Object.bsonsize({ a: 1 }), Object.bsonsize({ 'a\\0': 1 }));
    try { db.c.insertOne({ 'a\\0': 1 }); } catch (e) { print(e.name, e.message); }
    try { db.c.insertMany([{ x: { 'b\\0': 1 } }]); } catch (e) { print(e.name); }
    try { Object.bsonsize(5); } catch (e) { print(e.name); }
    print(db.c.countDocuments());
  `);
  assert.equal(r.error, null, r.error?.uncaught);
  assert.equal(
    r.text,
    ['12 13', 'BSONError key a\u0000 must not contain null bytes', 'BSONError', 'MongoshInvalidInputError', '0'].join('\n'),
  );
});
