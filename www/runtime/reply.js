// The engine's replies as JavaScript values, fast. js-bson's `deserialize` re-reads its options
// for every sub-document and goes through general byte utilities for every key and string: a
// find() of 50 000 small documents spent more time there than the engine spent finding them.
// `decodeReply` reads the types a reply mostly holds (double, string, document, array, ObjectId,
// bool, date, null, int32, int64) with ASCII keys and strings, and gives exactly what
// `BSON.deserialize(bytes, { promoteLongs: false, promoteValues: true, promoteBuffers: false })`
// gives for them. On anything else (another type, a non-ASCII key or string, a `__proto__` key,
// a document js-bson would read as a DBRef, bytes that do not add up) it returns `undefined`,
// and the caller decodes the whole reply with js-bson, which then gives its own value or error.
// tests/runtime/reply.test.mjs compares the two on generated documents of every type.
//
// What a reply of many documents costs here is mostly the objects made and the garbage collector
// moving them, so each document's fields are read into scratch lists first and the object is then
// made in one step: an array as an exact copy of its items, a document by an object literal
// compiled once for its list of keys (`Shapes`), which lays its properties out in place rather
// than adding them one at a time through a lookup. An array of documents (a cursor's batch) is
// read by a loop of its own, pushing each document as it is made.
import * as BSON from 'bson';
import { markNew } from './mark.js';

/** Thrown inside the decoder to give up; never escapes `decodeReply`. */
const GIVE_UP = Symbol('give up');

/** js-bson's test for a `$` key that may make a document a DBRef. */
const DBREF_KEY = /^\$ref$|^\$id$|^\$db$/;

/** The reply `bytes` (a Uint8Array holding one BSON document) as js-bson would give it, or
 * `undefined` when it holds something this reader leaves to js-bson. With `mark`, every
 * document and array made is marked as a command's (format.js `addCustomInspect`, which then
 * has nothing left to do for them): for a cursor's batches. */
export function decodeReply(bytes, mark = false) {
  if (!(bytes instanceof Uint8Array) || bytes.length < 5) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  try {
    const r = new Reader(bytes, view, mark);
    const value = r.document(0, false);
    return r.end === bytes.length ? value : undefined;
  } catch (e) {
    if (e === GIVE_UP) return undefined;
    throw e;
  }
}

class Reader {
  constructor(bytes, view, mark) {
    this.b = bytes;
    this.v = view;
    this.mark = mark;
    this.end = 0; // the offset after the last document read
  }

  /** The document (or array) whose size field is at `at`. */
  document(at, isArray, depth = 0) {
    const b = this.b;
    const v = this.v;
    const stop = this.stopOf(at);
    // this document's fields so far (the lists are reused: one per depth of nesting)
    const vals = VALS[depth] ?? (VALS[depth] = []);
    const keys = isArray ? null : (KEYS[depth] ?? (KEYS[depth] = []));
    let n = 0;
    let dollar = isArray ? false : null; // js-bson's isPossibleDBRef
    let i = at + 4;
    while (true) {
      if (i >= stop) throw GIVE_UP;
      const type = b[i++];
      if (type === 0) break;
      const keyStart = i;
      i = this.keyEnd(i, stop);
      let key;
      if (!isArray) {
        key = interned(b, keyStart, i);
        if (key === '__proto__') throw GIVE_UP;
        if (dollar !== false && b[keyStart] === 0x24) dollar = DBREF_KEY.test(key);
      }
      i++;
      let value;
      switch (type) {
        case 1: // double
          if (i + 8 > stop) throw GIVE_UP;
          value = v.getFloat64(i, true);
          i += 8;
          break;
        case 2: {
          // string
          if (i + 4 > stop) throw GIVE_UP;
          const n = v.getInt32(i, true);
          i += 4;
          if (n <= 0 || n > stop - i || b[i + n - 1] !== 0) throw GIVE_UP;
          value = asciiString(b, i, i + n - 1);
          i += n;
          break;
        }
        case 3: // document
          value = this.document(i, false, depth + 1);
          i = this.end;
          break;
        case 4: // array
          value = this.array(i, depth + 1);
          i = this.end;
          break;
        case 7: // ObjectId
          if (i + 12 > stop) throw GIVE_UP;
          value = new BSON.ObjectId(b.slice(i, i + 12));
          i += 12;
          break;
        case 8: // bool
          if (i + 1 > stop || b[i] > 1) throw GIVE_UP;
          value = b[i] === 1;
          i += 1;
          break;
        case 9: // date: milliseconds as js-bson computes them (Long's toNumber)
          if (i + 8 > stop) throw GIVE_UP;
          value = new Date(v.getInt32(i + 4, true) * 4294967296 + v.getUint32(i, true));
          i += 8;
          break;
        case 10: // null
          value = null;
          break;
        case 16: // int32
          if (i + 4 > stop) throw GIVE_UP;
          value = v.getInt32(i, true);
          i += 4;
          break;
        case 18: // int64: promoteLongs is false, so always a Long
          if (i + 8 > stop) throw GIVE_UP;
          value = new BSON.Long(v.getInt32(i, true), v.getInt32(i + 4, true));
          i += 8;
          break;
        default:
          throw GIVE_UP;
      }
      if (!isArray) keys[n] = key;
      vals[n++] = value;
    }
    if (i !== stop) throw GIVE_UP;
    if (dollar) throw GIVE_UP; // js-bson may make it a DBRef
    this.end = stop;
    const out = isArray ? vals.slice(0, n) : shapes.make(keys, vals, n, depth);
    // the scratch list lets go of the values (else the largest batch read stays reachable)
    vals.fill(undefined, 0, n);
    if (this.mark) markNew(out);
    return out;
  }

  /** The array whose size field is at `at`: when its items are documents (a cursor's batch),
   * by a loop of its own, so that the long loop of a large batch is not in `document` (code
   * compiled while a call runs is compiled again for that call: a small loop is quick to
   * compile, `document` is not); any other array by `document`. */
  array(at, depth) {
    const b = this.b;
    const stop = this.stopOf(at);
    const out = [];
    let i = at + 4;
    while (true) {
      if (i >= stop) throw GIVE_UP;
      const type = b[i++];
      if (type === 0) break;
      i = this.keyEnd(i, stop) + 1;
      // an item of another type: the array is read again from its start, by `document`
      if (type !== 3) return this.document(at, true, depth);
      out.push(this.document(i, false, depth + 1));
      i = this.end;
    }
    if (i !== stop) throw GIVE_UP;
    this.end = stop;
    if (this.mark) markNew(out);
    return out;
  }

  /** The end of the document whose size field is at `at`, once its size and terminator check. */
  stopOf(at) {
    const b = this.b;
    if (at + 5 > b.length) throw GIVE_UP;
    const size = this.v.getInt32(at, true);
    const stop = at + size;
    if (size < 5 || stop > b.length || b[stop - 1] !== 0) throw GIVE_UP;
    return stop;
  }

  /** The offset of the NUL that ends the key starting at `i`: ASCII before `stop`, or give up. */
  keyEnd(i, stop) {
    const b = this.b;
    for (let c = b[i]; c !== 0; c = b[++i]) {
      if (c >= 0x80 || i >= stop) throw GIVE_UP;
    }
    return i;
  }
}

const VALS = [];
const KEYS = [];

/** The lists of keys met, each with the function that makes an object of those keys from a list
 * of values once the list has been met a few times (`new Function` over the keys written as JSON
 * strings, so a key is only ever a string literal; the keys are ASCII and never `__proto__`, see
 * `document`). The list last made at each depth is tried first: the documents of a reply mostly
 * follow one another with the same keys. Until a list is compiled, or where code cannot be
 * compiled (a Content-Security-Policy without 'unsafe-eval'), objects are made a property at a
 * time, with the same result. */
class Shapes {
  constructor() {
    this.byKeys = new Map();
    this.last = [];
    this.compile = true;
    this.compiled = 0;
  }

  make(keys, vals, n, depth) {
    let shape = this.last[depth];
    if (shape === undefined || !shape.is(keys, n)) {
      // n and the keys joined by NUL (which no key holds) name one list
      const id = n + ':' + keys.slice(0, n).join('\0');
      shape = this.byKeys.get(id);
      if (shape === undefined) {
        shape = new Shape(keys.slice(0, n));
        // a bound on what is kept: when full, start again (the lists in use come back at once)
        if (this.byKeys.size >= MAX_SHAPES) this.byKeys.clear();
        this.byKeys.set(id, shape);
      }
      this.last[depth] = shape;
    }
    if (shape.build === null && this.compile && ++shape.seen >= COMPILE_AFTER) {
      try {
        shape.build = new Function('v', 'return {' + shape.keys.map((k, j) => JSON.stringify(k) + ': v[' + j + ']').join(', ') + '};');
        this.compiled++;
      } catch (e) {
        // code generation refused (EvalError): never again; else only this list is left alone
        if (e?.name === 'EvalError') this.compile = false;
        shape.seen = -Infinity;
      }
    }
    if (shape.build !== null) return shape.build(vals);
    const out = {};
    for (let k = 0; k < n; k++) out[keys[k]] = vals[k];
    return out;
  }
}

class Shape {
  constructor(keys) {
    this.keys = keys;
    this.seen = 0;
    this.build = null;
  }

  /** Whether `keys[0..n)` are this shape's keys (short keys are interned, so most compare as
   * the same string). */
  is(keys, n) {
    const mine = this.keys;
    if (mine.length !== n) return false;
    for (let k = 0; k < n; k++) if (mine[k] !== keys[k]) return false;
    return true;
  }
}

const MAX_SHAPES = 512;
const COMPILE_AFTER = 4;
const shapes = new Shapes();

/** How many lists of keys have a compiled maker (for the tests). */
export function compiledShapes() {
  return shapes.compiled;
}

/** Short strings met before, by a hash of their bytes: keys repeat in every document of a
 * reply, and short string values often do; taking the string made before saves building it
 * again (a character at a time) and the garbage. */
const SHORT = 24;
const seen = new Array(1024).fill('');

/** The bytes `b[from..to)` as a string, made once per distinct short string; gives up on a
 * byte that is not ASCII or is 0 in a short one (a longer one, a key, was checked already). */
function interned(b, from, to) {
  const n = to - from;
  if (n > SHORT) return fresh(b, from, to);
  let h = n;
  for (let k = from; k < to; k++) {
    const c = b[k];
    if (c >= 0x80 || c === 0) throw GIVE_UP;
    h = (Math.imul(h, 31) + c) | 0;
  }
  const slot = h & 1023;
  const s = seen[slot];
  if (s.length === n) {
    let k = 0;
    while (k < n && s.charCodeAt(k) === b[from + k]) k++;
    if (k === n) return s;
  }
  const made = fresh(b, from, to);
  seen[slot] = made;
  return made;
}

function fresh(b, from, to) {
  let s = '';
  for (let k = from; k < to; k++) s += String.fromCharCode(b[k]);
  return s;
}

/** A string value: ASCII, or give up (js-bson decodes UTF-8 its own way, with its checks). */
function asciiString(b, from, to) {
  if (to - from <= SHORT) return interned(b, from, to);
  if (to - from > 64) {
    for (let k = from; k < to; k++) if (b[k] >= 0x80 || b[k] === 0) throw GIVE_UP;
    let s = '';
    for (let k = from; k < to; k += 4096) s += String.fromCharCode.apply(null, b.subarray(k, Math.min(to, k + 4096)));
    return s;
  }
  let s = '';
  for (let k = from; k < to; k++) {
    const c = b[k];
    if (c >= 0x80 || c === 0) throw GIVE_UP;
    s += String.fromCharCode(c);
  }
  return s;
}
