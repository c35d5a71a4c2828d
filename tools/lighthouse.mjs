#!/usr/bin/env node
// Lighthouse (npm `lighthouse`, pinned in package.json) on the built site (dist/), driving Debian's
// Chromium, for `make bench`: the playground, the lesson index and the embed demo, each on mobile
// (Lighthouse's default throttling) and desktop. dist/ is served with gzip, as a static host serves
// it. Prints one table of scores and metrics; the full reports go to build/lighthouse/<page>-<form>.json.
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

const site = await serve(DIST, { gzip: true });
const rows = [];
try {
  for (const page of PAGES) {
    for (const form of FORMS) {
      const slug = `${page.replace(/\.html$/, "")}-${form}`;
      const t0 = Date.now();
      const r = await lighthouse(site.url + page, form, join(OUT, `${slug}.json`));
      const score = (c) => (r.categories[c]?.score == null ? "-" : Math.round(r.categories[c].score * 100));
      const audit = (a) => r.audits[a]?.displayValue?.replace(/\u00a0/g, " ") ?? "-";
      const failing = Object.values(r.categories["best-practices"]?.auditRefs ?? [])
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
