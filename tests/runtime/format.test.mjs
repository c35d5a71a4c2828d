// How print()/console.log() show values: mongosh 2.x's formatting (Node's util.inspect with depth
// 6, compact 3, breakLength 80; mongosh's BSON and ISODate forms; documents from the server at full
// depth). Expected strings are what mongosh 2.11 prints.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { out, run } from './helpers.mjs';

const cases = [
  ['ObjectId', `print(ObjectId('5fa5694f88211043b23c7f11'))`, `ObjectId('5fa5694f88211043b23c7f11')`],
  ['ObjectId with new', `print(new ObjectId('5fa5694f88211043b23c7f11'))`, `ObjectId('5fa5694f88211043b23c7f11')`],
  ['ISODate', `print(ISODate('2024-01-02T03:04:05.678Z'))`, `ISODate('2024-01-02T03:04:05.678Z')`],
  ['Date is ISODate', `print(new Date(0))`, `ISODate('1970-01-01T00:00:00.000Z')`],
  ['ISODate without time', `print(ISODate('2026-04-02'))`, `ISODate('2026-04-02T00:00:00.000Z')`],
  ['invalid Date', `print({ x: new Date(NaN) })`, `{ x: Invalid Date }`],
  ['Long', `print(Long('5'), NumberLong(7), NumberLong('9007199254740993'))`, `Long('5') Long('7') Long('9007199254740993')`],
  ['Int32', `print(NumberInt(3), Int32(4), NumberInt('12'))`, `Int32(3) Int32(4) Int32(12)`],
  ['Decimal128', `print(NumberDecimal('1.50'), Decimal128('2'))`, `Decimal128('1.50') Decimal128('2')`],
  ['Double', `print(Double(1.5))`, `Double(1.5)`],
  ['NumberDecimal of a number warns', `print(NumberDecimal(0.1))`,
    `Warning: NumberDecimal: specifying a number as argument is deprecated and may lead to loss of precision, pass a string instead\nDecimal128('0.1')`],
  ['deprecated methods warn once', `db.dep.count(); db.dep.count(); print(db.dep.count({ a: 1 }))`,
    `DeprecationWarning: Collection.count() is deprecated. Use countDocuments or estimatedDocumentCount.\n0`],
  ['Timestamp', `print(Timestamp({ t: 1, i: 2 }), Timestamp(3, 4))`, `Timestamp({ t: 1, i: 2 }) Timestamp({ t: 3, i: 4 })`],
  ['UUID', `print(UUID('01234567-89ab-cdef-0123-456789abcdef'))`, `UUID('01234567-89ab-cdef-0123-456789abcdef')`],
  ['BinData', `print(BinData(0, 'SGVsbG8='))`, `Binary.createFromBase64('SGVsbG8=', 0)`],
  ['MD5', `print(MD5('0123456789abcdef0123456789abcdef'))`, `MD5('0123456789abcdef0123456789abcdef')`],
  ['MinKey MaxKey', `print(MinKey(), MaxKey())`, `MinKey() MaxKey()`],
  ['regex', `print({ r: /ab+c/gi })`, `{ r: /ab+c/gi }`],
  ['top-level string raw', `print('plain text')`, `plain text`],
  ['several arguments', `console.log('n =', 1, [1, 'a'], null, true)`, `n = 1 [ 1, 'a' ] null true`],
  ['undefined prints empty', `print(undefined)`, ``],
  ['negative zero', `print(-0, [-0])`, `-0 [ -0 ]`],
  ['strings quoted in objects', `print(['a', "it's", 'say "hi"', \`both ' "\`])`, `[ 'a', "it's", 'say "hi"', \`both ' "\` ]`],
  ['keys quoted when needed', `print({ 'a-b': 1, a_b: 2, '1x': 3, 2: 4 })`, `{ '2': 4, 'a-b': 1, a_b: 2, '1x': 3 }`],
  ['nested BSON values in one line', `print({ _id: 1, n: NumberInt(2), l: Long('3') })`, `{ _id: 1, n: Int32(2), l: Long('3') }`],
  ['object over 80 columns breaks', `print({ _id: ObjectId('5fa5694f88211043b23c7f11'), at: ISODate('2024-01-02T03:04:05.678Z') })`,
    `{\n  _id: ObjectId('5fa5694f88211043b23c7f11'),\n  at: ISODate('2024-01-02T03:04:05.678Z')\n}`],
  ['inner objects stay on one line (compact 3)',
    `print({ plain: { documents: 20000, ingestMs: 140, indexKB: 760 }, bucketed: { documents: 112, ingestMs: 1903, indexKB: 28 } })`,
    `{\n  plain: { documents: 20000, ingestMs: 140, indexKB: 760 },\n  bucketed: { documents: 112, ingestMs: 1903, indexKB: 28 }\n}`],
  ['long string property', `print({ s: 'x'.repeat(100) })`, `{\n  s: '${'x'.repeat(100)}'\n}`],
  ['depth 6', `print({a:{b:{c:{d:{e:{f:{g:{h:1}}}}}}}})`,
    `{\n  a: {\n    b: {\n      c: {\n        d: { e: { f: { g: [Object] } } }\n      }\n    }\n  }\n}`],
  ['nested arrays', `print([1, [2, [3, [4, [5, [6, [7, [8]]]]]]]])`,
    `[\n  1,\n  [\n    2,\n    [\n      3,\n      [\n        4,\n        [ 5, [ 6, [ 7, [Array] ] ] ]\n      ]\n    ]\n  ]\n]`],
  ['numeric arrays are grouped', `print(Array.from({ length: 101 }, (_, i) => i))`,
    `[\n   0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11,\n  12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23,\n  24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35,\n  36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47,\n  48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59,\n  60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71,\n  72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83,\n  84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95,\n  96, 97, 98, 99,\n  ... 1 more item\n]`],
  ['string arrays are grouped', `print(Array.from({ length: 30 }, (_, i) => 'item' + i))`,
    `[\n  'item0',  'item1',  'item2',\n  'item3',  'item4',  'item5',\n  'item6',  'item7',  'item8',\n  'item9',  'item10', 'item11',\n  'item12', 'item13', 'item14',\n  'item15', 'item16', 'item17',\n  'item18', 'item19', 'item20',\n  'item21', 'item22', 'item23',\n  'item24', 'item25', 'item26',\n  'item27', 'item28', 'item29'\n]`],
  ['printjson expands everything', `printjson({ a: 1, b: [1, 2] })`, `{\n  a: 1,\n  b: [\n    1,\n    2\n  ]\n}`],
  ['printjson of a string is raw', `printjson('x')`, `x`],
  ['bsonsize', `print(Object.bsonsize({ a: 1 }), Object.bsonsize({}))`, `12 5`],
  ['EJSON', `print(EJSON.stringify({ a: NumberLong(1), d: new Date(0) }, { relaxed: false }))`,
    `{"a":{"$numberLong":"1"},"d":{"$date":{"$numberLong":"0"}}}`],
  ['EJSON.parse gives shell types', `print(EJSON.parse('{"x":{"$oid":"5fa5694f88211043b23c7f11"}}'))`, `{ x: ObjectId('5fa5694f88211043b23c7f11') }`],
];

for (const [name, code, expected] of cases) {
  test(`format: ${name}`, async () => {
    assert.equal(await out(code), expected);
  });
}

test('format: instanceof holds for shell helpers and values the server returns', async () => {
  const text = await out(`
    db.fmt_inst.insertOne({ _id: ObjectId('5fa5694f88211043b23c7f11'), at: new Date(5), n: Long('1') });
    const d = db.fmt_inst.findOne();
    print(d._id instanceof ObjectId, ObjectId('5fa5694f88211043b23c7f11') instanceof ObjectId, d.at instanceof Date, d.n instanceof Long);
    assert.deepStrictEqual(d, { _id: ObjectId('5fa5694f88211043b23c7f11'), at: new Date(5), n: Long('1') });
    print(typeof d.at.getTime());
  `);
  assert.equal(text, 'true true true true\nnumber');
});

test('format: write results as mongosh prints them', async () => {
  const text = await out(`
    print(db.fmt_w.insertOne({ _id: 1, a: 1 }));
    print(db.fmt_w.insertMany([{ _id: 2 }, { _id: 3 }]));
    print(db.fmt_w.updateOne({ _id: 1 }, { $set: { a: 2 } }));
    print(db.fmt_w.updateOne({ _id: 9 }, { $set: { a: 2 } }, { upsert: true }));
    print(db.fmt_w.replaceOne({ _id: 2 }, { b: 1 }));
    print(db.fmt_w.deleteOne({ _id: 3 }));
    print(db.fmt_w.deleteMany({}));
  `);
  assert.equal(text, [
    `{ acknowledged: true, insertedId: 1 }`,
    `{ acknowledged: true, insertedIds: { '0': 2, '1': 3 } }`,
    `{\n  acknowledged: true,\n  insertedId: null,\n  matchedCount: 1,\n  modifiedCount: 1,\n  upsertedCount: 0\n}`,
    `{\n  acknowledged: true,\n  insertedId: 9,\n  matchedCount: 0,\n  modifiedCount: 0,\n  upsertedCount: 1\n}`,
    `{\n  acknowledged: true,\n  insertedId: null,\n  matchedCount: 1,\n  modifiedCount: 1,\n  upsertedCount: 0\n}`,
    `{ acknowledged: true, deletedCount: 1 }`,
    `{ acknowledged: true, deletedCount: 3 }`,
  ].join('\n'));
});

test('format: generated _id is an ObjectId and the caller\'s document is not changed', async () => {
  const text = await out(`
    const doc = { a: 1 };
    const r = db.fmt_id.insertOne(doc);
    print(r.insertedId instanceof ObjectId, 'a' in doc, '_id' in doc);
    print(JSON.stringify(Object.keys(db.fmt_id.findOne())));
    print(db.fmt_id.insertMany([{}, {}]).insertedIds[1] instanceof ObjectId);
  `);
  assert.equal(text, 'true true false\n["_id","a"]\ntrue');
  const r = await run(`print(db.fmt_id2.insertOne({ a: 1 }))`);
  // 81 columns on one line: mongosh breaks it
  assert.match(r.text, /^\{\n  acknowledged: true,\n  insertedId: ObjectId\('[0-9a-f]{24}'\)\n\}$/);
});

test('format: documents from the server print at full depth (mongosh deep inspect)', async () => {
  const text = await out(`
    const deep = { a: { b: { c: { d: { e: { f: { g: { h: 1 } } } } } } } };
    db.fmt_deep.insertOne({ _id: 1, deep, list: Array.from({ length: 101 }, (_, i) => i % 2) });
    const d = db.fmt_deep.findOne();
    print(d.deep);
    print(d.list.length, d.list.slice(0, 3));
    print(deep);
    const [t] = db.fmt_deep.find().toArray();
    print(t.deep);
    print(JSON.stringify(Reflect.ownKeys(t)), JSON.stringify(Reflect.ownKeys({ ...t.deep })));
  `);
  // Each sub-document from the server is formatted on its own (mongosh's custom inspect), so
  // neither depth 6 nor the three-level compact rule applies: it stays on one line if it fits.
  const lines = text.split('\n');
  assert.equal(lines[0], '{ a: { b: { c: { d: { e: { f: { g: { h: 1 } } } } } } } }');
  assert.equal(lines[1], '101 [ 0, 1, 0 ]');
  assert.equal(lines.slice(2, 11).join('\n'), `{\n  a: {\n    b: {\n      c: {\n        d: { e: { f: { g: [Object] } } }\n      }\n    }\n  }\n}`);
  // The same through a cursor's toArray; the mark is no key or symbol a script sees.
  assert.equal(lines[11], '{ a: { b: { c: { d: { e: { f: { g: { h: 1 } } } } } } } }');
  assert.equal(lines[12], '["_id","deep","list"] ["a"]');
  assert.equal(lines.length, 13);
});

test('format: a printed cursor shows its first 20 documents and "Type \\"it\\" for more"', async () => {
  const text = await out(`
    db.fmt_cur.insertMany(Array.from({ length: 25 }, (_, i) => ({ _id: i, name: 'user number ' + i })));
    print(db.fmt_cur.find().sort({ _id: 1 }));
  `);
  const lines = text.split('\n');
  assert.equal(lines[0], '[');
  assert.equal(lines[1], "  { _id: 0, name: 'user number 0' },");
  assert.equal(lines[20], "  { _id: 19, name: 'user number 19' }");
  assert.equal(lines[21], ']');
  assert.equal(lines[22], 'Type "it" for more');
});

test('server clock: $$NOW, $currentDate and generated ObjectIds read the real time', async () => {
  const text = await out(`
    db.clock.updateOne({ k: 1 }, { $currentDate: { at: true } }, { upsert: true });
    const d = db.clock.findOne();
    const now = db.aggregate([{ $documents: [{}] }, { $project: { now: '$$NOW' } }]).toArray()[0].now;
    print(Math.abs(d.at - Date.now()) < 60000, Math.abs(d._id.getTimestamp() - Date.now()) < 60000, Math.abs(now - Date.now()) < 60000);
  `);
  assert.equal(text, 'true true true');
});
