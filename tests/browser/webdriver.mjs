// A minimal W3C WebDriver (classic, HTTP) client for WebKit: Debian's `WebKitWebDriver`
// (webkit2gtk-driver) driving `MiniBrowser --automation` on an Xvfb display. No dependencies: node's
// fetch and child_process. Only what tests/browser/driver.mjs needs: sessions, navigation,
// elements found by CSS selector, clicks, keys, scripts, frames, screenshots.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer } from "node:net";

export const WEBKIT_DRIVER = process.env.WEBKIT_DRIVER_PATH || "/usr/bin/WebKitWebDriver";
export const MINIBROWSER = process.env.MINIBROWSER_PATH || "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser";
const XVFB = process.env.XVFB_PATH || "/usr/bin/Xvfb";
const ELEMENT = "element-6066-11e4-a52e-4f735466cecf";
/** WebDriver's key codes (https://w3c.github.io/webdriver/#keyboard-actions). */
export const KEY = { Control: "\uE009", Shift: "\uE008", Enter: "\uE007", Delete: "\uE017", Backspace: "\uE003", Tab: "\uE004", Escape: "\uE00C", End: "\uE010", Home: "\uE011", ArrowRight: "\uE014", ArrowLeft: "\uE012" };

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function freePort() {
  return new Promise((ok, fail) => {
    const s = createServer();
    s.on("error", fail);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => ok(port));
    });
  });
}

/** A free X display number (no lock file, no socket). */
function freeDisplay() {
  for (let n = 90 + Math.floor(Math.random() * 100); n < 400; n++) {
    if (!existsSync(`/tmp/.X${n}-lock`) && !existsSync(`/tmp/.X11-unix/X${n}`)) return n;
  }
  throw new Error("no free X display number");
}

async function until(what, fn, timeout = 30_000) {
  const t0 = Date.now();
  for (;;) {
    try {
      if (await fn()) return;
    } catch {
      // not yet
    }
    if (Date.now() - t0 > timeout) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

/** Starts Xvfb and WebKitWebDriver; resolves to { url, close }. */
export async function startWebKitDriver() {
  for (const [f, pkg] of [[WEBKIT_DRIVER, "webkit2gtk-driver"], [MINIBROWSER, "webkit2gtk-driver"], [XVFB, "xvfb"]]) {
    if (!existsSync(f)) throw new Error(`${f} not found: tools/setup.sh installs Debian's ${pkg}`);
  }
  const display = freeDisplay();
  const xvfb = spawn(XVFB, [`:${display}`, "-screen", "0", "1600x1400x24", "-nolisten", "tcp"], { stdio: "ignore" });
  await until(`Xvfb :${display}`, () => existsSync(`/tmp/.X11-unix/X${display}`), 20_000);
  const port = await freePort();
  const driver = spawn(WEBKIT_DRIVER, [`--port=${port}`], { stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, DISPLAY: `:${display}` } });
  let stderr = "";
  driver.stderr.on("data", (d) => (stderr = (stderr + d).slice(-4000)));
  const url = `http://127.0.0.1:${port}`;
  try {
    await until("WebKitWebDriver", async () => (await (await fetch(`${url}/status`)).json()).value?.ready !== undefined, 20_000);
  } catch (e) {
    driver.kill();
    xvfb.kill();
    throw new Error(`${e.message}\n${stderr}`);
  }
  return {
    url,
    close: async () => {
      driver.kill();
      xvfb.kill();
      await sleep(100);
    },
  };
}

/** One WebDriver session (one MiniBrowser, its own ephemeral storage). */
export class Session {
  static async create(driverUrl) {
    // With "browserName" or MiniBrowser's "--headless" in the capabilities, session creation hung
    // (WebKitGTK 2.50); MiniBrowser runs in a window on the Xvfb display instead.
    const r = await call("POST", `${driverUrl}/session`, {
      capabilities: { alwaysMatch: { "webkitgtk:browserOptions": { binary: MINIBROWSER, args: ["--automation"] } } },
    });
    const s = new Session(`${driverUrl}/session/${r.sessionId}`);
    await s.cmd("POST", "/timeouts", { script: 180_000, pageLoad: 120_000, implicit: 0 });
    return s;
  }

  constructor(base) {
    this.base = base;
  }

  cmd(method, path, body) {
    return call(method, this.base + path, body);
  }

  async close() {
    await this.cmd("DELETE", "").catch(() => {});
  }

  /** Runs `fn(arg)` in the current browsing context (fn may be async); its JSON result. */
  async evaluate(fn, arg) {
    const script = `const done = arguments[arguments.length - 1];
Promise.resolve().then(() => (${fn})(arguments[0])).then((v) => done({ v: v === undefined ? null : v }), (e) => done({ e: String((e && e.stack) || e) }));`;
    const r = await this.cmd("POST", "/execute/async", { script, args: [arg === undefined ? null : arg] });
    if (r && r.e !== undefined) throw new Error(`in the page: ${r.e}`);
    return r?.v;
  }

  async find(selector) {
    const r = await this.cmd("POST", "/element", { using: "css selector", value: selector });
    return r[ELEMENT];
  }

  /** Into the iframe that `frameOf(selector)` returns in the top document (null: back to the top). */
  async switchToFrame(selector, frameOf) {
    await this.cmd("POST", "/frame", { id: null });
    if (!selector) return;
    const el = await this.cmd("POST", "/execute/sync", { script: `return (${frameOf})(arguments[0]);`, args: [selector] });
    if (!el || !el[ELEMENT]) throw new Error(`no iframe at ${selector}`);
    await this.cmd("POST", "/frame", { id: el });
  }

  /** Keys pressed together (e.g. ["Control", "Enter"]), released in reverse order. */
  async chord(keys) {
    const codes = keys.map((k) => KEY[k] ?? k);
    const actions = [...codes.map((value) => ({ type: "keyDown", value })), ...codes.reverse().map((value) => ({ type: "keyUp", value }))];
    await this.cmd("POST", "/actions", { actions: [{ type: "key", id: "keyboard", actions }] });
    await this.cmd("DELETE", "/actions");
  }
}

async function call(method, url, body) {
  const res = await fetch(url, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json; charset=utf-8" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error(`WebDriver ${method} ${url}: HTTP ${res.status}: ${text.slice(0, 500)}`);
  }
  if (!res.ok || json.value?.error) {
    const v = json.value ?? {};
    throw new Error(`WebDriver ${method} ${url.replace(/\/session\/[^/]+/, "/session/…")}: ${v.error}: ${v.message}`);
  }
  return json.value;
}
