// The fast reply reader (www/runtime/reply.js) against js-bson: on generated documents of every
// BSON type, it must give js-bson's value exactly (classes, key order, types) whenever it reads a
// document, and leave to js-bson exactly the documents it says it leaves (another type, a
// non-ASCII key or string, a `__proto__` key, a possible DBRef).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import util from 'node:util';
import * as BSON from 'bson';
import { compiledShapes, decodeReply } from '../../www/runtime/reply.js';
import { isServer } from '../../www/runtime/mark.js';

const OPTIONS = { promoteLongs: false, promoteValues: true, promoteBuffers: false };

/** A small seeded generator (mulberry32), so a failure names a seed that reproduces it. */
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A value to serialize and whether js-bson must read it (`slow`). */
function value(r, depth) {
  const pick = Math.floor(r() * (depth > 2 ? 20 : 24));
  switch (pick) {
    case 0: return { v: new BSON.Double([0, -0, 1.5, NaN, Infinity, -Infinity, 2 ** 53, 5e-324][Math.floor(r() * 8)]), slow: false };
    case 1: return { v: Math.floor(r() * 2 ** 31) - 2 ** 30, slow: false };
    case 2: return { v: new BSON.Int32(Math.floor(r() * 2 ** 32) - 2 ** 31), slow: false };
    case 3: return { v: BSON.Long.fromBits(Math.floor(r() * 2 ** 32) | 0, Math.floor(r() * 2 ** 32) | 0), slow: false };
    case 4: return { v: BSON.Long.fromNumber(Math.floor(r() * 100) - 50), slow: false };
    case 5: return { v: asciiText(r), slow: false };
    case 6: return { v: ['é', 'ü ok', '日本', '\u{1F600}', 'a\u0000b', '\uFEFFbom'][Math.floor(r() * 6)], slow: true };
    case 7: return { v: 'x'.repeat(Math.floor(r() * 300)), slow: false };
    case 8: return { v: new BSON.ObjectId(), slow: false };
    case 9: return { v: r() < 0.5, slow: false };
    case 10: return { v: new Date([0, -1, 1704067200123, -62135596800000, 8.64e15, -8.64e15][Math.floor(r() * 6)]), slow: false };
    case 11: return { v: null, slow: false };
    case 12: return { v: new BSON.Decimal128('1.50'), slow: true };
    case 13: return { v: new BSON.Binary(new Uint8Array([1, 2, 3]), Math.floor(r() * 5)), slow: true };
    case 14: return { v: new BSON.Timestamp({ t: 5, i: 7 }), slow: true };
    case 15: return { v: [new BSON.MinKey(), new BSON.MaxKey(), new BSON.BSONRegExp('a+', 'i'), new BSON.Code('f()'), new BSON.BSONSymbol('s')][Math.floor(r() * 5)], slow: true };
    case 16: return { v: /ab/g, slow: true };
    case 17: return { v: new BSON.Double(r() * 1000), slow: false };
    case 18: return { v: Math.floor(r() * 1000) / 8, slow: false };
    case 19: return { v: 's' + Math.floor(r() * 1000), slow: false };
    default: return depth > 2 ? { v: null, slow: false } : r() < 0.5 ? doc(r, depth + 1) : array(r, depth + 1);
  }
}

function asciiText(r) {
  let s = '';
  const n = Math.floor(r() * 20);
  for (let i = 0; i < n; i++) s += String.fromCharCode(1 + Math.floor(r() * 127));
  return s;
}

// Keys of more than 24 bytes are not interned by the reader (made afresh each time): some here.
const KEYS = ['a', 'b', '_id', 'sensor', 'v', 'tags', 'x.y', '', 'k1', 'long_field_name_here', 'a_field_name_of_more_than_24_bytes'];
/** Keys js-bson must read: non-ASCII, short and long (the reader checks a long one as it scans it). */
const WIDE_KEYS = ['ké', 'a_field_name_of_more_than_24_bytes_é', 'é_then_a_long_ascii_field_name_here'];

function doc(r, depth) {
  const out = {};
  let slow = false;
  let dbref = null; // js-bson's isPossibleDBRef: its first `$` key that is not $ref/$id/$db rules it out
  const n = Math.floor(r() * 6);
  const seen = new Set();
  for (let i = 0; i < n; i++) {
    let key;
    const k = r();
    if (k < 0.04) key = WIDE_KEYS[Math.floor(r() * WIDE_KEYS.length)];
    else if (k < 0.07) key = '$ref';
    else if (k < 0.1) key = '$other';
    else if (k < 0.12) key = '$id';
    else key = KEYS[Math.floor(r() * KEYS.length)];
    if (seen.has(key)) continue;
    seen.add(key);
    if (WIDE_KEYS.includes(key)) slow = true;
    if (dbref !== false && key[0] === '$') dbref = key === '$ref' || key === '$id';
    const { v, slow: s } = value(r, depth);
    out[key] = v;
    slow ||= s;
  }
  if (dbref) slow = true;
  if (r() < 0.02) {
    Object.defineProperty(out, '__proto__', { value: 1, enumerable: true, configurable: true, writable: true });
    slow = true;
  }
  return { v: out, slow };
}

function array(r, depth) {
  const out = [];
  let slow = false;
  const n = Math.floor(r() * 5);
  for (let i = 0; i < n; i++) {
    const { v, slow: s } = value(r, depth);
    out.push(v);
    slow ||= s;
  }
  return { v: out, slow };
}

test('reply reader: gives js-bson\'s value for what it reads, and leaves the rest to js-bson', () => {
  let fast = 0;
  let slow = 0;
  for (let seed = 1; seed <= 3000; seed++) {
    const r = rng(seed);
    const { v, slow: expectSlow } = doc(r, 0);
    const bytes = new Uint8Array(BSON.serialize(v, { checkKeys: false, ignoreUndefined: false }));
    const want = BSON.deserialize(bytes, OPTIONS);
    const got = decodeReply(bytes);
    assert.equal(got === undefined, expectSlow, `seed ${seed}: ${expectSlow ? 'read' : 'left to js-bson'} ${util.inspect(want, { depth: 9 })}`);
    if (got === undefined) {
      slow++;
      continue;
    }
    fast++;
    assert.ok(util.isDeepStrictEqual(got, want), `seed ${seed}: ${util.inspect(got, { depth: 9 })} vs ${util.inspect(want, { depth: 9 })}`);
    // key order and types: both serialize to the same bytes
    assert.deepEqual(Buffer.from(BSON.serialize(got)), Buffer.from(BSON.serialize(want)), `seed ${seed}`);
  }
  assert.ok(fast > 1000 && slow > 500, `both paths exercised: ${fast} read, ${slow} left`);
});

test('reply reader: a cursor reply of small documents is read, and damaged bytes are left to js-bson', () => {
  const docs = Array.from({ length: 50 }, (_, i) => ({ _id: i, sensor: 's' + i, t: new Date(i), v: i / 4, tags: ['a', 'b'] }));
  const bytes = new Uint8Array(BSON.serialize({ cursor: { firstBatch: docs, id: BSON.Long.fromNumber(7), ns: 'test.r' }, ok: 1 }));
  const got = decodeReply(bytes);
  assert.ok(util.isDeepStrictEqual(got, BSON.deserialize(bytes, OPTIONS)));
  assert.equal(got.cursor.id.toString(), '7');
  // A size field one byte short, a missing terminator, a bool of 2, trailing bytes: js-bson's
  // business (it throws its own errors).
  const short = bytes.slice();
  short[0] -= 1;
  assert.equal(decodeReply(short), undefined);
  assert.equal(decodeReply(bytes.subarray(0, bytes.length - 1)), undefined);
  const b = new Uint8Array(BSON.serialize({ ok: true }));
  b[b.length - 2] = 2;
  assert.equal(decodeReply(b), undefined);
  assert.throws(() => BSON.deserialize(b, OPTIONS));
  const longer = new Uint8Array(bytes.length + 1);
  longer.set(bytes);
  assert.equal(decodeReply(longer), undefined);
});

test('reply reader: short keys and strings met before are given back only for the same bytes', () => {
  // Thousands of distinct keys and values of the same few lengths share the reader's 1 024 slots
  // for strings made before: each must still read as its own bytes, in every order.
  const r = rng(7);
  const word = (n) => Array.from({ length: n }, () => String.fromCharCode(33 + Math.floor(r() * 94))).join('');
  for (let round = 0; round < 3; round++) {
    const docs = [];
    for (let i = 0; i < 200; i++) {
      const d = {};
      for (let j = 0; j < 20; j++) d[word(1 + (j % 4))] = r() < 0.5 ? word(Math.floor(r() * 26)) : j;
      docs.push(d);
    }
    const bytes = new Uint8Array(BSON.serialize({ cursor: { firstBatch: docs, id: BSON.Long.fromNumber(0), ns: 'test.r' }, ok: 1 }));
    const got = decodeReply(bytes);
    assert.notEqual(got, undefined);
    assert.deepEqual(Buffer.from(BSON.serialize(got)), Buffer.from(bytes), `round ${round}`);
  }
});

test('reply reader: documents that repeat their keys are made from one compiled list, as js-bson makes them', () => {
  // Keys that a compiled object literal must write as strings: quotes, backslashes, control
  // characters, integer-like keys (which JavaScript puts first), the empty key, and keys that are
  // words of the language. Each list of keys comes back many times (so it is compiled), in turns
  // with other lists (so the list tried first is often wrong), and at several depths.
  const tricky = ['"', '\\', "'", '\u0001', '\n', '0', '10', '2', '', 'a b', '$x', 'constructor', 'toString', '}; throw 1; ({', '</script>', 'v'];
  const r = rng(11);
  const lists = Array.from({ length: 12 }, () => {
    const n = Math.floor(r() * 6);
    return Array.from({ length: n }, () => tricky[Math.floor(r() * tricky.length)]).filter((k, i, a) => a.indexOf(k) === i);
  });
  const make = (keys, depth) => {
    const d = {};
    for (const k of keys) d[k] = depth < 2 && r() < 0.3 ? make(lists[Math.floor(r() * lists.length)], depth + 1) : r() < 0.5 ? Math.floor(r() * 100) : 's' + Math.floor(r() * 10);
    return d;
  };
  const docs = Array.from({ length: 400 }, () => make(lists[Math.floor(r() * lists.length)], 0));
  const before = compiledShapes();
  const bytes = new Uint8Array(BSON.serialize({ cursor: { firstBatch: docs, id: BSON.Long.fromNumber(0), ns: 'test.r' }, ok: 1 }, { checkKeys: false }));
  const got = decodeReply(bytes);
  assert.notEqual(got, undefined);
  assert.ok(util.isDeepStrictEqual(got, BSON.deserialize(bytes, OPTIONS)));
  assert.deepEqual(Buffer.from(BSON.serialize(got, { checkKeys: false })), Buffer.from(bytes));
  assert.ok(compiledShapes() - before >= 10, `lists compiled: ${compiledShapes() - before}`);

  // A key stored twice in one document: the value read last, in the place of the first, as
  // js-bson gives it (and as adding the properties one at a time gives it).
  const once = new Uint8Array(BSON.serialize({ a: 1, b: 2, c: 3 }));
  const twice = once.slice();
  twice[twice.indexOf(0x62)] = 0x61; // the key "b" becomes "a"
  for (let i = 0; i < 10; i++) {
    const got2 = decodeReply(twice);
    assert.deepEqual(Object.entries(got2), Object.entries(BSON.deserialize(twice, OPTIONS)));
    assert.deepEqual(Object.entries(got2), [['a', 2], ['c', 3]]);
  }
});

test('reply reader: with `mark`, every document and array it makes is marked as a command\'s, and nothing else', () => {
  const bytes = new Uint8Array(BSON.serialize({ cursor: { firstBatch: [{ _id: 1, a: { b: [1, { c: 2 }] }, t: new Date(5), o: new BSON.ObjectId() }], id: BSON.Long.fromNumber(0) }, ok: 1 }));
  const objects = (v, out = []) => {
    if (v !== null && typeof v === 'object') {
      out.push(v);
      if (Array.isArray(v) || Object.getPrototypeOf(v) === Object.prototype) for (const x of Object.values(v)) objects(x, out);
    }
    return out;
  };
  const marked = decodeReply(bytes, true);
  const plain = objects(marked).filter((o) => Array.isArray(o) || Object.getPrototypeOf(o) === Object.prototype);
  assert.equal(plain.length, 7); // the reply, cursor, firstBatch, the document, a, b, {c}
  assert.ok(plain.every(isServer));
  assert.ok(!isServer(marked.cursor.firstBatch[0].t) && !isServer(marked.cursor.firstBatch[0].o));
  assert.ok(objects(decodeReply(bytes)).every((o) => !isServer(o)));
  // the mark is no key or symbol
  assert.deepEqual(Reflect.ownKeys(marked.cursor.firstBatch[0].a), ['b']);
});

test('reply reader: the documents of a reply read before are not kept once it is dropped', async () => {
  const v8 = await import('node:v8');
  const vm = await import('node:vm');
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc');
  const batch = (n) => new Uint8Array(BSON.serialize({ cursor: { nextBatch: Array.from({ length: n }, (_, i) => ({ _id: i, s: 'x' })), id: BSON.Long.fromNumber(0) }, ok: 1 }));
  let big = decodeReply(batch(2000));
  const last = new WeakRef(big.cursor.nextBatch[1999]);
  big = null;
  decodeReply(batch(3)); // a smaller reply of the same shape reuses the reader's lists
  await new Promise((resolve) => setImmediate(resolve));
  gc();
  await new Promise((resolve) => setImmediate(resolve));
  gc();
  assert.equal(last.deref(), undefined, 'a document of the dropped reply is still reachable');
});
