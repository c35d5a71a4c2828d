// The lesson seed's seven mongosh scripts (../shared/seeds/002_*.txt), read from the seed at test
// time (the repo keeps no copy of them), run unchanged and in order against one database, must
// print every deterministic figure the seed shows from mongo 8.3.11. Timings are not asserted.
//
// How a script is cut out of the seed: it starts on the line after `mongosh/<name>.js`; its block
// runs to the first blank line; the code is the block up to its last line ending in ";". What the
// seed printed follows (after blank lines when the block ends with the code) up to a blank line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { run, sharedDir } from './helpers.mjs';

const NAMES = ['pat-seed', 'pat-subset', 'pat-computed', 'pat-bucket', 'pat-timeseries', 'pat-extended-reference', 'pat-computed-fix'];

export function extractSeedScripts(text) {
  const lines = text.split('\n');
  const scripts = new Map();
  lines.forEach((line, i) => {
    const m = /^mongosh\/([\w-]+)\.js\s*$/.exec(line);
    if (!m) return;
    const block = [];
    for (let j = i + 1; j < lines.length && lines[j].trim() !== ''; j++) block.push(lines[j]);
    let last = -1;
    block.forEach((l, k) => {
      if (l.trimEnd().endsWith(';')) last = k;
    });
    // what the seed printed: right after the code, or after blank lines when the block ends there
    let p = i + 1 + last + 1;
    while (p < lines.length && lines[p].trim() === '') p++;
    const printed = [];
    for (; p < lines.length && lines[p].trim() !== ''; p++) printed.push(lines[p]);
    scripts.set(m[1], { code: block.slice(0, last + 1).join('\n') + '\n', printed });
  });
  return scripts;
}

const seedText = fs.readFileSync(path.join(sharedDir(), 'seeds', '002_fd086451ebe7dd4c.txt'), 'utf8');
const scripts = extractSeedScripts(seedText);

test('seed: the seven scripts are found in the seed', () => {
  assert.deepEqual([...scripts.keys()], NAMES);
  for (const [name, { code }] of scripts) assert.ok(code.length > 100, `${name} has code`);
});

const result = await run(NAMES.map((name) => ({ name: `${name}.js`, code: scripts.get(name).code })), { continueOnError: true, timeout: 120000 });
const report = Object.fromEntries(result.reports.map((r) => [r.name.replace(/\.js$/, ''), r]));
const lines = (name) => (report[name]?.text ?? '').split('\n');
const printed = (name) => scripts.get(name).printed;

function noError(name) {
  const e = report[name]?.error;
  assert.equal(e, null, e ? `${name} threw ${e.name}: ${e.message} (line ${e.line})` : '');
}

test('seed pat-seed: 2156196 and 1154 bytes', () => {
  noError('pat-seed');
  assert.deepEqual(lines('pat-seed'), printed('pat-seed'));
  assert.match(lines('pat-seed')[0], /one fat document: 2156196 bytes \| subset document: 1154 bytes$/);
});

test('seed pat-subset: 10001 reviews counted, 5 kept inline, newest by Grace, 3 older fetched', () => {
  noError('pat-subset');
  const out = lines('pat-subset');
  assert.match(out[0], /^1 000 product-page reads, fat document : \d+ ms \(even with a \$slice projection\)$/);
  assert.match(out[1], /^1 000 product-page reads, subset {7}: \d+ ms$/);
  assert.equal(out[2], printed('pat-subset')[2]);
  assert.equal(out[2], 'after the new review: 10001 reviews counted; 5 kept inline; newest is by Grace');
  assert.equal(out[3], printed('pat-subset')[3]);
  assert.equal(out[3], 'the full list is still one indexed query away: 3 older reviews fetched');
});

test('seed pat-computed: { stored_total: 134, itemCount: 4, recomputed_from_items: 134 }, 134 against 137, 1 drifted', () => {
  noError('pat-computed');
  assert.deepEqual(lines('pat-computed'), printed('pat-computed'));
  assert.equal(lines('pat-computed')[0], '{ stored_total: 134, itemCount: 4, recomputed_from_items: 134 }');
  assert.match(lines('pat-computed')[1], /\{ stored_total: 134, real_total: 137 \}$/);
  assert.match(lines('pat-computed')[2], /: 1$/);
});

test('seed pat-bucket: 20000 and 112 documents, a full bucket of 200, 20000 readings', () => {
  noError('pat-bucket');
  const out = lines('pat-bucket').join('\n');
  assert.match(out, /plain: \{ documents: 20000, ingestMs: \d+, indexKB: \d+ \}/);
  assert.match(out, /bucketed: \{ documents: 112, ingestMs: \d+, indexKB: \d+ \}/);
  assert.ok(out.endsWith('\na full bucket: 200 readings in one document; readings in the collection: 20000'), out);
});

// Time series collections (their buckets and stats) are a later engine task: until the engine
// reports bucket stats, this test runs and reports as TODO (it fails without failing the suite);
// it turns strict by itself after.
const probe = await run("db.createCollection('probe', { timeseries: { timeField: 't' } }); db.probe.insertOne({ t: new Date(0) }); print(typeof db.probe.stats().timeseries?.bucketCount);");
const timeseries = probe.text === 'number';

test('seed pat-timeseries: 20000 visible in 56 buckets (357 per bucket), 1301 KB and 731 KB, avg 24.9', { todo: timeseries ? false : 'the engine has no time series collections yet' }, () => {
  noError('pat-timeseries');
  const out = lines('pat-timeseries');
  assert.equal(out[0], '{ visibleDocuments: 20000, buckets: 56, avgReadingsPerBucket: 357 }');
  assert.match(out[1], /^data size KB - one document per reading: 1301 \| hand-made buckets: 731 \| time series collection: \d+$/);
  assert.equal(out[2], 'query it like any collection: [ { avg: 24.9 } ]');
});

test('seed pat-extended-reference: the order row as printed, 2500 stale, 2500 refreshed, 0 left', () => {
  noError('pat-extended-reference');
  const out = lines('pat-extended-reference');
  const seed = printed('pat-extended-reference');
  assert.deepEqual(out.slice(0, 6), seed.slice(0, 6));
  assert.equal(out.slice(0, 5).join('\n'), "order list row, no lookup needed: {\n  _id: 'o1',\n  customer: { id: 'cust_77', name: 'Grace Hopper', city: 'Cambridge' },\n  total: 11\n}");
  assert.equal(out[5], 'orders now showing the old city: 2500');
  assert.match(out[6], /^refresh copies: 2500 orders updated in \d+ ms; still stale: 0$/);
});

test('seed pat-computed-fix: { stored_total: 137, real_total: 137, ordersOutOfSync: 0 }', () => {
  noError('pat-computed-fix');
  assert.deepEqual(lines('pat-computed-fix'), printed('pat-computed-fix'));
  assert.equal(lines('pat-computed-fix')[0], '{ stored_total: 137, real_total: 137, ordersOutOfSync: 0 }');
});
