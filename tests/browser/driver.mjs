// One small page API over the three browser engines learners use, so that one test body runs in
// each (tests/browser/engines.test.mjs):
//   chromium  Debian's Chromium through playwright-core (CDP)
//   firefox   Debian's firefox-esr through puppeteer-core (WebDriver BiDi)
//   webkit    Debian's WebKitGTK MiniBrowser through WebKitWebDriver under Xvfb (classic WebDriver
//             over HTTP, tests/browser/webdriver.mjs)
// All are installed from apt by tools/setup.sh; nothing downloads a browser.
//
// const b = await launchEngine("firefox"); const p = await b.newPage({ width, height });
// await p.goto(url); await p.click(css); await p.type(css, text); await p.press("Control", "Enter");
// await p.text(css); await p.evaluate(fn, arg); await p.waitFor(fn, arg, { timeout });
// await p.screenshot(file); p.frame(css) (the same API inside an iframe); await p.errors(); p.close().
// Selectors are CSS; `type` sends real key strokes (the editor's auto-closed brackets apply).
import { writeFile } from "node:fs/promises";
import { chromium } from "playwright-core";
import { startWebKitDriver, Session, KEY } from "./webdriver.mjs";

export const ENGINES = ["chromium", "firefox", "webkit"];
const CHROMIUM = process.env.CHROMIUM_PATH || "/usr/bin/chromium";
const FIREFOX = process.env.FIREFOX_PATH || "/usr/bin/firefox-esr";
const CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];

/** The engines to test: all three, or those named in PP_BROWSERS (e.g. PP_BROWSERS=firefox,webkit). */
export function enginesToTest() {
  const want = (process.env.PP_BROWSERS || ENGINES.join(",")).split(",").map((s) => s.trim()).filter(Boolean);
  for (const e of want) if (!ENGINES.includes(e)) throw new Error(`PP_BROWSERS: unknown engine ${e} (${ENGINES.join(", ")})`);
  return want;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Starts an engine: { name, newPage({ width, height }), close() }. */
export async function launchEngine(name) {
  if (name === "chromium") {
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
    return {
      name,
      async newPage({ width = 1280, height = 900 } = {}) {
        const context = await browser.newContext({ viewport: { width, height } });
        const page = await context.newPage();
        const errors = [];
        page.on("pageerror", (e) => errors.push(String(e)));
        return new Page(new PlaywrightTarget(page, page), { errors: async () => errors, close: () => context.close(), shot: (path) => page.screenshot({ path }), goto: (u) => page.goto(u), reload: () => page.reload() });
      },
      close: () => browser.close(),
    };
  }
  if (name === "firefox") {
    const { default: puppeteer } = await import("puppeteer-core");
    // Under load the first BiDi session has been refused ("Target closed"): a second try starts it.
    let browser;
    for (let attempt = 1; !browser; attempt++) {
      try {
        browser = await puppeteer.launch({ browser: "firefox", executablePath: FIREFOX, headless: true, defaultViewport: null, timeout: 120_000 });
      } catch (e) {
        if (attempt === 3) throw e;
      }
    }
    return {
      name,
      async newPage({ width = 1280, height = 900 } = {}) {
        // A browser context of its own: storage isolated from the other pages.
        const context = await browser.createBrowserContext();
        const page = await context.newPage();
        await page.setViewport({ width, height });
        const errors = [];
        page.on("pageerror", (e) => errors.push(String(e)));
        return new Page(new PuppeteerTarget(page, page), {
          errors: async () => errors,
          close: () => context.close(),
          shot: (path) => page.screenshot({ path }),
          goto: (u) => page.goto(u),
          reload: () => page.reload(),
        });
      },
      close: () => browser.close(),
    };
  }
  if (name === "webkit") {
    const driver = await startWebKitDriver();
    return {
      name,
      async newPage({ width = 1280, height = 900 } = {}) {
        // A session per page: a MiniBrowser of its own, with ephemeral storage.
        const s = await Session.create(driver.url);
        await s.cmd("POST", "/window/rect", { width, height }).catch(() => {});
        // Classic WebDriver reports no page errors: the page's own listener collects them from the
        // moment it is installed (just after each navigation), so an error thrown while the page
        // loads is not seen in WebKit.
        const listen = () =>
          s.evaluate(() => {
            window.__ppErrors = window.__ppErrors || [];
            if (!window.__ppListening) {
              window.__ppListening = true;
              window.addEventListener("error", (e) => window.__ppErrors.push(String(e.message)));
              window.addEventListener("unhandledrejection", (e) => window.__ppErrors.push(String(e.reason)));
            }
          });
        return new Page(new WebDriverTarget(s, null), {
          errors: () => s.evaluate(() => window.__ppErrors || []),
          close: () => s.close(),
          shot: async (path) => writeFile(path, Buffer.from(await s.cmd("GET", "/screenshot"), "base64")),
          goto: async (u) => {
            await s.cmd("POST", "/url", { url: u });
            await listen();
          },
          reload: async () => {
            await s.cmd("POST", "/refresh", {});
            await listen();
          },
        });
      },
      close: () => driver.close(),
    };
  }
  throw new Error(`unknown engine ${name}`);
}

/** The iframe of the element matching `s`: the element itself, or an iframe in its open shadow
 * root (a <pattern-playground> widget's) or among its children. */
const FRAME_OF = (s) => {
  const e = document.querySelector(s);
  if (!e) return null;
  if (e.tagName === "IFRAME") return e;
  return (e.shadowRoot && e.shadowRoot.querySelector("iframe")) || e.querySelector("iframe");
};

/** What every target (a page, or an iframe in it) does. */
class Scope {
  constructor(target) {
    this.t = target;
  }
  evaluate(fn, arg) {
    return this.t.evaluate(fn, arg);
  }
  /** Polls `fn(arg)` in the page until it returns a truthy value (returned). */
  async waitFor(fn, arg, { timeout = 60_000, what } = {}) {
    // An element found stands for true: a DOM node does not cross WebDriver BiDi as a value.
    const probe = new Function("arg", `return Promise.resolve((${fn})(arg)).then((v) => (typeof Node !== "undefined" && v instanceof Node ? true : v));`);
    const t0 = Date.now();
    let last;
    for (;;) {
      try {
        const v = await this.t.evaluate(probe, arg);
        if (v) return v;
      } catch (e) {
        last = e;
      }
      if (Date.now() - t0 > timeout) throw new Error(`timed out after ${timeout} ms waiting for ${what ?? String(fn)}${last ? ` (${last.message})` : ""}`);
      await sleep(100);
    }
  }
  async waitForSelector(selector, { timeout = 60_000 } = {}) {
    await this.waitFor((s) => !!document.querySelector(s), selector, { timeout, what: selector });
  }
  async click(selector) {
    await this.waitForSelector(selector);
    await this.t.click(selector);
  }
  /** Clicks the element, then types `text` key by key. */
  async type(selector, text) {
    await this.click(selector);
    await this.t.type(text);
  }
  /** Clicks the element, selects everything in it (Ctrl+A), deletes it and types `text`. */
  async replace(selector, text) {
    await this.click(selector);
    await this.t.chord(["Control", "a"]);
    await this.t.chord(["Delete"]);
    await this.t.type(text);
  }
  /** Keys held together, e.g. press("Control", "Enter"). */
  press(...keys) {
    return this.t.chord(keys);
  }
  /** The element's innerText ("" when it is missing). */
  text(selector) {
    return this.t.evaluate((s) => document.querySelector(s)?.innerText ?? "", selector);
  }
}

class Page extends Scope {
  constructor(target, ops) {
    super(target);
    this.ops = ops;
  }
  goto(url) {
    return this.ops.goto(url);
  }
  reload() {
    return this.ops.reload();
  }
  screenshot(path) {
    return this.ops.shot(path);
  }
  /** Uncaught errors of the page (see the WebKit note in launchEngine). */
  errors() {
    return this.ops.errors();
  }
  close() {
    return this.ops.close();
  }
  /** The same API inside the iframe at `selector` (an iframe, or an element holding one, also in
   * its shadow root). */
  frame(selector) {
    return new Scope(this.t.frame(selector));
  }
}

class PlaywrightTarget {
  constructor(page, ctx, frameSelector) {
    Object.assign(this, { page, ctx, frameSelector });
  }
  async scope() {
    if (!this.frameSelector) return this.ctx;
    const handle = await this.page.evaluateHandle(FRAME_OF, this.frameSelector);
    const frame = handle.asElement && handle.asElement() ? await handle.asElement().contentFrame() : null;
    if (!frame) throw new Error(`no iframe at ${this.frameSelector}`);
    return frame;
  }
  async evaluate(fn, arg) {
    return (await this.scope()).evaluate(fn, arg);
  }
  async click(selector) {
    await (await this.scope()).click(selector);
  }
  type(text) {
    return this.page.keyboard.type(text);
  }
  chord(keys) {
    return this.page.keyboard.press(keys.join("+"));
  }
  frame(selector) {
    return new PlaywrightTarget(this.page, null, selector);
  }
}

class PuppeteerTarget extends PlaywrightTarget {
  async chord(keys) {
    for (const k of keys) await this.page.keyboard.down(k);
    for (const k of [...keys].reverse()) await this.page.keyboard.up(k);
  }
  frame(selector) {
    return new PuppeteerTarget(this.page, null, selector);
  }
}

class WebDriverTarget {
  constructor(session, frameSelector) {
    Object.assign(this, { s: session, frameSelector });
  }
  async within(fn) {
    if (this.frameSelector) await this.s.switchToFrame(this.frameSelector, FRAME_OF);
    try {
      return await fn();
    } finally {
      if (this.frameSelector) await this.s.switchToFrame(null);
    }
  }
  evaluate(fn, arg) {
    return this.within(() => this.s.evaluate(fn, arg));
  }
  click(selector) {
    return this.within(async () => {
      const el = await this.s.find(selector);
      await this.s.cmd("POST", `/element/${el}/click`, {});
    });
  }
  async type(text) {
    const actions = [];
    for (const ch of text) actions.push({ type: "keyDown", value: ch === "\n" ? KEY.Enter : ch }, { type: "keyUp", value: ch === "\n" ? KEY.Enter : ch });
    await this.within(async () => {
      await this.s.cmd("POST", "/actions", { actions: [{ type: "key", id: "keyboard", actions }] });
      await this.s.cmd("DELETE", "/actions");
    });
  }
  chord(keys) {
    return this.within(() => this.s.chord(keys));
  }
  frame(selector) {
    return new WebDriverTarget(this.s, selector);
  }
}
