#!/usr/bin/env node
// The static site's own pages and its service worker, beside trunk's build of the UI.
//
//   node tools/site.mjs stage <dir>      (trunk's build hook, `make stage-web`)
//       copies www/embed.js, www/embed-demo.html, www/register-sw.js, www/sandbox.js and www/favicon.svg into <dir> and writes <dir>/lessons.html,
//       the lesson index: every lesson (build/web/lessons/index.json, the menu tools/lesson-pages
//       built from lessons/*/lesson.md with the site's one parser, src/lesson.rs) in `order`, with
//       its summary.
//   node tools/site.mjs precache <dist>  (`make dist`, after trunk build)
//       writes the first lesson (static HTML) and the lesson menu into <dist>/index.html, each
//       lesson's own page <dist>/lesson-<id>.html (the same with that lesson), and
//       <dist>/embed.html (index.html for the widgets' opaque-origin frames, with the menu), and
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

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const www = path.join(root, 'www');

const escape = (s) =>
  String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
/** Escaped text with `code` spans. */
const inline = (s) => escape(s).replace(/`([^`]+)`/g, '<code>$1</code>');

/** The lesson menu as tools/lesson-pages built it (`make dist` builds it first): every lesson's
 * id, title, pattern, order, summary and step count, in the index's order (`order`, then id), as
 * the playground sorts them. */
export function lessons(dir = path.join(root, 'build', 'web', 'lessons')) {
  return JSON.parse(fs.readFileSync(path.join(dir, 'index.json'), 'utf8'));
}

/** A lesson's own page: the playground (the same app, the same saved work: storage is keyed by
 * the directory) with that lesson as static HTML, which opens on it (unless the learner's saved
 * state is on that lesson already, which it keeps). `index.html?lesson=<id>` opens it too. */
export const lessonLink = (id) => {
  if (!/^[a-z0-9][a-z0-9_-]*$/.test(id)) throw new Error(`lesson id ${JSON.stringify(id)} cannot name a page`);
  return `lesson-${id}.html`;
};

export function indexPage(list) {
  const items = list
    .map(
      (l, i) => `    <li id="${escape(l.id)}">
      <a class="title" href="${escape(lessonLink(l.id))}"><span class="n">${i + 1}</span>${escape(l.title)}</a>
      <span class="meta">${escape(l.pattern)} pattern · ${l.steps} step${l.steps === 1 ? '' : 's'}</span>
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

// ---- the playground's page: the lesson menu, the first lesson, and its static HTML ---------------
// `make dist` puts the lessons beside the UI as files (tools/lesson-pages: lessons/index.json and
// lessons/<id>.json, Markdown already HTML). The playground's page (index.html) carries the menu and
// the first lesson as JSON data blocks, which the UI reads at start (src/app/catalog.rs), and that
// lesson rendered as static HTML in the app's own markup (src/app/pg.rs `App`/`Header`,
// src/app/lesson_view.rs `LessonView`): the text shows at first paint, before any WebAssembly, and
// reads with scripting off (every step and its script, and the quiz, in <noscript>); the app
// replaces it with the same markup when it mounts, so nothing on screen moves.

/** JSON inside an HTML data block: no `<` (so no `</script>` or `<!--` can end the block). */
const dataJson = (v) => JSON.stringify(v).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');

/** The ids of the page's data blocks (src/app/catalog.rs INDEX_ID, LESSON_ID). */
const INDEX_BLOCK = 'pp-lessons';
const LESSON_BLOCK = 'pp-lesson';
/** The placeholder www/index.html has in <main id="app">, and what the page carries instead. */
const APP_ELEMENT = /<main id="app"[^>]*>[\s\S]*?<\/main>/;
const DATA_BLOCKS = /\s*<script type="application\/json" id="pp-lessons?">[\s\S]*?<\/script>/g;

/** The tabs of the playground (src/app/pg.rs `Tab`): id and label. */
const TABS = [['lesson', 'Lesson'], ['data', 'Data'], ['update', 'Update'], ['aggregate', 'Aggregate'], ['audits', 'Audits'], ['sizes', 'Sizes'], ['schema', 'Schema'], ['export', 'Export & share']];

/** The app's first screen for `lesson` (step 1), as static HTML. */
export function staticApp(list, lesson, { own = false } = {}) {
  const options = list
    .map((l) => `<option value="${escape(l.id)}"${l.id === lesson.id ? ' selected' : ''}>${escape(l.title)}</option>`)
    .join('');
  const tabs = TABS.map(
    ([id, label], i) =>
      `<button role="tab" id="tab-${id}" aria-controls="panel-${id}" aria-selected="${i === 0}" tabindex="${i === 0 ? 0 : -1}"${i === 0 ? ' class="active"' : ''}>${escape(label)}</button>`,
  ).join('');
  const [first, ...rest] = lesson.steps;
  const steps = lesson.steps
    .map((s, i) => `<li><button class="step-link${i === 0 ? ' current' : ''}" type="button"${i === 0 ? ' aria-current="step"' : ''}>${escape(s.title)}</button></li>`)
    .join('');
  const step = (s, i) => `<h3>Step ${i + 1}: ${escape(s.title)}</h3><div class="prose">${s.prose}</div>`;
  const script = (s) => `<pre class="editor-static"><code>${escape(s.script)}</code></pre>`;
  // With scripting off: the other steps with their scripts, and the quiz.
  const quiz = lesson.quiz.length
    ? `<section class="quiz" aria-label="Check your understanding"><h3>Check your understanding</h3>${lesson.quiz
        .map((q) => `<details><summary>${escape(q.question)}</summary><p>${escape(q.answer)}</p></details>`)
        .join('')}</section>`
    : '';
  const noscript = `<noscript><p class="muted">The playground runs the scripts in your browser and needs JavaScript and WebAssembly; the lesson reads without them.</p>${rest
    .map((s, i) => `<section class="step">${step(s, i + 1)}${script(s)}</section>`)
    .join('')}${quiz}</noscript>`;
  return `<main id="app" aria-busy="true"${own ? ` data-lesson="${escape(lesson.id)}"` : ''}>` +
    `<header class="top"><h1><span class="leaf" aria-hidden="true">◆</span> Pattern Playground</h1>` +
    `<label class="field"><span>Lesson</span><select aria-label="Lesson">${options}</select></label>` +
    `<a href="lessons.html" class="all-lessons">All lessons</a>` +
    `<label class="field small"><span>Time limit (s)</span><input type="number" min="0.5" max="600" step="0.5" aria-label="Script time limit in seconds" value="10"></label>` +
    `<button class="secondary" type="button">Reset lesson</button>` +
    `<span class="engine-status" role="status">Starting the engine…</span></header>` +
    `<nav class="tabs" role="tablist" aria-label="Playground tools">${tabs}</nav>` +
    `<section class="panel" role="tabpanel" id="panel-lesson" aria-labelledby="tab-lesson"><div class="lesson">` +
    `<article class="lesson-text" aria-label="Lesson"><h2>${escape(lesson.title)}</h2>` +
    `<p class="pattern">Pattern: <strong>${escape(lesson.pattern)}</strong></p><div class="prose">${lesson.intro}</div>` +
    `<ol class="steps" aria-label="Steps">${steps}</ol>` +
    `<section class="step" aria-label="Current step">${first ? step(first, 0) : ''}</section>${noscript}</article>` +
    `<div class="workbench"><div class="toolbar">` +
    `<button class="primary" type="button" id="run" title="Run the script (Ctrl+Enter or Cmd+Enter)" disabled>▶ Run</button>` +
    `<span class="hint">Ctrl/Cmd + Enter</span>` +
    `<button class="secondary" type="button" disabled>← Previous</button>` +
    `<button class="secondary" type="button"${lesson.steps.length > 1 ? '' : ' disabled'}>Next →</button>` +
    `<button class="link" type="button" disabled>Restore the lesson's script</button></div>` +
    `<div class="editor" id="script-editor">${first ? script(first) : ''}</div>` +
    `<h3 class="sr-only" id="output-heading">Output</h3>` +
    `<pre class="output" role="log" aria-live="polite" aria-labelledby="output-heading" tabindex="0"><span class="muted">Run the script to see its output here.</span></pre>` +
    `<p class="after-run">0 write(s) recorded in this session. <button class="link" type="button">See the data →</button></p>` +
    `</div></div></section></main>`;
}

/** trunk's loader of the UI's WebAssembly waits for the first paint (`window.ppAfterPaint`, set in
 * www/index.html), and the page no longer preloads that wasm: before the lesson's text shows,
 * the page fetches nothing large (the engine's sandbox waits for the same moment). */
export function afterFirstPaint(html) {
  if (html.includes('await window.ppAfterPaint;')) return html;
  const init = /(<script type="module">\s*import init, \* as bindings from '[^']+';\s*)(const wasm = await init\()/;
  if (!init.test(html)) throw new Error("index.html: trunk's loader (import init ...; const wasm = await init(...)) not found");
  if (!html.includes('window.ppAfterPaint = ')) throw new Error('index.html does not set window.ppAfterPaint');
  return html
    .replace(init, '$1await window.ppAfterPaint;\n$2')
    .replace(/<link rel="preload" href="[^"]+_bg\.wasm"[^>]*>/g, '');
}

/** www/index.html as trunk built it (a page this function wrote before is read back to that). */
const bareIndex = (html) => html.replace(DATA_BLOCKS, '').replace(APP_ELEMENT, '<main id="app" aria-busy="true"><p class="loading">Loading the playground…</p></main>');

/** `html` with the data blocks (the menu, and `lesson` when given) at the end of <body>, after
 * what the page shows first. */
function withLessonData(html, list, lesson) {
  const blocks = [`<script type="application/json" id="${INDEX_BLOCK}">${dataJson(list)}</script>`];
  if (lesson) blocks.push(`<script type="application/json" id="${LESSON_BLOCK}">${dataJson(lesson)}</script>`);
  const at = html.lastIndexOf('</body>');
  if (at < 0) throw new Error('index.html has no </body>');
  return `${html.slice(0, at)}  ${blocks.join('\n  ')}\n${html.slice(at)}`;
}

/** `html` (the playground's page) titled and described as `lesson`'s own page. */
function lessonHead(html, lesson) {
  return html
    .replace(/<title>[^<]*<\/title>/, () => `<title>${escape(lesson.title)} · Pattern Playground</title>`)
    .replace(/<meta name="description" content="[^"]*">/, () => `<meta name="description" content="${escape(lesson.summary.replace(/`/g, ''))}">`);
}

/** The playground's page (the first lesson static, with its data), each lesson's own page
 * (`lesson-<id>.html`, the same with that lesson), and the widgets' page (the menu only: a widget
 * fetches its lesson, and shows no playground before it mounts), from `html`. */
export function playgroundPages(html, dir) {
  const lessonsDir = path.join(dir, 'lessons');
  const list = JSON.parse(fs.readFileSync(path.join(lessonsDir, 'index.json'), 'utf8'));
  if (!list.length) throw new Error(`${lessonsDir}/index.json lists no lesson`);
  const first = JSON.parse(fs.readFileSync(path.join(lessonsDir, `${list[0].id}.json`), 'utf8'));
  const bare = afterFirstPaint(bareIndex(html));
  if (!APP_ELEMENT.test(bare)) throw new Error('index.html has no <main id="app">');
  const lessonPages = list.map((entry) => {
    const lesson = JSON.parse(fs.readFileSync(path.join(lessonsDir, `${entry.id}.json`), 'utf8'));
    const page = withLessonData(lessonHead(bare, lesson), list, lesson).replace(APP_ELEMENT, () => staticApp(list, lesson, { own: true }));
    return [lessonLink(entry.id), page];
  });
  return {
    index: withLessonData(bare, list, first).replace(APP_ELEMENT, () => staticApp(list, first)),
    embed: withLessonData(bare, list, null),
    lessonPages,
  };
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
  if (fs.existsSync(index)) {
    const pages = playgroundPages(fs.readFileSync(index, 'utf8'), dist);
    fs.writeFileSync(path.join(dist, 'embed.html'), withPolicy(pages.embed, { sandbox: true, opaque: true }));
    fs.writeFileSync(index, pages.index);
    for (const f of fs.readdirSync(dist).filter((f) => /^lesson-.*\.html$/.test(f))) fs.rmSync(path.join(dist, f));
    for (const [name, page] of pages.lessonPages) fs.writeFileSync(path.join(dist, name), withPolicy(page, { sandbox: true }));
  }
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
