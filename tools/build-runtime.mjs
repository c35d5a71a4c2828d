// Bundles the mongosh runtime (www/runtime/) with js-bson, node-inspect-extracted and the `assert`
// package into build/runtime.js: one IIFE defining `PatternRuntime`, loaded as is by the browser's
// worker (importScripts) and by tools/run-script.mjs (inside one Node vm context).
import * as esbuild from 'esbuild';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { bsonFastUtf8 } from './bson-fast-utf8.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = process.argv[2] ?? path.join(root, 'build', 'runtime.js');

await esbuild.build({
  entryPoints: [path.join(root, 'www', 'runtime', 'index.js')],
  outfile: out,
  bundle: true,
  format: 'iife',
  globalName: 'PatternRuntime',
  platform: 'browser',
  // es2022: class private fields stay native (format.js marks the server's values with one; lowered,
  // esbuild would keep them in a WeakMap, the cost it avoids).
  target: 'es2022',
  // The `assert` and `util` packages read these Node globals; a worker and a vm context have none.
  define: {
    'process.env.NODE_DEBUG': 'false',
    'process.env.NODE_ENV': '"production"',
    global: 'globalThis',
  },
  inject: [path.join(root, 'tools', 'runtime-shims.js'), path.join(root, 'tools', 'runtime-globals.js')],
  legalComments: 'none',
  minify: true,
  keepNames: true, // class names show in printed values (WriteError { ... }) and error names
  plugins: [bsonFastUtf8],
  logLevel: 'warning',
});
