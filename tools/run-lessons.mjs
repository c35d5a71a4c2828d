#!/usr/bin/env node
// Runs every lesson (lessons/<id>/lesson.md) headless, through the same engine and runtime as
// `make script` (tools/run-script.mjs): each lesson gets a fresh database, its steps run in order,
// each in its own top-level scope, then every audit is counted and checked against its `expect`.
// Lessons are parsed by the engine's own parser (src/lesson.rs, exported as
// `wasm_bindgen.parseLesson`), so there is one parser for the site, `cargo test` and this runner.
//
// After every step the audits are counted, as the playground shows them live; when an audit with a
// repair finds documents, the repair is tried on a snapshot (it must bring the count to 0) and the
// database is restored, so the next steps see the data the learner would.
//
// A failing step is reported as `lessons/<id>/lesson.md:LINE: step N "title": Error: ...`, LINE
// being the line of the lesson file where the error happened.
//
// Usage: node tools/run-lessons.mjs [--verbose] [--json] [--keep-going] [--no-skip] [--timeout=MS] [id...]
//   --verbose     print every step's output
//   --json        one JSON report per lesson
//   --keep-going  run the later steps of a lesson after a failed one (to list every failure)
//   --no-skip     also run the lessons of the skip list
// Lessons the engine cannot run yet are listed, with the reason, in lessons/engine-gaps.skip.
import fs from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import { fileURLToPath } from 'node:url';
import { createShellContext, runFile, formatUncaught } from './run-script.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const LESSONS_DIR = path.join(root, 'lessons');
export const SKIP_FILE = path.join(LESSONS_DIR, 'engine-gaps.skip');

/** Every lesson folder: [{ dir, file (relative to the repo), text }], sorted by folder name. */
export function lessonFiles(dir = LESSONS_DIR) {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && fs.existsSync(path.join(dir, e.name, 'lesson.md')))
    .map((e) => e.name)
    .sort()
    .map((name) => {
      const file = path.join(dir, name, 'lesson.md');
      return { dir: name, file: path.relative(root, file), text: fs.readFileSync(file, 'utf8') };
    });
}

/** The skip list: Map id -> reason. Lines are `id: reason`; `#` starts a comment. */
export function readSkips(file = SKIP_FILE) {
  const skips = new Map();
  if (!fs.existsSync(file)) return skips;
  for (const raw of fs.readFileSync(file, 'utf8').split('\n')) {
    const line = raw.replace(/#.*/, '').trim();
    if (!line) continue;
    const at = line.indexOf(':');
    const id = (at < 0 ? line : line.slice(0, at)).trim();
    skips.set(id, at < 0 ? '(no reason given)' : line.slice(at + 1).trim());
  }
  return skips;
}

/** Parses a lesson with the engine's parser. Throws Error("file:line: message") on a format error. */
export function parseLesson(context, file, text) {
  // The glue's `wasm_bindgen` is a script-level binding of the context, not a property of it.
  context.__lessonArgs = [file, text];
  let json;
  try {
    json = vm.runInContext('wasm_bindgen.parseLesson(...__lessonArgs)', context);
  } catch (e) {
    throw new Error(String(e?.message ?? e));
  } finally {
    delete context.__lessonArgs;
  }
  return JSON.parse(json);
}

const num = (v) => {
  if (v && typeof v === 'object') return Number(v.$numberInt ?? v.$numberLong ?? v.$numberDouble);
  return Number(v);
};

/** Runs a command given as canonical EJSON text; returns the parsed reply; throws on ok: 0. */
function command(session, cmd) {
  const reply = JSON.parse(session.commandEJSON(JSON.stringify(cmd)));
  if (num(reply.ok) !== 1) throw new Error(`${reply.codeName ?? 'Error'}: ${reply.errmsg ?? JSON.stringify(reply)}`);
  return reply;
}

/** How many documents an audit finds now. */
export function countAudit(session, audit) {
  const reply = command(session, { aggregate: audit.collection, pipeline: [{ $match: audit.filter }, { $count: 'n' }], cursor: {} });
  const first = reply.cursor?.firstBatch?.[0];
  return first ? num(first.n) : 0;
}

/** Applies an audit's repair: updateMany(filter, repair). Returns the number modified. */
export function repairAudit(session, audit) {
  const reply = command(session, { update: audit.collection, updates: [{ q: audit.filter, u: audit.repair, multi: true }] });
  if (reply.writeErrors?.length) throw new Error(`repair failed: ${reply.writeErrors[0].errmsg}`);
  return num(reply.nModified);
}

/**
 * Runs one parsed lesson in a fresh context. Resolves to
 * { id, file, steps: [{ n, title, line, ms, output, error }], audits: [{ name, count, expect, peak, repairChecks }], failures: [string] }.
 */
export async function runLesson(lesson, file, { timeout = 20000, text = '', keepGoing = false } = {}) {
  const { context, session } = createShellContext();
  // The line of each audit's `"name": ...` in the lesson file (the parser keeps no audit lines).
  const lines = text.split('\n');
  const auditLine = (audit) => {
    const i = lines.findIndex((l) => l.includes(`"name"`) && l.includes(JSON.stringify(audit.name)));
    return i >= 0 ? i + 1 : 1;
  };
  const engine = session.client.engine;
  const report = { id: lesson.id, file, steps: [], audits: lesson.audits.map((a) => ({ name: a.name, count: null, expect: a.expect ?? null, peak: 0, peakStep: null, repairChecks: 0 })), failures: [] };
  const fail = (line, what) => report.failures.push(`${file}:${line}: ${what}`);

  // Audits are counted after each step; a repair is tried on a snapshot whenever its audit finds drift.
  const checkAudits = (stepNo) => {
    lesson.audits.forEach((audit, i) => {
      const r = report.audits[i];
      let n;
      try {
        n = countAudit(session, audit);
      } catch (e) {
        fail(auditLine(audit), `audit "${audit.name}" cannot be counted after step ${stepNo}: ${e.message}`);
        return;
      }
      r.count = n;
      if (n > r.peak) {
        r.peak = n;
        r.peakStep = stepNo;
      }
      if (n > 0 && audit.repair) {
        const snapshot = engine.snapshot();
        try {
          repairAudit(session, audit);
          const after = countAudit(session, audit);
          if (after !== 0) fail(auditLine(audit), `audit "${audit.name}": its repair leaves ${after} of ${n} documents drifted after step ${stepNo}`);
          r.repairChecks++;
        } catch (e) {
          fail(auditLine(audit), `audit "${audit.name}": its repair fails after step ${stepNo}: ${e.message}`);
        } finally {
          engine.restore(snapshot);
        }
      }
    });
  };

  for (const [i, step] of lesson.steps.entries()) {
    const n = i + 1;
    const name = `${lesson.id}-step${n}.js`;
    const t0 = performance.now();
    const r = await runFile(context, step.script, name, timeout);
    const ms = Math.round(performance.now() - t0);
    const output = r.output.map((o) => o.text);
    report.steps.push({ n, title: step.title, line: step.script_line, ms, output, error: r.error });
    if (r.error) {
      const line = r.error.line !== undefined ? step.script_line + r.error.line - 1 : step.script_line;
      fail(line, `step ${n} "${step.title}": ${formatUncaught(r.error, name).split('\n')[0]}`);
      if (!keepGoing) return report; // later steps depend on this one
    }
    checkAudits(n);
  }
  if (report.steps.some((s) => s.error)) return report;
  lesson.audits.forEach((audit, i) => {
    const r = report.audits[i];
    if (audit.expect !== undefined && audit.expect !== null && r.count !== audit.expect) {
      fail(auditLine(audit), `audit "${audit.name}" finds ${r.count} documents after the last step, expected ${audit.expect}`);
    }
  });
  return report;
}

/** Parses and runs every lesson (or those in `only`); resolves to { reports, skipped, parseErrors }. */
export async function runAll({ only = [], timeout, keepGoing = false, noSkip = false, onReport } = {}) {
  const skips = readSkips();
  const { context: parser } = createShellContext();
  const reports = [];
  const skipped = [];
  const parseErrors = [];
  for (const { file, text } of lessonFiles()) {
    let lesson;
    try {
      lesson = parseLesson(parser, file, text);
    } catch (e) {
      parseErrors.push(e.message);
      continue;
    }
    if (only.length > 0 && !only.includes(lesson.id)) continue;
    if (skips.has(lesson.id) && !noSkip) {
      skipped.push({ id: lesson.id, reason: skips.get(lesson.id) });
      continue;
    }
    const report = await runLesson(lesson, file, { timeout, text, keepGoing });
    reports.push(report);
    onReport?.(report);
  }
  return { reports, skipped, parseErrors };
}

function printReport(report, verbose) {
  const ok = report.failures.length === 0;
  process.stdout.write(`${ok ? 'ok  ' : 'FAIL'} ${report.id} (${report.file})\n`);
  for (const s of report.steps) {
    process.stdout.write(`       step ${s.n} ${s.error ? 'FAILED' : 'ok'} ${String(s.ms).padStart(5)} ms  ${s.title}\n`);
    if (verbose || s.error) for (const line of s.output) process.stdout.write(`           | ${line}\n`);
  }
  for (const a of report.audits) {
    const peak = a.peak > 0 ? `, peaked at ${a.peak} after step ${a.peakStep}${a.repairChecks ? ', repair checked' : ''}` : '';
    process.stdout.write(`       audit "${a.name}": ${a.count ?? '-'}${a.expect !== null ? ` (expect ${a.expect})` : ''}${peak}\n`);
  }
  for (const f of report.failures) process.stdout.write(`    ${f}\n`);
}

async function main(argv) {
  let verbose = false;
  let json = false;
  let timeout = 20000;
  let keepGoing = false;
  let noSkip = false;
  const only = [];
  for (const arg of argv) {
    if (arg === '--verbose' || arg === '-v') verbose = true;
    else if (arg === '--json') json = true;
    else if (arg === '--keep-going') keepGoing = true;
    else if (arg === '--no-skip') noSkip = true;
    else if (arg.startsWith('--timeout=')) timeout = Number(arg.slice('--timeout='.length));
    else only.push(arg);
  }
  const { reports, skipped, parseErrors } = await runAll({
    only,
    timeout,
    keepGoing,
    noSkip,
    onReport: (r) => (json ? process.stdout.write(`${JSON.stringify(r)}\n`) : printReport(r, verbose)),
  });
  for (const e of parseErrors) process.stdout.write(`FAIL ${e}\n`);
  for (const s of skipped) process.stdout.write(`skip ${s.id}: ${s.reason}\n`);
  const failed = reports.filter((r) => r.failures.length > 0).length + parseErrors.length;
  const passed = reports.length - reports.filter((r) => r.failures.length > 0).length;
  process.stdout.write(`lessons: ${passed} passed, ${failed} failed, ${skipped.length} skipped\n`);
  return failed > 0 ? 1 : 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await main(process.argv.slice(2));
}
