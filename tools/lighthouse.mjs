#!/usr/bin/env node
// Lighthouse (npm `lighthouse`, pinned in package.json) on the built site (dist/), driving Debian's
// Chromium, for `make bench`: the playground, the lesson index and the embed demo, each on mobile
// (Lighthouse's default throttling) and desktop. dist/ is served with gzip, as a static host serves
// it. Prints one table of scores and metrics and, for each missed target, where it goes (long
// tasks, CPU by script, LCP phases, layout shifts); the full reports go to build/lighthouse/<page>-<form>.json.
// Reports only: nothing is asserted.
//
//   node tools/lighthouse.mjs [--pages=index.html,lessons.html] [--forms=mobile,desktop]
import { execFile } from "node:child_process";
import { mkdirSync, readFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { serve } from "../tests/browser/server.mjs";

const ROOT = join(fileURLToPath(new URL(".", import.meta.url)), "..");
const DIST = join(ROOT, "dist");
const OUT = join(ROOT, "build", "lighthouse");
const LIGHTHOUSE = join(ROOT, "node_modules", ".bin", "lighthouse");
const args = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^--/, "").split("=")));
const PAGES = (args.pages ?? "index.html,lessons.html,embed-demo.html").split(",");
const FORMS = (args.forms ?? "mobile,desktop").split(",");
const NAMES = { "index.html": "playground", "lessons.html": "lesson index", "embed-demo.html": "embed demo" };
const CHROME = process.env.CHROME_PATH || process.env.CHROMIUM_PATH || "/usr/bin/chromium";

if (!existsSync(join(DIST, "index.html"))) {
  console.log("lighthouse: no dist/ (make dist) - skipped");
  process.exit(0);
}
mkdirSync(OUT, { recursive: true });

function lighthouse(url, form, file) {
  const flags = [
    url,
    "--output=json",
    `--output-path=${file}`,
    "--quiet",
    "--only-categories=performance,accessibility,best-practices,seo",
    "--chrome-flags=--headless=new --no-sandbox --disable-gpu",
    ...(form === "desktop" ? ["--preset=desktop"] : []),
  ];
  return new Promise((ok, fail) =>
    execFile(LIGHTHOUSE, flags, { env: { ...process.env, CHROME_PATH: CHROME }, maxBuffer: 64 << 20 }, (e, _out, err) =>
      e ? fail(new Error(`lighthouse ${url} (${form}): ${e.message}\n${err.slice(-2000)}`)) : ok(JSON.parse(readFileSync(file, "utf8")))),
  );
}

// The issue's targets: mobile performance >= 90, accessibility, best practices and SEO 100,
// LCP <= 2.0 s and TBT <= 200 ms; desktop performance 100; CLS <= 0.05 on both.
function misses(r, form) {
  const out = [];
  const score = (c) => r.categories[c]?.score;
  const value = (a) => r.audits[a]?.numericValue;
  const perfTarget = form === "mobile" ? 0.9 : 1;
  if (score("performance") != null && score("performance") < perfTarget) out.push(`performance ${Math.round(score("performance") * 100)} < ${perfTarget * 100}`);
  for (const c of ["accessibility", "best-practices", "seo"]) if (score(c) != null && score(c) < 1) out.push(`${c} ${Math.round(score(c) * 100)} < 100`);
  if (form === "mobile" && value("largest-contentful-paint") > 2000) out.push(`LCP ${(value("largest-contentful-paint") / 1000).toFixed(1)} s > 2.0 s`);
  if (form === "mobile" && value("total-blocking-time") > 200) out.push(`TBT ${Math.round(value("total-blocking-time"))} ms > 200 ms`);
  if (value("cumulative-layout-shift") > 0.05) out.push(`CLS ${value("cumulative-layout-shift").toFixed(3)} > 0.05`);
  return out;
}

/** Where a report loses what it misses: the metrics that cost performance points, the long
 * main-thread tasks (TBT is their time past 50 ms each) and which scripts spent the CPU, the LCP's
 * phases, the layout shifts, and the failing audits of the other categories. */
function trace(r, missed) {
  const lines = [];
  const perf = r.categories.performance;
  const lost = (perf?.auditRefs ?? [])
    .filter((a) => a.weight > 0 && r.audits[a.id]?.score != null && r.audits[a.id].score < 1)
    .map((a) => `${a.id} ${r.audits[a.id].displayValue?.replace(/\u00a0/g, " ")} (-${(a.weight * (1 - r.audits[a.id].score)).toFixed(1)} points)`);
  if (lost.length) lines.push(`  performance points lost to: ${lost.join(", ")}`);
  const short = (u) => (u.startsWith("http") ? new URL(u).pathname.split("/").pop().replace(/-[0-9a-f]{16}/, "") : u);
  const tasks = r.audits["long-tasks"]?.details?.items ?? [];
  if (tasks.length) {
    lines.push(`  long tasks (${tasks.length}; throttled ms, each counts its time past 50 ms): ` +
      tasks.slice(0, 6).map((t) => `${short(t.url)} ${Math.round(t.duration)} ms at ${Math.round(t.startTime)}`).join(", "));
  }
  const boot = r.audits["bootup-time"]?.details?.items ?? [];
  if (boot.length) lines.push(`  main-thread CPU by script: ${boot.slice(0, 5).map((b) => `${short(b.url)} ${Math.round(b.total)} ms (script ${Math.round(b.scripting)})`).join(", ")}`);
  if (missed.some((m) => m.startsWith("LCP") || m.startsWith("performance"))) {
    const lcp = r.audits["lcp-breakdown-insight"]?.details?.items ?? [];
    const phases = lcp.find((i) => i.type === "table")?.items ?? [];
    const node = lcp.find((i) => i.type === "node");
    if (phases.length) lines.push(`  LCP ${r.audits["largest-contentful-paint"]?.displayValue?.replace(/\u00a0/g, " ")}: ${phases.map((p) => `${p.label} ${Math.round(p.duration)} ms`).join(", ")}${node ? ` (element: ${node.selector})` : ""}`);
  }
  if (missed.some((m) => m.startsWith("CLS"))) {
    const shifts = r.audits["layout-shifts"]?.details?.items ?? [];
    lines.push(`  layout shifts: ${shifts.slice(0, 5).map((x) => `${x.node?.selector ?? "?"} ${Number(x.score).toFixed(3)}`).join(", ")}`);
  }
  for (const c of ["accessibility", "best-practices", "seo"]) {
    // Only audits that count (weight > 0) cost the category points.
    const failing = (r.categories[c]?.auditRefs ?? []).filter((ref) => ref.weight > 0).map((ref) => r.audits[ref.id]).filter((a) => a && a.score !== null && a.score < 1);
    if (failing.length) lines.push(`  ${c} fails: ${failing.map((a) => a.id).join(", ")}`);
  }
  return lines.join("\n");
}

const site = await serve(DIST, { gzip: true });
const rows = [];
const traces = [];
try {
  for (const page of PAGES) {
    for (const form of FORMS) {
      const slug = `${page.replace(/\.html$/, "")}-${form}`;
      const t0 = Date.now();
      const r = await lighthouse(site.url + page, form, join(OUT, `${slug}.json`));
      const score = (c) => (r.categories[c]?.score == null ? "-" : Math.round(r.categories[c].score * 100));
      const audit = (a) => r.audits[a]?.displayValue?.replace(/\u00a0/g, " ") ?? "-";
      const failing = Object.values(r.categories["best-practices"]?.auditRefs ?? [])
        .filter((ref) => ref.weight > 0)
        .map((ref) => r.audits[ref.id])
        .filter((a) => a && a.score !== null && a.score < 1 && a.scoreDisplayMode !== "informative" && a.scoreDisplayMode !== "notApplicable")
        .map((a) => a.id);
      rows.push({
        page: NAMES[page] ?? page,
        form,
        perf: score("performance"),
        a11y: score("accessibility"),
        bp: score("best-practices"),
        seo: score("seo"),
        fcp: audit("first-contentful-paint"),
        lcp: audit("largest-contentful-paint"),
        tbt: audit("total-blocking-time"),
        cls: audit("cumulative-layout-shift"),
        si: audit("speed-index"),
        note: failing.length ? `best practices: ${failing.join(", ")}` : "",
      });
      const missed = misses(r, form);
      if (missed.length) traces.push(`${NAMES[page] ?? page}, ${form}: ${missed.join("; ")} MISSED\n${trace(r, missed)}`);
      console.log(`# lighthouse ${page} ${form}: ${((Date.now() - t0) / 1000).toFixed(0)} s`);
    }
  }
} finally {
  await site.close();
}

const head = ["page", "form", "performance", "accessibility", "best practices", "SEO", "FCP", "LCP", "TBT", "CLS", "speed index", "to fix"];
console.log(`\nLighthouse ${JSON.parse(readFileSync(join(ROOT, "node_modules", "lighthouse", "package.json"), "utf8")).version} on dist/ (gzip), Chromium ${CHROME}:`);
console.log(`| ${head.join(" | ")} |\n|${head.map(() => "---").join("|")}|`);
for (const r of rows) console.log(`| ${[r.page, r.form, r.perf, r.a11y, r.bp, r.seo, r.fcp, r.lcp, r.tbt, r.cls, r.si, r.note].join(" | ")} |`);
console.log(`(full reports: build/lighthouse/*.json)`);
if (traces.length) console.log(`\nWhere the missed targets go (from the same reports):\n${traces.join("\n")}`);
else console.log("every Lighthouse target met");
