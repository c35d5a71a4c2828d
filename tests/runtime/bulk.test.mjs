// Bulk writes as the driver splits them (www/runtime/bulk.js): an insertMany (statements of one
// kind) serializes each document straight into its command's bytes. The commands must be those
// js-bson writes for `{ insert, documents, ordered }`, split at 100 000 statements and at 16 MiB,
// with the same results, errors and statement indexes as before.
import test from 'node:test';
import assert from 'node:assert/strict';
import vm from 'node:vm';
import { BSON } from 'bson';
import { createShellContext, runFile } from '../../tools/run-script.mjs';

async function runWrites(code) {
  const { context } = createShellContext({ onOutput: (_s, text) => printed.push(text) });
  const printed = [];
  const report = await runFile(context, code, 'bulk.js', 120000, { writes: true });
  assert.equal(report.error, null, JSON.stringify(report.error));
  return { writes: report.writes, printed };
}

test('bulk: an insertMany past 100 000 documents is two commands, byte for byte what js-bson writes', async () => {
  const { writes, printed } = await runWrites(`
    const docs = [];
    for (let i = 0; i < 100001; i++) docs.push({ _id: i, s: 'x' + (i % 7), n: i * 0.5 });
    const r = db.c.insertMany(docs, { ordered: false });
    print(Object.keys(r.insertedIds).length, r.insertedIds[100000], db.c.countDocuments());
  `);
  assert.deepEqual(printed, ['100001 100000 100001']);
  assert.equal(writes.length, 2);
  const docs = [];
  for (let i = 0; i < 100001; i++) docs.push({ _id: i, s: 'x' + (i % 7), n: i * 0.5 });
  const expect = [
    BSON.serialize({ insert: 'c', documents: docs.slice(0, 100000), ordered: false }),
    BSON.serialize({ insert: 'c', documents: docs.slice(100000), ordered: false }),
  ];
  for (let i = 0; i < 2; i++) assert.deepEqual(Buffer.from(writes[i].bson), Buffer.from(expect[i]), `command ${i}`);
});

test('bulk: documents past 16 MiB go into the next command; errors name the statement of the whole write', async () => {
  const { writes, printed } = await runWrites(`
    const big = 'y'.repeat(3 * 1024 * 1024);
    const docs = [];
    for (let i = 0; i < 7; i++) docs.push({ _id: i % 6, big });
    try { db.d.insertMany(docs); } catch (e) {
      print(e.name, e.writeErrors.map((w) => w.index + ':' + w.code).join(','), e.result.insertedCount);
      print(e.writeErrors[0].getOperation()._id, Object.keys(e.insertedIds).join(','), e.result.result.insertedIds.length);
    }
    try { db.e.insertMany(docs, { ordered: false }); } catch (e) { print(e.name, e.writeErrors.map((w) => w.index + ':' + w.code).join(','), e.result.insertedCount); }
    print(db.d.countDocuments(), db.e.countDocuments());
  `);
  assert.deepEqual(printed, ['MongoBulkWriteError 6:11000 6', '0 0,1,2,3,4,5 7', 'MongoBulkWriteError 6:11000 6', '6 6']);
  // 16 MiB holds five documents of 3 MiB: commands of 5 and 2 documents, in each collection.
  const counts = Array.from(writes, (w) => BSON.deserialize(w.bson).documents.length);
  assert.deepEqual(counts, [5, 1, 5, 1]);
});

test('bulk: an insertMany of several commands makes room for all of them at once, and no command then grows the memory', async () => {
  const { context, engine } = createShellContext({ onOutput: () => {} });
  context.__e = engine;
  // Every call into the engine, with the memory's size before and after it.
  const calls = vm.runInContext(`(() => {
    const calls = [];
    const memory = () => wasm_bindgen.initSync({ module: new Uint8Array(0) }).memory.buffer.byteLength;
    const proto = Object.getPrototypeOf(__e);
    for (const name of ['reserve', 'command']) {
      const f = proto[name];
      __e[name] = function (arg) {
        const before = memory();
        const r = f.call(this, arg);
        calls.push({ name, bytes: typeof arg === 'number' ? arg : arg.length, before, after: memory() });
        return r;
      };
    }
    return calls;
  })()`, context);
  const report = await runFile(context, `
    const docs = [];
    for (let i = 0; i < 250000; i++) docs.push({ _id: i, s: 'x' + (i % 7), n: i * 0.5 });
    print(db.c.insertMany(docs).insertedIds[249999]);
  `, 'reserve.js', 120000);
  assert.equal(report.error, null, JSON.stringify(report.error));
  const reserve = calls.filter((c) => c.name === 'reserve');
  const inserts = calls.filter((c) => c.name === 'command');
  assert.equal(reserve.length, 1);
  assert.equal(inserts.length, 3, 'three commands of at most 100 000 documents');
  assert.equal(reserve[0].bytes, inserts.reduce((n, c) => n + c.bytes, 0), 'the room asked for is what the commands hold');
  assert.ok(reserve[0].after - reserve[0].before >= 3 * reserve[0].bytes, `room made at once: ${reserve[0].after - reserve[0].before} bytes`);
  for (const c of inserts) assert.equal(c.after, c.before, 'a command found its room made');
});
