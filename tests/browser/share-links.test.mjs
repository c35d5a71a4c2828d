// Browser tests of short share links (make dist, Debian's Chromium): a finished lesson session's
// link carries the lesson, the step, the edited scripts, the audits and the writes made outside
// the lesson's own scripts; opening it runs those scripts again, with the ObjectIds they made,
// and rebuilds the very same database (and log) as the link carrying every write, which still
// opens.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { deflateRawSync, inflateRawSync } from "node:zlib";
import { serve } from "./server.mjs";
import { DIST, launch, dump, runAndWait } from "./browser.mjs";

let server;
let browser;

before(async () => {
  server = await serve(DIST, { prefix: "/sub/path" });
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await server?.close();
});

async function open(url) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(url);
  await page.waitForFunction(() => window.ppReady === true, null, { timeout: 120_000 });
  return { context, page, errors };
}

/** Runs the editor's script and waits until the run is over. */
async function runStep(page) {
  await runAndWait(page);
  assert.deepEqual(await page.locator("pre.output .err").allInnerTexts(), []);
}

async function exportTab(page) {
  await page.getByRole("tab", { name: "Export & share" }).click();
  await page.locator("#export-script").waitFor();
}

for (const lesson of ["subset", "computed"]) {
  test(`a finished ${lesson} lesson shares in a short link that rebuilds the same database as the long one`, { timeout: 600_000 }, async () => {
    const { context, page, errors } = await open(`${server.url}?lesson=${lesson}`);
    const steps = await page.locator("ol.steps button").count();
    for (let i = 0; i < steps; i++) {
      await page.locator("ol.steps button").nth(i).click();
      await runStep(page);
    }
    // An edited script: the link carries it, and its writes (it is not the lesson's).
    await page.locator("#script-editor .cm-content").click();
    await page.keyboard.press("ControlOrMeta+a");
    await page.keyboard.press("Delete");
    await page.keyboard.insertText('db.notes.insertMany([{ n: 1 }, { n: 2 }]); print("my edit ran");');
    await runStep(page);
    await page.waitForTimeout(700);
    const data = await dump(page);
    assert.ok(data.notes?.length === 2, Object.keys(data).join());
    await exportTab(page);
    const script = await page.locator("#export-script").innerText();
    const short = await page.locator("#share-link").inputValue();
    // It opens the lesson's own page, which paints that lesson before the app runs.
    assert.ok(short.startsWith(`${server.url}lesson-${lesson}.html#s=`), short.slice(0, 120));
    // The link of earlier versions: the saved state, every write in it (what the store keeps).
    const stored = await page.evaluate((id) => Object.entries(localStorage).find(([k]) => k.endsWith(`/lesson/${id}`))?.[1], lesson);
    const long = `${server.url}#s=${stored}`;
    console.log(`${lesson} finished: share link ${long.length} characters with every write, ${short.length} now`);
    assert.ok(short.length <= 4096, `${short.length}`);
    assert.ok(long.length > 4 * short.length, `${long.length} vs ${short.length}`);
    await context.close();

    for (const [name, url] of [["long", long], ["short", short]]) {
      const other = await open(url);
      await other.page.locator(".notice", { hasText: "Opened a shared playground." }).waitFor();
      assert.equal(await other.page.locator(".notice.error").count(), 0, name);
      assert.deepEqual(await dump(other.page), data, name);
      // The edited script is in its step's editor.
      await other.page.waitForFunction(() => document.querySelector("#script-editor .cm-content")?.innerText.includes("my edit ran"));
      // The same log too: the export is the same script, ObjectIds included.
      await exportTab(other.page);
      assert.equal(await other.page.locator("#export-script").innerText(), script, name);
      assert.deepEqual(other.errors, [], name);
      await other.context.close();
    }
    // A link whose run comes out otherwise than it says (here: a digest changed) opens with the
    // run's data and says so.
    if (lesson === "subset") {
      const [base, text] = short.split("#s=");
      const state = JSON.parse(inflateRawSync(Buffer.from(text, "base64url")).toString());
      assert.equal(state.v, 4);
      const run = state.session.entries[0].lesson_run;
      assert.deepEqual([run.step, state.session.entries[0].writes], [0, []]);
      run.left_out.writes = "0000000000000000";
      const other = await open(`${base}#s=${deflateRawSync(Buffer.from(JSON.stringify(state))).toString("base64url")}`);
      await other.page.locator(".notice.error", { hasText: "could not be rebuilt exactly: step 1 made other writes than in the shared playground" }).waitFor();
      assert.deepEqual(await dump(other.page), data);
      await other.context.close();
    }
    assert.deepEqual(errors, []);
  });
}
