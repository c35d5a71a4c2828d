// The engine's WebAssembly carries no time-zone database: it is handed the time-zone file
// (build/tz/zones.tzdb, `wasm_bindgen.loadTimeZones`). Before that a named zone is neither found
// nor unknown (the worker answers such a request "needsTimeZones", tests/runtime/worker.test.mjs);
// after it, zones answer as the server does, 40485 for a name that is none.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import { fileURLToPath } from 'node:url';
import { createShellContext } from '../../tools/run-script.mjs';
import { out } from './helpers.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

const AGG = (timezone) =>
  JSON.stringify({
    aggregate: 1,
    pipeline: [
      { $documents: [{ d: { $date: '2024-07-01T00:00:00Z' } }] },
      { $project: { _id: 0, s: { $dateToString: { date: '$d', timezone } } } },
    ],
    cursor: {},
  });

/** The reply (relaxed-ish: plain JSON of canonical EJSON) and whether a zone was asked for unloaded. */
function ask(context, session, timezone) {
  const reply = JSON.parse(session.commandEJSON(AGG(timezone)));
  const missed = vm.runInContext('wasm_bindgen.timeZonesMissed()', context);
  return { reply, missed };
}

const first = (reply) => reply.cursor?.firstBatch?.[0]?.s;

test('time zones: before the file is loaded a name is not claimed unknown; after, zones answer and a bogus name is 40485', () => {
  const { context, session } = createShellContext({ timeZones: false });
  // No data needed: UTC and offsets.
  let r = ask(context, session, 'UTC');
  assert.equal(first(r.reply), '2024-07-01T00:00:00.000Z');
  assert.equal(r.missed, false);
  r = ask(context, session, '-04:00');
  assert.equal(first(r.reply), '2024-06-30T20:00:00.000');
  assert.equal(r.missed, false);
  // Named zones, real or bogus: not answered, and flagged for the worker.
  for (const zone of ['America/New_York', 'Mars/Base']) {
    r = ask(context, session, zone);
    assert.equal(r.missed, true, zone);
    assert.notEqual(r.reply.code?.$numberInt, '40485', zone);
    assert.equal(first(r.reply), undefined, zone);
  }
  // Bytes that are not the file are refused (and change nothing).
  assert.throws(() => vm.runInContext('wasm_bindgen.loadTimeZones(new Uint8Array([1, 2, 3]))', context), /not a time-zone file/);
  assert.equal(ask(context, session, 'America/New_York').missed, true);
  // Loaded: the zone, and 40485 for the bogus name.
  context.__tz = fs.readFileSync(path.join(root, 'build', 'tz', 'zones.tzdb'));
  vm.runInContext('wasm_bindgen.loadTimeZones(__tz); delete globalThis.__tz;', context);
  r = ask(context, session, 'America/New_York');
  assert.equal(first(r.reply), '2024-06-30T20:00:00.000');
  assert.equal(r.missed, false);
  r = ask(context, session, 'Mars/Base');
  assert.equal(r.reply.code.$numberInt, '40485');
  assert.match(r.reply.errmsg, /:: unrecognized time zone identifier: "Mars\/Base"$/);
  assert.equal(r.missed, false);
});

test('time zones: the Node runner loads the file at start (make script)', async () => {
  const text = await out(
    [
      "db.t.insertOne({ d: ISODate('2024-01-15T12:00:00Z'), z: 'asia/kolkata' });",
      "db.t.aggregate([{ $project: { _id: 0, ny: { $dateToString: { date: '$d', timezone: 'America/New_York' } }, z: { $dateToString: { date: '$d', timezone: '$z', format: '%H:%M %z' } } } }]).forEach((d) => print(d.ny, d.z));",
    ].join('\n'),
  );
  assert.equal(text, '2024-01-15T07:00:00.000 17:30 +0530');
});
