// Shared by the runtime tests: runs scripts through the same path as `make script`
// (tools/run-script.mjs: build/runtime.js + build/engine in one vm context).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createShellContext, runFile, formatUncaught } from '../../tools/run-script.mjs';

/** Runs `files` ([{ name, code }] or one code string) in order against one fresh database.
 * Resolves to { text, reports, error }: text is stdout as `make script` prints it. */
export async function run(files, { timeout = 60000, continueOnError = false } = {}) {
  const list = typeof files === 'string' ? [{ name: 'test.js', code: files }] : files;
  const lines = [];
  const { context } = createShellContext({ onOutput: (stream, text) => lines.push(text) });
  const reports = [];
  let error = null;
  for (const { name, code } of list) {
    const report = await runFile(context, code, name, timeout);
    reports.push({ name, ...report, text: report.output.map((o) => o.text).join('\n') });
    if (report.error) {
      error ??= { ...report.error, file: name, uncaught: formatUncaught(report.error, name) };
      if (!continueOnError) break;
    }
  }
  return { text: lines.join('\n'), lines, reports, error };
}

/** Runs a script that must not throw; resolves to its printed lines joined by "\n". */
export async function out(code) {
  const r = await run(code);
  if (r.error) throw new Error(`script failed: ${r.error.uncaught}\n${r.error.stack ?? ''}`);
  return r.text;
}

/** The folder of the shared material (../shared beside the repo; CI lays it the same way). */
export function sharedDir() {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const root = path.resolve(here, '..', '..');
  for (const candidate of [process.env.SHARED_DIR, path.join(root, '..', 'shared'), path.join(root, '..', '..', 'shared')]) {
    if (candidate && fs.existsSync(path.join(candidate, 'seeds'))) return candidate;
  }
  throw new Error(`shared/seeds not found beside ${root} (set SHARED_DIR)`);
}
