// Output exactly as mongosh 2.x prints it: Node's util.inspect (node-inspect-extracted, so the
// browser and Node agree byte for byte) with mongosh's options — depth 6, compact 3, breakLength
// 80, no colours — Dates as ISODate('…'), BSON values as ObjectId('…'), Long('…'), ..., and values
// that came from the server printed at full depth (mongosh's deep-inspect wrapper).
import { bsonType } from './bson.js';
import { isServer, markServer } from './mark.js';

const customInspect = Symbol.for('nodejs.util.inspect.custom');
export const asPrintable = Symbol.for('@@mongosh.asPrintable');
export const shellApiType = Symbol.for('@@mongosh.shellApiType');

function dateInspect(depth, options) {
  if (Number.isNaN(this.valueOf())) return options.stylize('Invalid Date', 'date');
  return `ISODate('${this.toISOString()}')`;
}

// node-inspect-extracted is evaluated at the first print, not when the runtime loads: its set-up
// is a third of the runtime's start-up, which is on the path to the first lesson's Run button.
let inspectModule;
const nodeInspect = () => (inspectModule ??= require('node-inspect-extracted')).inspect;

/** util.inspect with mongosh's options (and the ISODate form of dates while it runs). */
export function inspect(value, options = {}) {
  installServerInspect();
  const had = Object.prototype.hasOwnProperty.call(Date.prototype, customInspect);
  if (!had) Object.defineProperty(Date.prototype, customInspect, { value: dateInspect, configurable: true, writable: true });
  try {
    const opts = { showProxy: false, colors: false, depth: 6 };
    for (const [k, v] of Object.entries(options)) if (v !== undefined && k !== 'allowControlCharacters') opts[k] = v;
    return nodeInspect()(value, opts);
  } finally {
    if (!had) delete Date.prototype[customInspect];
  }
}

// ---- values from the server print at full depth -----------------------------------------------

function deepInspect(depth, options, inspectFn) {
  const copy = Array.isArray(this) ? this.slice() : { ...this };
  return inspectFn(copy, { ...options, depth: Infinity, maxArrayLength: Infinity, maxStringLength: Infinity });
}

function serverInspect(depth, options, inspectFn) {
  return isServer(this) ? deepInspect.call(this, depth, options, inspectFn) : this;
}

function installServerInspect() {
  if (Object.prototype[customInspect] === serverInspect) return;
  Object.defineProperty(Object.prototype, customInspect, { value: serverInspect, enumerable: false, writable: true, configurable: true });
}

/** mongosh's addCustomInspect: every document, array and sub-document a command returned is
 * printed with unlimited depth and array length (each formatted on its own, as mongosh does). */
export function addCustomInspect(obj) {
  // Marked already, with everything in it (the reply reader marks a cursor's documents as it
  // makes them; this function marks a whole tree at once).
  if (obj !== null && typeof obj === 'object' && isServer(obj)) return obj;
  if (Array.isArray(obj)) {
    markServer(obj);
    for (let i = 0; i < obj.length; i++) {
      const item = obj[i];
      if (item !== null && typeof item === 'object') addCustomInspect(item);
    }
  } else if (obj !== null && typeof obj === 'object' && !bsonType(obj)) {
    if (obj instanceof Date || obj instanceof RegExp) return obj;
    markServer(obj);
    for (const k in obj) {
      if (!Object.hasOwn(obj, k)) continue;
      const value = obj[k];
      if (value !== null && typeof value === 'object') addCustomInspect(value);
    }
  }
  return obj;
}

/** addCustomInspect for an array whose items went through it already (a cursor's toArray). */
export function markFromServer(array) {
  markServer(array);
  return array;
}

// ---- mongosh's formatOutput -----------------------------------------------------------------

const fullDepth = { depth: Infinity, maxArrayLength: Infinity, maxStringLength: Infinity };
const CONTROL_CHAR_REGEXP_ALLOW_SIMPLE = /[\x00-\x08\x0B-\x1F\x7F-\x9F]/;

/** What print()/console.log() show for one argument: { type, printable } as mongosh's toShellResult. */
export function toShellResult(value) {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) {
    return { type: null, printable: value };
  }
  const printable = typeof value[asPrintable] === 'function' ? value[asPrintable]() : value;
  return { type: value[shellApiType] ?? null, printable };
}

function formatSimpleType(value, options) {
  if (typeof value === 'string' && (options.allowControlCharacters || !CONTROL_CHAR_REGEXP_ALLOW_SIMPLE.test(value))) return value;
  if (value === undefined) return '';
  return inspect(value, options);
}

function formatCursor(value, options) {
  if (!value.documents?.length) return '';
  let out = inspect(value.documents, options);
  if (value.cursorHasMore) out += '\nType "it" for more';
  return out;
}

/** mongosh's formatOutput for one evaluated value. */
export function formatOutput({ type, printable }, options = {}) {
  if (type === 'Cursor' || type === 'AggregationCursor') return formatCursor(printable, { ...options, ...fullDepth });
  if (type === 'CursorIterationResult') {
    if (!printable.documents?.length) return 'no cursor';
    return formatCursor(printable, { ...options, ...fullDepth });
  }
  if (type === 'ExplainOutput' || type === 'ExplainableCursor') return formatSimpleType(printable, { ...options, ...fullDepth });
  return formatSimpleType(printable, options);
}

/** One print()/printjson()/console.log() call as the line(s) mongosh writes (without the newline). */
export function formatPrint(values, kind) {
  let options = { allowControlCharacters: true };
  if (kind === 'printjson') options = { ...options, compact: false, ...fullDepth };
  return values.map((v) => formatOutput(toShellResult(v), options)).join(' ');
}
