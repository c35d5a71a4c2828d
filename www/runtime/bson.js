// BSON values as mongosh 2.x gives them to a script: js-bson 6 classes (the driver's), the shell's
// helper functions (ObjectId(), ISODate(), NumberLong(), ...), the wire conversions the driver
// uses, and mongosh's printable forms (`ObjectId('…')` rather than js-bson's `new ObjectId('…')`).
import * as BSON from 'bson';
import { MongoshInvalidInputError, CommonErrors } from './errors.js';
import { decodeReply } from './reply.js';

export { BSON };

const inspectCustom = Symbol.for('nodejs.util.inspect.custom');

// ---- wire conversions (the Node driver's defaults, as mongosh uses them) ----------------------

/** JS -> BSON bytes: numbers that are whole and in int32 range become int32, other numbers double,
 * `undefined` becomes null (the driver's `ignoreUndefined: false`), key order is kept. */
export function toBytes(doc) {
  return BSON.serialize(doc, { checkKeys: false, ignoreUndefined: false, serializeFunctions: false });
}

/** BSON bytes -> JS: int32 and double become numbers, int64 stays `Long` (mongosh prints
 * `Long('…')`), decimal stays `Decimal128`, binary stays `Binary`. `mark`: see `decodeReply`. */
export function fromBytes(bytes, mark = false) {
  const fast = decodeReply(bytes, mark);
  if (fast !== undefined) return fast;
  return BSON.deserialize(bytes, { promoteLongs: false, promoteValues: true, promoteBuffers: false });
}

/** The size of a document as BSON, as the driver computes it. */
export function bsonsize(doc) {
  if (typeof doc !== 'object' || doc === null) {
    throw invalid(`Argument at position 0 must be of type object, got ${doc === null ? 'null' : typeof doc} instead (bsonsize)`);
  }
  return BSON.calculateObjectSize(doc, { checkKeys: false, ignoreUndefined: false, serializeFunctions: false });
}

/** js-bson's `_bsontype` of a value, or undefined for plain JS values. */
export function bsonType(value) {
  return value !== null && typeof value === 'object' && typeof value._bsontype === 'string' ? value._bsontype : undefined;
}

// ---- ObjectIds a run can make again ---------------------------------------------------------

/** While a run is recorded (`recordIds`), the ObjectIds a script makes without a time come from
 * a seeded generator: the 5 random bytes and the counter's start from `seed`, the seconds from the
 * clock, kept as runs of `[seconds, count]`. Given the same `{ seed, times }`, a run making the
 * same ObjectIds in the same order gets the same ones (a share link re-runs a lesson's own
 * scripts instead of carrying their writes); past the recorded times the clock is read again. */
let idSource = null;
const realGenerate = BSON.ObjectId.generate;
BSON.ObjectId.generate = function generate(time) {
  if (idSource === null) return realGenerate.call(this, time);
  const src = idSource;
  let secs = time;
  if (typeof secs !== 'number') {
    const given = src.given[src.at];
    secs = given ? given[0] : Math.floor(Date.now() / 1000);
    if (given && ++src.used === given[1]) {
      src.at++;
      src.used = 0;
    }
    const last = src.times[src.times.length - 1];
    if (last && last[0] === secs) last[1]++;
    else src.times.push([secs, 1]);
  }
  src.counter = (src.counter + 1) % 0x1000000;
  const b = new Uint8Array(12);
  new DataView(b.buffer).setUint32(0, secs >>> 0, false);
  b.set(src.process, 4);
  b[9] = (src.counter >> 16) & 0xff;
  b[10] = (src.counter >> 8) & 0xff;
  b[11] = src.counter & 0xff;
  return b;
};

/** Starts recording the run's ObjectIds; `spec` (`{ seed, times }`) makes the ones of an earlier
 * run again, none starts a new seed. */
export function recordIds(spec) {
  const seed = Number.isSafeInteger(spec?.seed) && spec.seed >= 0 ? spec.seed : Math.floor(Math.random() * 2 ** 53);
  const given = Array.isArray(spec?.times) ? spec.times.filter((t) => Array.isArray(t) && t[1] > 0).map((t) => [Number(t[0]) >>> 0, Number(t[1])]) : [];
  // splitmix32 over the seed's two halves: the process bytes, then the counter's start.
  let h = (seed % 2 ** 32) ^ Math.imul(Math.floor(seed / 2 ** 32), 0x9e3779b9);
  const next = () => {
    h = (h + 0x9e3779b9) | 0;
    let z = h;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
  const a = next();
  const b = next();
  const process = new Uint8Array([a & 0xff, (a >>> 8) & 0xff, (a >>> 16) & 0xff, a >>> 24, b & 0xff]);
  idSource = { seed, given, at: 0, used: 0, times: [], process, counter: next() % 0x1000000 };
}

/** Stops recording; `{ seed, times }` of the run (null when none was recorded). */
export function endIds() {
  const src = idSource;
  idSource = null;
  return src && { seed: src.seed, times: src.times };
}

// ---- printable forms (mongosh's shell-bson makePrintableBson) --------------------------------

function classless(cls) {
  const original = cls.prototype.inspect;
  return function (...args) {
    return String(original.apply(this, args)).replace(/^(\s*)(new )/, '$1');
  };
}

function binaryInspect(...args) {
  const hex = this.toString('hex');
  if (this.sub_type === BSON.Binary.SUBTYPE_MD5) return `MD5('${hex}')`;
  if (this.sub_type === BSON.Binary.SUBTYPE_UUID && hex.length === 32) {
    const m = /^(.{8})(.{4})(.{4})(.{4})(.{12})$/.exec(hex);
    return `UUID('${m.slice(1, 6).join('-')}')`;
  }
  return plainBinaryInspect.apply(this, args);
}
let plainBinaryInspect;

let printable = false;
/** Installs mongosh's inspect functions on the js-bson classes (once). */
export function makePrintableBson() {
  if (printable) return;
  printable = true;
  plainBinaryInspect = classless(BSON.Binary);
  const table = {
    ObjectId: classless(BSON.ObjectId),
    DBRef: classless(BSON.DBRef),
    MaxKey: classless(BSON.MaxKey),
    MinKey: classless(BSON.MinKey),
    Timestamp: classless(BSON.Timestamp),
    BSONSymbol: classless(BSON.BSONSymbol),
    Code: classless(BSON.Code),
    Decimal128: classless(BSON.Decimal128),
    Int32: classless(BSON.Int32),
    Long: classless(BSON.Long),
    Double: classless(BSON.Double),
    BSONRegExp: classless(BSON.BSONRegExp),
    Binary: binaryInspect,
  };
  for (const [name, fn] of Object.entries(table)) {
    const proto = BSON[name].prototype;
    for (const key of [inspectCustom, 'inspect']) {
      Object.defineProperty(proto, key, { value: fn, writable: true, configurable: true, enumerable: false });
    }
  }
}

// ---- the shell's helper functions -------------------------------------------------------------

/** A class that also works when called without `new` (mongosh's `ObjectId()`, `Long('1')`, ...):
 * `instanceof` and the static methods are the js-bson class's own. */
function callable(cls, call) {
  const handler = {
    apply(_target, _this, args) {
      return call ? call(...args) : new cls(...args);
    },
  };
  // mongosh's helpers are functions returning an instance, so `new Timestamp(1, 2)` is
  // `Timestamp(1, 2)` (js-bson's own constructor takes other arguments).
  if (call) handler.construct = (_target, args) => call(...args);
  return new Proxy(cls, handler);
}

function invalid(message) {
  return new MongoshInvalidInputError(message, CommonErrors.InvalidArgument);
}

function checkArg(value, types, position, fnName) {
  if (value === undefined) return;
  const t = typeof value;
  const ok = types.some((ty) => (ty.startsWith('bson:') ? bsonType(value) === ty.slice(5) : t === ty));
  if (!ok) {
    throw invalid(`Argument at position ${position} must be of type ${types.join(' or ')}, got ${t} instead (${fnName})`);
  }
}

function isoDate(input) {
  if (input === undefined) return new Date();
  if (input instanceof Date) return new Date(input.getTime());
  if (typeof input === 'number') return new Date(input);
  const s = String(input);
  // The shell accepts ISO-8601 with or without separators, 'Z' or an offset.
  const re = /^(?<Y>\d{4})-?(?<M>\d{2})-?(?<D>\d{2})(?:[T ](?<h>\d{2})(?::?(?<m>\d{2})(?::?(?<s>\d{2})(?:\.(?<ms>\d{1,3})\d*)?)?)?(?<tz>Z|[+-]\d{2}(?::?\d{2})?)?)?$/;
  const m = re.exec(s);
  if (m) {
    const g = m.groups;
    let iso = `${g.Y}-${g.M}-${g.D}T${g.h ?? '00'}:${g.m ?? '00'}:${g.s ?? '00'}.${(g.ms ?? '0').padEnd(3, '0')}`;
    let tz = g.tz ?? 'Z';
    if (tz !== 'Z' && !tz.includes(':')) tz = tz.length === 3 ? `${tz}:00` : `${tz.slice(0, 3)}:${tz.slice(3)}`;
    iso += tz;
    const d = new Date(iso);
    if (!Number.isNaN(d.getTime())) return d;
  }
  throw invalid(`${s} is not a valid ISODate`);
}

function hexToBytes(hex) {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.substr(i * 2, 2), 16);
  return out;
}

function uuid(hex) {
  if (hex === undefined) return new BSON.UUID().toBinary();
  checkArg(hex, ['string'], 0, 'UUID');
  const clean = hex.replace(/-/g, '');
  if (!/^[0-9a-fA-F]{32}$/.test(clean)) throw invalid(`Argument at position 0 must be a valid UUID string (UUID)`);
  return new BSON.Binary(hexToBytes(clean), BSON.Binary.SUBTYPE_UUID);
}

function numberLong(s = '0') {
  checkArg(s, ['string', 'number', 'bson:Long', 'bson:Int32', 'bson:Double'], 0, 'NumberLong');
  if (typeof s === 'string') return BSON.Long.fromString(s);
  if (typeof s === 'number') return BSON.Long.fromNumber(s);
  return BSON.Long.fromNumber(Number(s.valueOf()));
}

function longHelper(...args) {
  const [v] = args;
  if (typeof v === 'string' && args.length <= 2) return BSON.Long.fromString(v, args[1] === true);
  if (typeof v === 'number' && args.length === 1) return BSON.Long.fromNumber(v);
  if (typeof v === 'bigint') return BSON.Long.fromBigInt(v, args[1] === true);
  return new BSON.Long(...args);
}

function timestamp(t, i) {
  if (t === undefined) return new BSON.Timestamp({ t: 0, i: 0 });
  if (typeof t === 'object' && t !== null && !bsonType(t)) return new BSON.Timestamp(t);
  if (bsonType(t) === 'Long') return new BSON.Timestamp(t);
  return new BSON.Timestamp({ t: Number(t), i: Number(i ?? 0) });
}

function base64Binary(subtype, b64) {
  checkArg(subtype, ['number'], 0, 'BinData');
  checkArg(b64, ['string'], 1, 'BinData');
  return BSON.Binary.createFromBase64(b64, subtype);
}

/** The shell's BSON globals, each built in this realm. `warn(text)` prints a shell warning. */
export function shellBson(warn) {
  const ObjectId = callable(BSON.ObjectId);
  return {
    ObjectId,
    ObjectID: ObjectId,
    DBRef: callable(BSON.DBRef),
    MinKey: callable(BSON.MinKey),
    MaxKey: callable(BSON.MaxKey),
    Timestamp: callable(BSON.Timestamp, timestamp),
    Code: callable(BSON.Code),
    BSONSymbol: callable(BSON.BSONSymbol),
    BSONRegExp: callable(BSON.BSONRegExp),
    Binary: callable(BSON.Binary),
    Int32: callable(BSON.Int32),
    Double: callable(BSON.Double),
    Long: callable(BSON.Long, longHelper),
    Decimal128: callable(BSON.Decimal128, (v = '0') => (typeof v === 'string' ? BSON.Decimal128.fromString(v) : new BSON.Decimal128(v))),
    UUID: uuid,
    ISODate: isoDate,
    NumberInt: (v = 0) => {
      checkArg(v, ['string', 'number', 'bson:Long', 'bson:Int32', 'bson:Double'], 0, 'NumberInt');
      return new BSON.Int32(parseInt(`${v}`, 10));
    },
    NumberLong: numberLong,
    NumberDecimal: (v = '0') => {
      checkArg(v, ['string', 'number', 'bson:Long', 'bson:Int32', 'bson:Double', 'bson:Decimal128'], 0, 'NumberDecimal');
      if (typeof v === 'number') {
        warn('NumberDecimal: specifying a number as argument is deprecated and may lead to loss of precision, pass a string instead');
      }
      return BSON.Decimal128.fromString(`${v}`);
    },
    BinData: base64Binary,
    HexData: (subtype, hex) => new BSON.Binary(hexToBytes(hex), subtype),
    MD5: (hex) => new BSON.Binary(hexToBytes(hex), BSON.Binary.SUBTYPE_MD5),
    EJSON: BSON.EJSON,
  };
}
