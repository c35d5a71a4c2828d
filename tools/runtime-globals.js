// The JavaScript built-ins the runtime bundle uses, bound once when the bundle is evaluated and
// substituted by esbuild (`inject`, tools/build-runtime.mjs) for the free global names in the
// bundle. In a Node vm context (the headless runner) every global name lookup goes through the
// context's interceptors and costs far more than a local one, and js-bson looks up `Date`,
// `RegExp`, `Object`, `Uint8Array`, `Symbol`, ... for every value it serializes (20 000 bulk
// statements: 430-1160 ms in the vm context, 70-130 ms in Node's own realm). The values are
// the same objects; only the lookups get cheaper.
const g = globalThis;
export const Object = g.Object;
export const Array = g.Array;
export const Date = g.Date;
export const RegExp = g.RegExp;
export const Symbol = g.Symbol;
export const Map = g.Map;
export const Set = g.Set;
export const WeakMap = g.WeakMap;
export const WeakSet = g.WeakSet;
export const Number = g.Number;
export const String = g.String;
export const Boolean = g.Boolean;
export const BigInt = g.BigInt;
export const Math = g.Math;
export const JSON = g.JSON;
export const Reflect = g.Reflect;
export const Proxy = g.Proxy;
export const Promise = g.Promise;
export const Error = g.Error;
export const TypeError = g.TypeError;
export const RangeError = g.RangeError;
export const SyntaxError = g.SyntaxError;
export const ReferenceError = g.ReferenceError;
export const Function = g.Function;
export const ArrayBuffer = g.ArrayBuffer;
export const DataView = g.DataView;
export const Uint8Array = g.Uint8Array;
export const Int8Array = g.Int8Array;
export const Uint16Array = g.Uint16Array;
export const Int16Array = g.Int16Array;
export const Uint32Array = g.Uint32Array;
export const Int32Array = g.Int32Array;
export const Float32Array = g.Float32Array;
export const Float64Array = g.Float64Array;
export const BigInt64Array = g.BigInt64Array;
export const BigUint64Array = g.BigUint64Array;
export const TextEncoder = g.TextEncoder;
export const TextDecoder = g.TextDecoder;
export const isNaN = g.isNaN;
export const isFinite = g.isFinite;
export const parseInt = g.parseInt;
export const parseFloat = g.parseFloat;
