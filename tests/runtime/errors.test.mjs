// Errors as a mongosh 2.x script meets them: the driver's classes and fields (name, code,
// codeName, errmsg, errorResponse, writeErrors, result), mongosh's own argument errors, and where
// they happened (line and column in the user's script). Also the runner's exit code and the way it
// prints an uncaught error (mongosh prints `${name}: ${message}`).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { out, run } from './helpers.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const DUP = 'E11000 duplicate key error collection: test.e1 index: _id_ dup key: { _id: 1 }';

test('errors: duplicate key on insertOne is a MongoServerError built from the write error', async () => {
  const text = await out(`
    db.e1.insertOne({ _id: 1 });
    try { db.e1.insertOne({ _id: 1 }); } catch (e) {
      print(e.name, e.code, e.errmsg === e.message, e instanceof Error, e.index, JSON.stringify(e.keyValue), JSON.stringify(e.keyPattern));
      print(e.message);
      print(e.errorResponse.code, e.errorResponse.index);
    }
  `);
  assert.equal(text, `MongoServerError 11000 true true 0 {"_id":1} {"_id":1}\n${DUP}\n11000 0`);
});

test('errors: an uncaught error stops the run and reports name, message, code and line', async () => {
  const r = await run(`db.e1.insertOne({ _id: 1 });\nprint('before');\ndb.e1.insertOne({ _id: 1 });\nprint('after');\n`);
  assert.equal(r.text, 'before');
  assert.equal(r.error.name, 'MongoServerError');
  assert.equal(r.error.message, DUP);
  assert.equal(r.error.code, 11000);
  assert.equal(r.error.line, 3);
  assert.equal(r.error.column, 7);
  assert.equal(r.error.uncaught, `MongoServerError: ${DUP}\n    at test.js:3:7`);
});

test('errors: insertMany failures are MongoBulkWriteError with writeErrors and the result so far', async () => {
  const text = await out(`
    try { db.e2.insertMany([{ _id: 1 }, { _id: 2 }, { _id: 1 }, { _id: 3 }]); } catch (e) {
      print(e.name, e.code, e.writeErrors.length, e.writeErrors[0].index, e.writeErrors[0].code, e.result.insertedCount, e.insertedCount);
      print(e.message === e.writeErrors[0].errmsg, JSON.stringify(e.insertedIds));
    }
    try { db.e2.insertMany([{ _id: 4 }, { _id: 1 }, { _id: 5 }, { _id: 2 }], { ordered: false }); } catch (e) {
      print(e.name, e.writeErrors.map((w) => w.index).join(','), e.insertedCount, JSON.stringify(e.insertedIds));
    }
    print(db.e2.countDocuments());
  `);
  assert.equal(text, [
    'MongoBulkWriteError 11000 1 2 11000 2 2',
    'true {"0":1,"1":2}',
    'MongoBulkWriteError 1,3 2 {"0":4,"2":5}',
    '4',
  ].join('\n'));
});

test('errors: a write error and the bulk result print as the driver\'s classes', async () => {
  const text = await out("try { db.x.insertMany([{ _id: 1 }, { _id: 1 }]); } catch (e) { print(e.writeErrors[0]); print(e.result); }");
  assert.equal(text, [
    'WriteError {',
    '  err: {',
    '    index: 1,',
    '    code: 11000,',
    "    errmsg: 'E11000 duplicate key error collection: test.x index: _id_ dup key: { _id: 1 }',",
    '    errInfo: undefined,',
    '    op: { _id: 1 }',
    '  }',
    '}',
    'BulkWriteResult {',
    '  insertedCount: 1,',
    '  matchedCount: 0,',
    '  modifiedCount: 0,',
    '  deletedCount: 0,',
    '  upsertedCount: 0,',
    '  upsertedIds: {},',
    "  insertedIds: { '0': 1 }",
    '}',
  ].join('\n'));
});

test('errors: bulkWrite stops at the first failure when ordered, goes on when not', async () => {
  const text = await out(`
    db.e3.insertOne({ _id: 1 });
    const ops = [{ insertOne: { document: { _id: 1 } } }, { updateOne: { filter: { _id: 1 }, update: { $set: { a: 1 } } } }];
    try { db.e3.bulkWrite(ops); } catch (e) { print(e.name, e.result.matchedCount, e.writeErrors.length); }
    try { db.e3.bulkWrite(ops, { ordered: false }); } catch (e) { print(e.name, e.result.matchedCount, e.writeErrors.length); }
  `);
  assert.equal(text, 'MongoBulkWriteError 0 1\nMongoBulkWriteError 1 1');
});

test('errors: command errors carry code, codeName and errmsg from the reply', async () => {
  const text = await out(`
    db.e4.insertOne({ a: 1 });
    try { db.e4.aggregate([{ $nope: 1 }]).toArray(); } catch (e) {
      print(e.name, e.code, e.codeName, e.ok, e.errorResponse.ok);
      print(e.message);
    }
    try { db.e4.find({ $foo: 1 }).toArray(); } catch (e) { print(e.name, e.code, e.codeName, e.message); }
  `);
  assert.equal(text, [
    'MongoServerError 40324 Location40324 0 0',
    "Unrecognized pipeline stage name: '$nope'",
    'MongoServerError 2 BadValue unknown top level operator: $foo. If you have a field name that starts with a \'$\' symbol, consider using $getField or $setField.',
  ].join('\n'));
});

test('errors: the driver rejects updates without operators and replacements with them', async () => {
  const text = await out(`
    for (const f of [() => db.e5.updateOne({}, { a: 1 }), () => db.e5.replaceOne({}, { $set: { a: 1 } }), () => db.e5.findOneAndUpdate({}, {}), () => db.e5.insertMany({}), () => db.e5.insertMany([]), () => db.e5.bulkWrite([])]) {
      try { f(); } catch (e) { print(e.name + ': ' + e.message); }
    }
  `);
  assert.equal(text, [
    'MongoInvalidArgumentError: Update document requires atomic operators',
    'MongoInvalidArgumentError: Replacement document must not contain atomic operators',
    'MongoInvalidArgumentError: Update document requires atomic operators',
    'MongoInvalidArgumentError: Argument "docs" must be an array of documents',
    'MongoInvalidArgumentError: Invalid BulkOperation, Batch cannot be empty',
    'MongoInvalidArgumentError: Invalid BulkOperation, Batch cannot be empty',
  ].join('\n'));
});

test('errors: mongosh argument checks', async () => {
  const text = await out(`
    for (const f of [() => db.e6.insertOne(), () => db.e6.findOneAndUpdate({}, { $set: { a: 1 } }, { returnDocument: 'later' }), () => ISODate('not a date')]) {
      try { f(); } catch (e) { print(e.name + ': ' + e.message); }
    }
  `);
  assert.equal(text, [
    'MongoshInvalidInputError: [COMMON-10001] Missing required argument at position 0 (Collection.insertOne)',
    "MongoshInvalidInputError: [COMMON-10001] returnDocument needs to be either 'before' or 'after'",
    'MongoshInvalidInputError: [COMMON-10001] not a date is not a valid ISODate',
  ].join('\n'));
});

test('errors: line and column point into the user\'s script', async () => {
  let r = await run('const a = 1;\n\nfunction f() {\n  return null.x;\n}\nf();\n');
  assert.equal(r.error.name, 'TypeError');
  assert.equal(r.error.line, 4);
  assert.equal(r.error.column, 15);
  r = await run('null.x');
  assert.deepEqual([r.error.line, r.error.column], [1, 6]);
  r = await run('print(1);\nconst x = ;\n');
  assert.equal(r.error.name, 'SyntaxError');
  assert.equal(r.error.line, 2);
  assert.equal(r.error.column, 11);
  r = await run('throw 5;');
  assert.deepEqual([r.error.name, r.error.message], ['Error', '5']);
  r = await run('assert.strictEqual(1, 2);');
  assert.equal(r.error.name, 'AssertionError');
  assert.equal(r.error.code, 'ERR_ASSERTION');
  assert.equal(r.error.line, 1);
});

test('errors: top-level await and files sharing names in their own scopes', async () => {
  const r = await run([
    { name: 'a.js', code: 'const base = 1; const n = await db.e7.countDocuments(); print(base, n);' },
    { name: 'b.js', code: 'const base = 2; print(base);' },
  ]);
  assert.equal(r.error, null);
  assert.equal(r.text, '1 0\n2');
});

function runner(files, extra = []) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rt-'));
  const paths = files.map(([name, code]) => {
    const p = path.join(dir, name);
    fs.writeFileSync(p, code);
    return p;
  });
  return spawnSync(process.execPath, [path.join(root, 'tools', 'run-script.mjs'), ...extra, ...paths], { encoding: 'utf8' });
}

test('errors: the runner exits 1 on an uncaught error and prints it as mongosh does', () => {
  const r = runner([['one.js', 'print("ok");\n'], ['two.js', 'db.r.insertOne({ _id: 1 });\ndb.r.insertOne({ _id: 1 });\n'], ['three.js', 'print("never");\n']]);
  assert.equal(r.status, 1);
  assert.equal(r.stdout, 'ok\n');
  assert.equal(r.stderr, 'MongoServerError: E11000 duplicate key error collection: test.r index: _id_ dup key: { _id: 1 }\n    at two.js:2:6\n');
});

test('errors: the runner\'s per-file time limit', () => {
  const r = runner([['loop.js', 'print("start");\nwhile (true) {}\n']], ['--timeout=300']);
  assert.equal(r.status, 1);
  assert.equal(r.stdout, 'start\n');
  assert.equal(r.stderr, 'Error: Script execution timed out after 300ms\n');
});
