#!/usr/bin/env node
// make bench (the scaling table): the operations of a real collection at 10 000, 100 000 and
// 1 000 000 documents, through the Node runner (build/runtime.js + the engine's wasm, as `make
// script`) and through mingo (bench/mingo-adapter.mjs) in the same run: seconds per operation,
// the growth factor for 10x the data (target: at most 12x), the ratio to mingo at each size
// (target at 100 000: at least 2x, find().toArray() at least 1x), and the wasm memory's size
// per document against the documents' BSON bytes.
//
// Usage: node tools/bench-scale.mjs [--sizes=10000,100000,1000000] [--no-mingo=1000000]
//   --sizes      the collection sizes (default 10 000 and 100 000: at 1 000 000 the engine's wasm
//                memory, about 7 KB per document today, does not fit in 4 GB; the native table
//                of benches/scale.rs has 1 000 000)
//   --no-mingo   sizes at which mingo is not run (default none)
import vm from 'node:vm';
import { createShellContext, runFile, formatUncaught } from './run-script.mjs';
import { createMingoDb } from '../bench/mingo-adapter.mjs';
import { table } from './bench.mjs';

/** The script run at each size on both engines: `measure(name, fn)` times one operation. Data
 * is generated before the timed part; every operation prints a figure both must agree on. */
function script(n) {
  return `
const N = ${n};
const docs = new Array(N);
for (let i = 0; i < N; i++) {
  docs[i] = { _id: i, sensor: 's' + String(i % 1000).padStart(3, '0'), t: new Date(1704067200000 + i * 1000), v: ((i * 7919) % 10000) / 100, tags: ['a', 'b'] };
}
measure('insertMany (one call)', () => db.r.insertMany(docs));
measure('createIndex({sensor: 1, v: 1})', () => db.r.createIndex({ sensor: 1, v: 1 }));
let found;
measure('find({v: {$lt: 48}}).toArray()', () => { found = db.r.find({ v: { $lt: 48 } }).toArray(); });
print('find ' + found.length);
found = null;
let groups;
measure('$match + $group + $sort', () => {
  groups = db.r.aggregate([
    { $match: { v: { $gte: 10 } } },
    { $group: { _id: '$sensor', n: { $sum: 1 }, avg: { $avg: '$v' } } },
    { $sort: { avg: -1, _id: 1 } },
  ]).toArray();
});
print('groups ' + groups.length + ' ' + groups[0]._id + ' ' + groups[0].n);
let sorted;
measure('$sort (all) + $group', () => {
  sorted = db.r.aggregate([{ $sort: { v: -1, _id: 1 } }, { $group: { _id: null, first: { $first: '$_id' }, n: { $sum: 1 } } }]).toArray();
});
print('sorted ' + sorted[0].first + ' ' + sorted[0].n);
const sensors = [];
for (let i = 0; i < 1000; i++) sensors.push({ _id: 's' + String(i).padStart(3, '0'), site: i % 10 });
db.sensors.insertMany(sensors);
let joined;
measure('$lookup + $group', () => {
  joined = db.r.aggregate([
    { $lookup: { from: 'sensors', localField: 'sensor', foreignField: '_id', as: 's' } },
    { $group: { _id: { $first: '$s.site' }, n: { $sum: 1 } } },
    { $sort: { _id: 1 } },
  ]).toArray();
});
print('joined ' + joined.length + ' ' + joined[0].n);
let updated;
measure('updateMany({}, {$inc, $push})', () => { updated = db.r.updateMany({}, { $inc: { v: 1 }, $push: { tags: 'x' } }); });
print('updated ' + updated.modifiedCount);
let deleted;
measure('deleteMany (half)', () => { deleted = db.r.deleteMany({ v: { $lt: 51 } }); });
print('deleted ' + deleted.deletedCount);
if (typeof upserts !== 'undefined' && upserts) {
  const ops = new Array(N);
  for (let i = 0; i < N; i++) ops[i] = { updateOne: { filter: { _id: i }, update: { $set: { w: 1 } }, upsert: true } };
  let up;
  measure('bulkWrite upserts (update cmd)', () => { up = db.u.bulkWrite(ops); });
  print('upserted ' + up.upsertedCount);
}
`;
}

/** `measure(name, fn)`: the process's CPU seconds (user + system) `fn` took, into `times`. CPU
 * time rather than wall time: on a shared machine the wall clock measures the neighbours. */
function cpuMeasure(times) {
  return (name, fn) => {
    const t = process.cpuUsage();
    const r = fn();
    const d = process.cpuUsage(t);
    times.set(name, (d.user + d.system) / 1e6);
    return r;
  };
}

function oursAt(n) {
  const printed = [];
  const { context } = createShellContext({ onOutput: (_s, text) => printed.push(text) });
  const times = new Map();
  context.measure = cpuMeasure(times);
  context.upserts = true;
  // initSync hands back the instance's exports once initialized: the memory's size after the run.
  const memory = () => vm.runInContext('wasm_bindgen.initSync({ module: new Uint8Array(0) }).memory.buffer.byteLength', context);
  return { context, printed, times, memory };
}

async function runOurs(n) {
  const o = oursAt(n);
  const before = o.memory();
  const report = await runFile(o.context, script(n), `scale-${n}.js`, 0);
  if (report.error) throw new Error(`ours at ${n}: ${formatUncaught(report.error, 'scale.js')}`);
  return { times: o.times, output: o.printed.join('\n'), memory: o.memory() - before };
}

async function runMingo(n) {
  const printed = [];
  const times = new Map();
  const measure = cpuMeasure(times);
  const print = (...args) => printed.push(args.map(String).join(' '));
  const fn = new Function('db', 'print', 'measure', 'upserts', script(n));
  fn(createMingoDb(), print, measure, false);
  return { times, output: printed.join('\n') };
}

function bsonBytes(n) {
  // The same documents' BSON sizes (js-bson), for the memory figure.
  return import('bson').then(({ BSON }) => {
    let total = 0;
    for (let i = 0; i < n; i++) {
      total += BSON.calculateObjectSize({ _id: i, sensor: 's' + String(i % 1000).padStart(3, '0'), t: new Date(1704067200000 + i * 1000), v: ((i * 7919) % 10000) / 100, tags: ['a', 'b'] });
    }
    return total;
  });
}

const fmt = (s) => (s === undefined ? '-' : s >= 10 ? s.toFixed(1) : s >= 0.1 ? s.toFixed(2) : s.toFixed(3));

async function main(argv) {
  let sizes = [10000, 100000];
  let noMingo = new Set();
  for (const a of argv) {
    if (a.startsWith('--sizes=')) sizes = a.slice(8).split(',').map(Number);
    if (a.startsWith('--no-mingo=')) noMingo = new Set(a.slice(11).split(',').map(Number));
  }
  const ours = [];
  const mingo = [];
  const memory = [];
  for (const n of sizes) {
    process.stderr.write(`scale: ${n} documents, ours...\n`);
    const a = await runOurs(n);
    ours.push(a.times);
    memory.push({ n, wasm: a.memory, bson: await bsonBytes(n) });
    if (noMingo.has(n)) {
      mingo.push(new Map());
      continue;
    }
    process.stderr.write(`scale: ${n} documents, mingo...\n`);
    const b = await runMingo(n);
    mingo.push(b.times);
    const strip = (s) => s.split('\n').filter((l) => !l.startsWith('upserted')).join('\n');
    if (strip(a.output) !== strip(b.output)) process.stderr.write(`scale ${n}: results differ\n  ours:  ${a.output}\n  mingo: ${b.output}\n`);
  }
  const ops = [...ours[0].keys()];
  const rows = [];
  let worst = 0;
  for (const op of ops) {
    const row = [op];
    for (let i = 0; i < sizes.length; i++) row.push(`${fmt(ours[i].get(op))} / ${fmt(mingo[i].get(op))}`);
    for (let i = 1; i < sizes.length; i++) {
      const g = ours[i].get(op) / ours[i - 1].get(op);
      if (ours[i].get(op) > 0.005) worst = Math.max(worst, g);
      row.push(`x${g.toFixed(1)}`);
    }
    const at = sizes.indexOf(100000);
    if (at >= 0 && mingo[at].has(op)) {
      const r = mingo[at].get(op) / ours[at].get(op);
      const need = op.startsWith('find') ? 1 : 2;
      row.push(`${r.toFixed(1)}x ${r >= need ? 'met' : 'MISSED'}`);
    } else row.push('-');
    rows.push(row);
  }
  const headers = ['operation', ...sizes.map((n) => `${n} ours / mingo s`), ...sizes.slice(1).map((n, i) => `x${sizes[i]}->${n}`), 'vs mingo at 100k'];
  process.stdout.write(`\nScaling through the Node runner vs mingo (CPU seconds, one run each)\n${table(rows, headers)}\n`);
  process.stdout.write(`scale: worst growth for 10x data x${worst.toFixed(1)} (target <= 12x: ${worst <= 12 ? 'met' : 'MISSED'})\n`);
  for (const m of memory) {
    process.stdout.write(`scale memory at ${m.n}: wasm memory grew ${(m.wasm / m.n).toFixed(1)} bytes per document for ${(m.bson / m.n).toFixed(1)} BSON bytes (${(m.wasm / m.bson).toFixed(2)}x; the memory never shrinks, so this includes every operation's peak)\n`);
  }
  const at1m = sizes.indexOf(1000000);
  if (at1m >= 0) {
    const t = ours[at1m].get('insertMany (one call)');
    process.stdout.write(`scale: insertMany of 1 000 000 documents ${fmt(t)} s (target <= 10 s: ${t <= 10 ? 'met' : 'MISSED'})\n`);
  }
  return 0;
}

process.exitCode = await main(process.argv.slice(2));
