// The course in the browser: every lesson of lessons/ opens in the playground's lesson view (title,
// steps, audits as the engine's parser reads them), and the lessons the headless runner runs
// (all but those of lessons/engine-gaps.skip) also run in the page, step by step through the real
// worker, with no uncaught error and each audit at its `expect`. Run by `make test-browser`.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { serve } from "./server.mjs";
import { runAndWait } from "./browser.mjs";
import { createShellContext } from "../../tools/run-script.mjs";
import { lessonFiles, parseLesson, readSkips } from "../../tools/run-lessons.mjs";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const DIST = join(ROOT, "dist");
const CHROMIUM = process.env.CHROMIUM_PATH || "/usr/bin/chromium";
const ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];

const { context: parser } = createShellContext();
const lessons = lessonFiles().map(({ file, text }) => parseLesson(parser, file, text));
const skips = readSkips();

let server;
let browser;

before(async () => {
  server = await serve(DIST, { prefix: "/sub/path" });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS, headless: true });
});

after(async () => {
  await browser?.close();
  await server?.close();
});

async function open() {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(server.url);
  await page.waitForFunction(() => window.ppReady === true, null, { timeout: 60_000 });
  return { context, page, errors };
}

const tab = (page, name) => page.getByRole("tab", { name }).click();

async function openLesson(page, lesson) {
  await page.getByRole("combobox", { name: "Lesson" }).selectOption(lesson.id);
  await page.locator(".lesson-text h2", { hasText: lesson.title }).waitFor();
}

test("every lesson opens in the lesson view", async () => {
  const { context, page, errors } = await open();
  const options = await page.getByRole("combobox", { name: "Lesson" }).locator("option").evaluateAll((os) => os.map((o) => o.value));
  assert.deepEqual([...options].sort(), lessons.map((l) => l.id).sort(), "the lesson menu lists every lesson");
  for (const lesson of lessons) {
    await openLesson(page, lesson);
    assert.equal(await page.locator("ol.steps button").count(), lesson.steps.length, `${lesson.id}: steps`);
    await tab(page, "Audits");
    for (const a of lesson.audits) await page.locator(`li.audit[data-audit="${a.name}"]`).waitFor({ state: "attached" });
    await tab(page, "Lesson");
  }
  assert.deepEqual(errors, []);
  await context.close();
});

for (const lesson of lessons) {
  const skip = skips.get(lesson.id);
  test(`lesson ${lesson.id} runs in the browser`, { skip: skip ? `engine gap: ${skip}` : false, timeout: 300_000 }, async () => {
    const { context, page, errors } = await open();
    await openLesson(page, lesson);
    for (let i = 0; i < lesson.steps.length; i++) {
      await page.locator("ol.steps button").nth(i).click();
      await runAndWait(page);
      const failed = await page.locator("pre.output .err").allInnerTexts();
      assert.deepEqual(failed, [], `${lesson.id} step ${i + 1} "${lesson.steps[i].title}"`);
    }
    await tab(page, "Audits");
    for (const a of lesson.audits) {
      if (a.expect === undefined || a.expect === null) continue;
      const count = page.locator(`li.audit[data-audit="${a.name}"] .count`);
      await page.waitForFunction(
        ([name, want]) => document.querySelector(`li.audit[data-audit="${name}"] .count`)?.innerText.trim() === String(want),
        [a.name, a.expect],
        { timeout: 30_000 },
      ).catch(async () => assert.fail(`${lesson.id}: audit "${a.name}" shows ${await count.innerText()}, expected ${a.expect}`));
    }
    assert.deepEqual(errors, []);
    await context.close();
  });
}
