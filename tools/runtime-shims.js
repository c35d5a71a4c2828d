// Minimal `process` for the npm `assert`/`util` packages inside the runtime bundle (they only
// look at process.env and process.version); injected by tools/build-runtime.mjs.
export const process = { env: {}, version: 'v20.0.0', versions: {}, platform: 'browser', nextTick: (f, ...a) => Promise.resolve().then(() => f(...a)) };
