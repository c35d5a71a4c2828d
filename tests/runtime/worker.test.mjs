// The browser side: www/worker.js with build/runtime.js and build/engine in headless Chromium
// (playwright-core and Debian's /usr/bin/chromium), started as the site starts it, inside the
// engine's sandbox (www/sandbox.js), and speaking the protocol written at the top of worker.js.
// The output pane must show exactly what `make script` prints for the same script.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { run } from './helpers.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

const FILES = {
  '/index.html': { type: 'text/html', body: '<!doctype html><title>worker test</title><script src="sandbox.js"></script>' },
  '/sandbox.js': { type: 'text/javascript', file: path.join(root, 'www', 'sandbox.js') },
  '/worker.js': { type: 'text/javascript', file: path.join(root, 'www', 'worker.js') },
  '/runtime.js': { type: 'text/javascript', file: path.join(root, 'build', 'runtime.js') },
  '/engine/engine.js': { type: 'text/javascript', file: path.join(root, 'build', 'engine', 'engine.js') },
  '/engine/engine_bg.wasm': { type: 'application/wasm', file: path.join(root, 'build', 'engine', 'engine_bg.wasm') },
  '/tz/zones.tzdb': { type: 'application/octet-stream', file: path.join(root, 'build', 'tz', 'zones.tzdb') },
};

let server;
let browser;
let page;

before(async () => {
  server = http.createServer((req, res) => {
    const f = FILES[new URL(req.url, 'http://x').pathname];
    if (!f) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': f.type });
    res.end(f.file ? fs.readFileSync(f.file) : f.body);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { chromium } = await import('playwright-core');
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  page = await browser.newPage();
  await page.goto(`http://127.0.0.1:${server.address().port}/index.html`);
  const first = await page.evaluate(() => new Promise((resolve) => {
    const w = window.ppSandbox.start();
    const pending = new Map();
    let next = 1;
    window.call = (msg) => new Promise((res) => {
      const id = next++;
      pending.set(id, res);
      w.postMessage({ id, ...msg });
    });
    w.onmessage = (e) => {
      if (e.data.id === undefined) resolve(e.data);
      else {
        pending.get(e.data.id)(e.data);
        pending.delete(e.data.id);
      }
    };
  }));
  assert.equal(first.kind, 'ready');
  // With its start-up times (ms since the epoch; tools/tti.mjs), in the order the steps happen.
  const steps = ['script', 'boot', 'compiled', 'instance', 'session'];
  assert.deepEqual(Object.keys(first.started).sort(), [...steps].sort());
  for (let i = 1; i < steps.length; i++) assert.ok(first.started[steps[i]] >= first.started[steps[i - 1]], `${steps[i]} after ${steps[i - 1]}`);
});

after(async () => {
  await browser?.close();
  server?.close();
});

const call = (msg) => page.evaluate((m) => window.call(m), msg);

test('worker: a run answers with output, error, cost and writes', async () => {
  const r = await call({ kind: 'run', code: "print('hi');\ndb.w.insertOne({ _id: 1, a: 1 });\nprint(db.w.findOne());\n", filename: 'one.js' });
  assert.equal(r.kind, 'run');
  assert.deepEqual(r.output, [{ stream: 'out', text: 'hi' }, { stream: 'out', text: '{ _id: 1, a: 1 }' }]);
  assert.equal(r.error, null);
  assert.deepEqual(Object.keys(r.cost), ['docsExamined', 'keysExamined', 'docsReturned', 'bytesRead', 'bytesWritten']);
  assert.equal(r.writes.length, 1);
  assert.equal(r.writes[0].collection, 'w');
  assert.deepEqual(JSON.parse(r.writes[0].command), { insert: 'w', documents: [{ _id: { $numberInt: '1' }, a: { $numberInt: '1' } }], ordered: true });
});

test('worker: a script reaches none of the site\'s storage, caches or network, and leaves no timer behind', async () => {
  const site = JSON.stringify(`http://127.0.0.1:${server.address().port}/`);
  const code = [
    'const out = [];',
    "const probe = async (name, f) => { try { await f(); out.push(name + ' reached'); } catch { out.push(name + ' refused'); } };",
    "await probe('caches', () => caches.open('x'));",
    `await probe('fetch', () => fetch(${site} + 'index.html'));`,
    "await probe('indexedDB', () => new Promise((ok, fail) => { const r = indexedDB.open('x'); r.onsuccess = ok; r.onerror = () => fail(r.error); }));",
    `await probe('importScripts', () => importScripts(${site} + 'sandbox.js'));`,
    "await probe('localStorage', () => localStorage.getItem('x'));",
    'setTimeout(() => { while (true) {} }, 100);',
    "print(out.join(', '));",
  ].join('\n');
  const r = await call({ kind: 'run', filename: 'probe.js', code });
  assert.deepEqual(r.output, [{ stream: 'out', text: 'caches refused, fetch refused, indexedDB refused, importScripts refused, localStorage refused' }]);
  await new Promise((ok) => setTimeout(ok, 500));
  const next = await Promise.race([call({ kind: 'command', command: '{"listCollections":1}' }), new Promise((ok) => setTimeout(() => ok('hung'), 5000))]);
  assert.equal(next.kind, 'command');
});

test('worker: a request it cannot serve is answered with kind "error"', async () => {
  const r = await call({ kind: 'bogus' });
  assert.deepEqual(r, { id: r.id, kind: 'error', error: 'unknown request kind: bogus' });
});

test('worker: errors point at the user\'s script', async () => {
  const r = await call({ kind: 'run', code: "print(1);\ndb.w.insertOne({ _id: 1 });\n", filename: 'two.js' });
  assert.deepEqual(r.output, [{ stream: 'out', text: '1' }]);
  assert.equal(r.error.name, 'MongoServerError');
  assert.equal(r.error.code, 11000);
  assert.equal(r.error.line, 2);
  assert.equal(r.error.column, 6);
});

test('worker: a syntax error is located in the user\'s script', async () => {
  let r = await call({ kind: 'run', code: 'print(1);\nconst x = ;\n', filename: 'syntax.js' });
  assert.deepEqual(r.output, []);
  assert.deepEqual([r.error.name, r.error.line, r.error.column], ['SyntaxError', 2, 11]);
  r = await call({ kind: 'run', code: 'print(1; print(2);', filename: 'syntax1.js' });
  assert.deepEqual([r.error.name, r.error.line, r.error.column], ['SyntaxError', 1, 7]);
});

test('worker: commands in canonical EJSON, snapshot, restore and reset', async () => {
  let r = await call({ kind: 'command', command: '{"count":"w"}' });
  assert.deepEqual(JSON.parse(r.reply), { n: { $numberInt: '1' }, ok: { $numberDouble: '1.0' } });
  const saved = await page.evaluate(() => window.call({ kind: 'snapshot' }).then((s) => {
    window.snapshotBytes = s.bytes;
    return [s.bytes instanceof Uint8Array, s.bytes.length];
  }));
  assert.equal(saved[0], true);
  assert.ok(saved[1] > 0);
  r = await call({ kind: 'reset' });
  assert.deepEqual(r, { id: r.id, kind: 'reset' });
  r = await call({ kind: 'command', command: '{"count":"w"}' });
  assert.equal(JSON.parse(r.reply).n.$numberInt, '0');
  r = await page.evaluate(() => window.call({ kind: 'restore', bytes: window.snapshotBytes }));
  assert.equal(r.kind, 'restore');
  assert.equal(r.error, undefined);
  r = await call({ kind: 'command', command: '{"count":"w"}' });
  assert.equal(JSON.parse(r.reply).n.$numberInt, '1');
  // A restored engine is still a replica set member: transactions work.
  r = await call({ kind: 'run', filename: 'txn.js', code: 'const s = db.getMongo().startSession(); s.withTransaction(() => s.getDatabase("test").w.insertOne({ t: 1 })); print(db.w.countDocuments())' });
  assert.equal(r.error, null, r.error?.message);
  assert.deepEqual(r.output.map((o) => o.text), ['2']);
  // Export: a collection as mongoexport and mongodump write it.
  const lines = await page.evaluate(() => window.call({ kind: 'export', db: 'test', collection: 'w', format: 'canonical' }).then((e) => new TextDecoder().decode(e.bytes)));
  assert.equal(lines.split('\n').filter(Boolean).length, 2);
  r = await call({ kind: 'export', db: 'test', collection: 'nope', format: 'json' });
  assert.equal(r.kind, 'error');
  assert.match(r.error, /no collection test\.nope/);
});

test('worker: writes carry their BSON bytes, and a replay of the bytes rebuilds the same documents', async () => {
  await call({ kind: 'reset' });
  // A subdocument whose key is "$date" (a string value): Extended JSON text would read it as a Date.
  const r = await page.evaluate(() => window.call({
    kind: 'run',
    filename: 'typed.js',
    code: "db.t.insertOne({ _id: 1, a: { $date: '2020-01-01T00:00:00Z' } });\ndb.t.insertOne({ _id: 2, plain: 1 });\ndb.t.insertMany([{ _id: 3 }, { _id: 2 }], { ordered: false });",
  }).then((r) => {
    window.loggedWrites = r.writes;
    return { error: r.error, writes: r.writes.map((w) => ({ collection: w.collection, bytes: w.bson instanceof Uint8Array, inexact: w.inexact ?? false, command: w.command })) };
  }));
  assert.equal(r.error?.code, 11000);
  assert.deepEqual(r.writes.map((w) => [w.collection, w.bytes, w.inexact]), [['t', true, true], ['t', true, false], ['t', true, false]]);
  // The partly failed insertMany keeps only the statement that was applied, in its bytes too.
  assert.deepEqual(JSON.parse(r.writes[2].command).documents, [{ _id: { $numberInt: '3' } }]);
  const before = await call({ kind: 'command', command: '{"find":"t"}' });
  await call({ kind: 'reset' });
  const replies = await page.evaluate(async () => {
    const out = [];
    for (const w of window.loggedWrites) out.push((await window.call({ kind: 'commandBson', bson: w.bson })).reply);
    return out;
  });
  for (const reply of replies) assert.equal(JSON.parse(reply).ok.$numberDouble, '1.0', reply);
  const after = await call({ kind: 'command', command: '{"find":"t"}' });
  assert.deepEqual(JSON.parse(after.reply).cursor.firstBatch, JSON.parse(before.reply).cursor.firstBatch);
  assert.deepEqual(JSON.parse(after.reply).cursor.firstBatch[0], { _id: { $numberInt: '1' }, a: { $date: '2020-01-01T00:00:00Z' } });
  assert.equal(JSON.parse(after.reply).cursor.firstBatch.length, 3);
});

test('worker: several databases: writes name theirs in $db, $merge/$out are logged, a replay of their bytes goes back there, every Run starts on "test"', async () => {
  await call({ kind: 'reset' });
  const code = [
    'db.orders.insertOne({ _id: 1 });',
    'const archive = db.getSiblingDB("archive");',
    'archive.orders.insertMany([{ _id: 2 }, { _id: 3 }, { _id: 4 }]);',
    'archive.orders.bulkWrite([{ deleteOne: { filter: { _id: 4 } } }]);',
    'db.orders.aggregate([{ $merge: { into: { db: "archive", coll: "copy" } } }]);',
    'db.orders.aggregate([{ $match: {} }]).toArray();',
    'print(archive.orders.find().batchSize(1).toArray().length, db.getMongo().getDBNames().join(","));',
    'db = archive;',
  ].join('\n');
  const r = await page.evaluate((code) => window.call({ kind: 'run', filename: 'dbs.js', code }).then((r) => {
    window.loggedWrites = r.writes;
    return { error: r.error, output: r.output.map((o) => o.text), commands: r.writes.map((w) => JSON.parse(w.command)) };
  }), code);
  assert.equal(r.error, null, r.error?.message);
  assert.deepEqual(r.output, ['2 archive,test']);
  assert.deepEqual(r.commands.map((c) => [Object.keys(c)[0], c.$db ?? null]), [['insert', null], ['insert', 'archive'], ['delete', 'archive'], ['aggregate', null]]);
  // The next Run starts on "test" again, as a new mongosh would.
  const next = await call({ kind: 'run', filename: 'next.js', code: 'print(db.getName())' });
  assert.deepEqual(next.output.map((o) => o.text), ['test']);
  await call({ kind: 'reset' });
  await page.evaluate(async () => {
    for (const w of window.loggedWrites) await window.call({ kind: 'commandBson', bson: w.bson });
  });
  const archived = await call({ kind: 'command', command: '{"find":"orders","$db":"archive"}' });
  assert.deepEqual(JSON.parse(archived.reply).cursor.firstBatch, [{ _id: { $numberInt: '2' } }, { _id: { $numberInt: '3' } }]);
  const copy = await call({ kind: 'command', command: '{"find":"copy","$db":"archive"}' });
  assert.deepEqual(JSON.parse(copy.reply).cursor.firstBatch, [{ _id: { $numberInt: '1' } }]);
  const test = await call({ kind: 'command', command: '{"find":"orders"}' });
  assert.deepEqual(JSON.parse(test.reply).cursor.firstBatch, [{ _id: { $numberInt: '1' } }]);
});

test('worker: only a committed transaction\'s writes reach the write log, without their session fields', async () => {
  await call({ kind: 'reset' });
  const code = [
    'db.t.insertOne({ _id: 0 });',
    'const s = db.getMongo().startSession();',
    'const t = s.getDatabase("test").t;',
    's.startTransaction(); t.insertOne({ _id: 1 }); s.abortTransaction();',
    's.withTransaction(() => { t.insertOne({ _id: 2 }); t.updateOne({ _id: 0 }, { $set: { x: 1 } }); });',
  ].join('\n');
  const r = await call({ kind: 'run', filename: 'txn.js', code });
  assert.equal(r.error, null, r.error?.message);
  const commands = r.writes.map((w) => JSON.parse(w.command));
  assert.deepEqual(commands.map((c) => [Object.keys(c)[0], c.documents?.[0]?._id?.$numberInt ?? null]), [['insert', '0'], ['insert', '2'], ['update', null]]);
  for (const c of commands) assert.deepEqual(['lsid', 'txnNumber', 'autocommit', 'startTransaction'].filter((k) => k in c), []);
});

const SAME = [
  "print({ _id: ObjectId('5fa5694f88211043b23c7f11'), at: ISODate('2024-01-02T03:04:05.678Z'), n: NumberLong(5), d: NumberDecimal('1.5') })",
  "db.same.insertMany(Array.from({ length: 30 }, (_, i) => ({ _id: i, name: 'user ' + i, tags: ['a', 'b'], at: new Date(i * 1000) })));\nprint(db.same.find({ _id: { $lt: 25 } }).toArray());\nprint(db.same.find());",
  "print(db.same.aggregate([{ $group: { _id: null, n: { $sum: 1 } } }]).toArray(), db.same.countDocuments({ _id: { $gte: 10 } }));\nconsole.log(db.same.updateMany({}, { $set: { x: 1 } }));",
  "printjson({ a: [1, { b: 2 }] }); print(UUID('01234567-89ab-cdef-0123-456789abcdef'), Timestamp({ t: 1, i: 2 }), MinKey());",
];

test('worker: the output pane shows exactly what `make script` prints', async () => {
  await call({ kind: 'reset' });
  const pane = [];
  for (const [i, code] of SAME.entries()) {
    const r = await call({ kind: 'run', code, filename: `same${i}.js` });
    assert.equal(r.error, null, r.error?.message);
    pane.push(...r.output.map((o) => o.text));
  }
  const node = await run(SAME.map((code, i) => ({ name: `same${i}.js`, code })));
  assert.equal(node.error, null);
  assert.equal(pane.join('\n'), node.text);
});

test('worker: a run reports how it made its ObjectIds, and given that it makes the same ones again', async () => {
  const code = [
    'db.o.insertMany(Array.from({ length: 300 }, (_, i) => ({ i })));',
    'db.o.insertOne({ i: 300, ref: new ObjectId(), at: ObjectId.createFromTime(86400) });',
    'print(db.o.countDocuments())',
  ].join('\n');
  const find = async () => JSON.parse((await call({ kind: 'command', command: '{"find":"o","sort":{"i":1},"batchSize":1000}' })).reply).cursor.firstBatch;
  await call({ kind: 'reset' });
  const first = await call({ kind: 'run', code, filename: 'ids.js' });
  assert.equal(first.error, null);
  assert.ok(Number.isSafeInteger(first.ids.seed), JSON.stringify(first.ids));
  // One ObjectId per inserted document and one for `ref`; the explicit time is not the clock's.
  assert.equal(first.ids.times.reduce((n, [, count]) => n + count, 0), 302);
  const docs = await find();
  assert.equal(docs.length, 301);
  assert.equal(new Set(docs.map((d) => d._id.$oid)).size, 301);
  assert.equal(docs[300].at.$oid.slice(0, 8), '00015180');
  // Again, on an empty database, later, with the reported ids: the very same documents.
  await new Promise((r) => setTimeout(r, 1100));
  await call({ kind: 'reset' });
  const again = await call({ kind: 'run', code, filename: 'ids.js', ids: first.ids });
  assert.deepEqual(again.ids, first.ids);
  assert.deepEqual(await find(), docs);
  // A new run without them: other ObjectIds.
  await call({ kind: 'reset' });
  const other = await call({ kind: 'run', code, filename: 'ids.js' });
  assert.notEqual(other.ids.seed, first.ids.seed);
  assert.notDeepEqual((await find()).map((d) => d._id), docs.map((d) => d._id));
});

// Last: it hands the worker the time-zone file (this page never fires `pp-ready`, so nothing
// fetched it before).
test('worker: a request that meets a named time zone before the time-zone file is answered "needsTimeZones", even when the script catches the error; with the file, the server\'s answer', async () => {
  await call({ kind: 'reset' });
  const code = [
    "db.tz.insertOne({ _id: 1, d: ISODate('2024-07-01T00:00:00Z'), z: 'Europe/Paris' });",
    "try { db.tz.find().forEach((d) => print(d._id)); printjson(db.tz.aggregate([{ $project: { _id: 0, ny: { $dateToString: { date: '$d', timezone: 'America/New_York' } }, z: { $hour: { date: '$d', timezone: '$z' } } } }]).toArray()); } catch (e) { print('caught', e.code); }",
  ].join('\n');
  const before = await call({ kind: 'run', code, filename: 'tz.js' });
  assert.deepEqual(before, { id: before.id, kind: 'needsTimeZones' });
  const bogus = '{"aggregate":1,"pipeline":[{"$documents":[{}]},{"$project":{"h":{"$hour":{"date":"$$NOW","timezone":"Mars/Base"}}}}],"cursor":{}}';
  let r = await call({ kind: 'command', command: bogus });
  assert.deepEqual(r, { id: r.id, kind: 'needsTimeZones' });
  // Offsets need no file.
  r = await call({ kind: 'command', command: '{"aggregate":1,"pipeline":[{"$documents":[{}]},{"$project":{"_id":0,"h":{"$hour":{"date":{"$date":"2024-07-01T00:00:00Z"},"timezone":"+02:00"}}}}],"cursor":{}}' });
  assert.deepEqual(JSON.parse(r.reply).cursor.firstBatch, [{ h: { $numberInt: '2' } }]);
  // The page fetches the file and hands it to the live worker.
  await page.evaluate(() => window.ppSandbox.timeZones());
  await call({ kind: 'reset' });
  const after = await call({ kind: 'run', code, filename: 'tz.js' });
  assert.equal(after.kind, 'run');
  assert.equal(after.error, null);
  assert.deepEqual(after.output.map((o) => o.text).join('\n'), (await run(code)).text);
  assert.deepEqual(after.output.map((o) => o.text), ['1', "[\n  {\n    ny: '2024-06-30T20:00:00.000',\n    z: 2\n  }\n]"]);
  r = await call({ kind: 'command', command: bogus });
  assert.equal(JSON.parse(r.reply).code.$numberInt, '40485');
});
