#!/usr/bin/env node
// The static site's own pages and its service worker, beside trunk's build of the UI.
//
//   node tools/site.mjs stage <dir>      (trunk's build hook, `make stage-web`)
//       copies www/embed.js, www/embed-demo.html, www/register-sw.js, www/sandbox.js and www/favicon.svg into <dir> and writes <dir>/lessons.html,
//       the lesson index: every lesson (lessons/*/lesson.md, read by the site's one parser,
//       src/lesson.rs through the engine's `parseLesson`) in `order`, with its summary.
//   node tools/site.mjs precache <dist>  (`make dist`, after trunk build)
//       writes <dist>/embed.html (index.html for the widgets' opaque-origin frames), and
//       puts a Content-Security-Policy into <dist>/index.html and <dist>/lessons.html (the hashes
//       of their inline scripts, computed here), then writes <dist>/sw.js from www/sw.js with every
//       file of <dist> (trunk's hashed names included) and the SHA-256 of each (an SRI string the
//       service worker checks), and a version hashed from them all.
//
// Every URL the pages hold is relative, so the site works from any sub-path.
import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';
import { createShellContext } from './run-script.mjs';
import { lessonFiles, parseLesson } from './run-lessons.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const www = path.join(root, 'www');

const escape = (s) =>
  String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
/** Escaped text with `code` spans. */
const inline = (s) => escape(s).replace(/`([^`]+)`/g, '<code>$1</code>');

/** Every lesson, parsed, in the index's order (`order`, then id), as the playground sorts them. */
export function lessons() {
  const { context } = createShellContext();
  const all = lessonFiles().map(({ file, text }) => parseLesson(context, file, text));
  const order = (l) => (l.order === null || l.order === undefined ? Number.MAX_SAFE_INTEGER : Number(l.order));
  const cmp = (x, y) => (x < y ? -1 : x > y ? 1 : 0);
  return all.sort((a, b) => cmp(order(a), order(b)) || cmp(a.id, b.id));
}

/** The playground's link to a lesson (`?lesson=<id>`: it opens there, unless the learner's saved
 * state is on that lesson already, which it keeps). */
export const lessonLink = (id) => `index.html?lesson=${encodeURIComponent(id)}`;

export function indexPage(list) {
  const items = list
    .map(
      (l, i) => `    <li id="${escape(l.id)}">
      <a class="title" href="${escape(lessonLink(l.id))}"><span class="n">${i + 1}</span>${escape(l.title)}</a>
      <span class="meta">${escape(l.pattern)} pattern · ${l.steps.length} step${l.steps.length === 1 ? '' : 's'}</span>
      <p>${inline(l.summary)}</p>
    </li>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta name="color-scheme" content="light dark">
  <meta name="description" content="Every lesson of Pattern Playground: MongoDB schema-design patterns you run in your browser.">
  <title>Lessons · Pattern Playground</title>
  <link rel="icon" href="favicon.svg" type="image/svg+xml">
  <style>
    :root { color-scheme: light dark; --bg: #fff; --fg: #1b2421; --muted: #5b6b66; --line: #cfd8d5; --accent: #00684a; --card: #f4f6f5;
      font: 16px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
    @media (prefers-color-scheme: dark) { :root { --bg: #111816; --fg: #e3ebe8; --muted: #9db0a9; --line: #33443e; --accent: #00c170; --card: #18211e; } }
    body { margin: 0; background: var(--bg); color: var(--fg); }
    main { max-width: 52rem; margin: 0 auto; padding: 24px 16px 48px; }
    h1 { font-size: 1.6rem; margin: 0 0 4px; }
    .leaf, a { color: var(--accent); }
    .lead { color: var(--muted); margin-top: 0; }
    ol.lessons { list-style: none; padding: 0; display: grid; gap: 12px; }
    ol.lessons li { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 12px 16px; }
    a.title { font-weight: 650; font-size: 1.1rem; text-decoration: none; }
    a.title:hover, a.title:focus { text-decoration: underline; }
    .n { display: inline-block; width: 2em; color: var(--muted); font-variant-numeric: tabular-nums; }
    .meta { display: block; color: var(--muted); font-size: 0.85rem; margin-left: 2em; }
    ol.lessons p { margin: 6px 0 0 2em; }
    code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.9em; }
    footer { color: var(--muted); font-size: 0.9rem; border-top: 1px solid var(--line); margin-top: 24px; padding-top: 12px; }
  </style>
</head>
<body>
<main>
  <h1><span class="leaf" aria-hidden="true">◆</span> Pattern Playground</h1>
  <p class="lead">MongoDB schema-design patterns, one lesson each. Every lesson runs real mongosh scripts on a database inside your browser: nothing to install, nothing sent anywhere.</p>
  <h2>Lessons</h2>
  <ol class="lessons">
${items}
  </ol>
  <footer>
    <a href="index.html">Open the playground</a> · <a href="embed-demo.html">Embed a lesson in your course page</a>
  </footer>
</main>
<script src="register-sw.js" defer></script>
</body>
</html>
`;
}

/** Every file under `dir`, as sorted paths relative to it, with `/` separators. */
function files(dir, sub = '') {
  return fs
    .readdirSync(path.join(dir, sub), { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? files(dir, path.posix.join(sub, e.name)) : [path.posix.join(sub, e.name)]))
    .sort();
}

/** The SRI string ("sha256-<base64>") of some bytes or text. */
export const sri = (data) => `sha256-${createHash('sha256').update(data).digest('base64')}`;

/** The engine sandbox's frame document (www/sandbox.js), as the page gives it to the frame. */
export function sandboxFrameHtml() {
  const window = {};
  vm.runInNewContext(fs.readFileSync(path.join(www, 'sandbox.js'), 'utf8'), { window });
  return window.ppSandbox.FRAME_HTML;
}

/** The text of every inline classic script of an HTML page. */
export function inlineScripts(html) {
  return [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)]
    .filter(([, attrs]) => !/\bsrc\s*=/i.test(attrs) && !/\btype\s*=\s*["']?(?!text\/javascript|module)[^"'\s>]/i.test(attrs))
    .map((m) => m[2]);
}

/** The site's Content-Security-Policy for a page holding `html`. Scripts: the site's files and the
 * page's own inline scripts (by hash). The playground's page also starts the engine's sandbox, a
 * srcdoc frame that inherits this policy (and adds `connect-src 'none'`): its inline script's hash,
 * `blob:` workers and `'unsafe-eval'` (the runtime evaluates the user's script inside that worker)
 * are for it; `'wasm-unsafe-eval'` compiles the UI's and the engine's WebAssembly. */
export function contentSecurityPolicy(html, { sandbox = false, opaque = false } = {}) {
  // `opaque`: the policy of embed.html, the page of the course-page widgets, which www/embed.js
  // loads in an opaque-origin frame. WebKit matches 'self' against that opaque origin, so nothing
  // of the site's own would load there (the widget stayed on "Loading the playground…"); the
  // widget's page also names the schemes. Inline scripts still need their hashes, and the widget
  // reaches no storage of the site whatever its policy (the frame's origin is opaque).
  const self = opaque ? "'self' https: http:" : "'self'";
  const hashes = inlineScripts(html).map((t) => `'${sri(t)}'`);
  if (sandbox) hashes.push(`'${sri(inlineScripts(sandboxFrameHtml())[0])}'`);
  const script = [self, ...hashes, ...(sandbox ? ["'unsafe-eval'", "'wasm-unsafe-eval'"] : [])];
  return [
    `default-src ${self}`,
    `script-src ${script.join(' ')}`,
    `style-src ${self} 'unsafe-inline'`,
    `img-src ${self} data:`,
    `connect-src ${self}`,
    // 'self': the service worker (sw.js); blob: the sandbox's worker.
    `worker-src ${self}${sandbox ? ' blob:' : ''}`,
    `frame-src ${self}`,
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}

/** `html` with its policy in a meta tag at the top of <head> (replacing one put there before). */
export function withPolicy(html, options) {
  const clean = html.replace(/\s*<meta http-equiv="Content-Security-Policy"[^>]*>/i, '');
  const meta = `<meta http-equiv="Content-Security-Policy" content="${escape(contentSecurityPolicy(clean, options))}">`;
  const at = /<meta charset[^>]*>/i.exec(clean) ?? /<head[^>]*>/i.exec(clean);
  if (!at) throw new Error('no <head> to put the Content-Security-Policy in');
  const end = at.index + at[0].length;
  return `${clean.slice(0, end)}\n  ${meta}${clean.slice(end)}`;
}

/** dist/sw.js: www/sw.js with the site's files, the hash of each, and their version (after the
 * pages got their Content-Security-Policy). */
export function precache(dist) {
  // embed.html: the playground's page for the widgets of www/embed.js (embed mode), with the
  // policy of an opaque-origin frame.
  const index = path.join(dist, 'index.html');
  if (fs.existsSync(index)) fs.writeFileSync(path.join(dist, 'embed.html'), withPolicy(fs.readFileSync(index, 'utf8'), { sandbox: true, opaque: true }));
  for (const [page, options] of [['index.html', { sandbox: true }], ['lessons.html', {}]]) {
    const file = path.join(dist, page);
    if (fs.existsSync(file)) fs.writeFileSync(file, withPolicy(fs.readFileSync(file, 'utf8'), options));
  }
  const list = files(dist).filter((f) => f !== 'sw.js');
  const hash = createHash('sha256');
  const integrity = {};
  for (const f of list) {
    const bytes = fs.readFileSync(path.join(dist, f));
    integrity[f] = sri(bytes);
    hash.update(f + '\0').update(bytes);
  }
  const version = hash.digest('hex').slice(0, 16);
  const template = fs.readFileSync(path.join(www, 'sw.js'), 'utf8');
  const marker = /\/\* PRECACHE \*\/.*\/\* END PRECACHE \*\//;
  if (!marker.test(template)) throw new Error('www/sw.js: no /* PRECACHE */ ... /* END PRECACHE */ marker');
  const value = JSON.stringify({ version, files: integrity });
  fs.writeFileSync(path.join(dist, 'sw.js'), template.replace(marker, () => `/* PRECACHE */ ${value} /* END PRECACHE */`));
  return { version, files: list };
}

export function stage(dir) {
  fs.mkdirSync(dir, { recursive: true });
  for (const f of ['embed.js', 'embed-demo.html', 'register-sw.js', 'sandbox.js', 'favicon.svg']) fs.copyFileSync(path.join(www, f), path.join(dir, f));
  const list = lessons();
  fs.writeFileSync(path.join(dir, 'lessons.html'), indexPage(list));
  return list;
}

function main([cmd, dir]) {
  if (cmd === 'stage' && dir) {
    const list = stage(dir);
    console.log(`site: embed.js, embed-demo.html and lessons.html (${list.length} lessons) in ${dir}`);
    return 0;
  }
  if (cmd === 'precache' && dir) {
    const { version, files: list } = precache(dir);
    console.log(`site: ${dir}/sw.js precaches ${list.length} files (version ${version})`);
    return 0;
  }
  console.error('usage: node tools/site.mjs stage <dir> | precache <dist>');
  return 2;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = main(process.argv.slice(2));
}
