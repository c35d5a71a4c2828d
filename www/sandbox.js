// The engine's sandbox: user scripts run where they cannot reach the site's storage, caches or
// network.
//
//   page (the site's origin)                      sandbox frame (opaque origin)
//   ppSandbox.start() ── fetches worker.js,  ──►  <iframe sandbox="allow-scripts" srcdoc>
//     runtime.js, engine/engine.js and              CSP: connect-src 'none' (no fetch, XHR,
//     engine/engine_bg.wasm (this origin,           WebSocket), no storage of its own origin
//     so the service worker's cache)                └─ blob: Worker = engine.js + runtime.js
//   the MessagePort  ◄────── typed messages ──────►     + worker.js, started once the scripts are
//   the wasm's port  ─────── its bytes, chunks ───►     here; it compiles the wasm while the
//                                                        chunks stream in
//
// The frame has no `allow-same-origin`, so its origin is opaque: `caches`, `indexedDB` and
// `localStorage` are refused there and in its worker, requests to the site are cross-origin, and
// the CSP of the frame (inherited by its blob: worker) cuts the network. The page hands in every
// file the worker needs; the frame fetches nothing.
//
// `ppSandbox.start()` returns a Worker-like object (postMessage, onmessage, onerror, terminate):
// messages go straight between the page and the engine worker over a MessagePort the worker keeps
// in a closure, so a script cannot post protocol messages. The frame itself only starts the worker
// and answers pings: while a request is outstanding the page pings it every second, and a frame
// that stops answering (its process crashed, e.g. a script's allocation loop ran out of memory)
// is reported through `onerror`, like a worker that died, so the client restarts it.
//
// index.html starts one at once (`window.ppEarlyWorker`, adopted by src/app/worker.rs).
//
// The time-zone file (tz/zones.tzdb, ~55 KB gzipped) is not on the first load's critical path:
// the engine's wasm carries no time-zone database. The page fetches it once it is interactive (the
// `pp-ready` event), when idle, or at once when a request met a named zone before
// (`ppSandbox.timeZones()`, src/app/worker.rs), and posts it to every live engine worker over its
// port ({ kind: "timeZones", bytes }, see www/worker.js); a worker started later gets it right
// after its boot.
(function () {
  'use strict';
  if (window.ppSandbox) return;

  // The frame's document. Its CSP adds to the page's (a srcdoc frame inherits the page's policy):
  // nothing may be fetched or connected to; scripts only inline (this one) and blob: (the worker,
  // and the nested worker that locates syntax errors); `unsafe-eval` because the runtime evaluates
  // the user's script. Keep FRAME_HTML byte-identical to what tools/site.mjs hashes for the
  // site's CSP (it reads it from this file).
  const FRAME_SCRIPT =
    "(function(){'use strict';var worker=null;" +
    "function say(m){parent.postMessage(m,'*');}" +
    "window.addEventListener('message',function(e){if(e.source!==parent)return;var d=e.data;if(!d||typeof d!=='object')return;" +
    "if(d.pp==='ping'){say({pp:'pong',n:d.n});return;}" +
    "if(d.pp!=='boot'||worker)return;" +
    "try{var url=URL.createObjectURL(new Blob([d.engine,'\\n;\\n',d.runtime,'\\n;\\n',d.worker],{type:'text/javascript'}));" +
    "worker=new Worker(url,{name:'engine'});" +
    "worker.onerror=function(ev){say({pp:'error',message:String(ev.message||'the engine worker failed')+(ev.lineno?' (line '+ev.lineno+')':'')});};" +
    "worker.postMessage({pp:'boot',wasm:d.wasm,port:d.port},[d.port,d.wasm]);}" +
    "catch(err){say({pp:'error',message:String(err&&err.message||err)});}});" +
    "say({pp:'sandbox'});})();";
  const FRAME_CSP =
    "default-src 'none'; script-src 'unsafe-inline' 'unsafe-eval' 'wasm-unsafe-eval' blob:; worker-src blob:; connect-src 'none'";
  const FRAME_HTML =
    '<!doctype html><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="' + FRAME_CSP + '">' +
    '<script>' + FRAME_SCRIPT + '</script>';

  const PING_MS = 1000;
  const DEAD_MS = 4000;

  let files = null;
  /** The worker's files, fetched once per page (a restart reuses them): the three scripts as
   * bytes, and the engine's wasm as a stream of chunks that a worker compiles while it downloads
   * (`wasm.feed`: the chunks so far, then each new one, then the end). */
  function load(base) {
    if (files && files.base === base) return files;
    // The scripts as bytes: the boot message transfers copies of them (a structured clone of
    // text would be deserialized on the main thread; a transfer is not), and the frame makes its
    // Blob of the scripts from bytes as well as from text.
    const bytes = (f) =>
      fetch(new URL(f, base)).then((r) => {
        if (!r.ok) throw new Error(`${f}: HTTP ${r.status}`);
        return r.arrayBuffer();
      });
    const scripts = Promise.all(['worker.js', 'runtime.js', 'engine/engine.js'].map(bytes)).then(([worker, runtime, engine]) => ({ worker, runtime, engine }));
    const wasm = { chunks: [], done: false, error: null, listeners: new Set() };
    wasm.feed = (listener) => {
      for (const c of wasm.chunks) listener({ chunk: c });
      if (wasm.done || wasm.error) listener(wasm.error ? { error: wasm.error } : { done: true });
      else wasm.listeners.add(listener);
    };
    const tell = (m) => {
      for (const l of wasm.listeners) l(m);
      if (!m.chunk) wasm.listeners.clear();
    };
    fetch(new URL('engine/engine_bg.wasm', base))
      .then(async (r) => {
        if (!r.ok) throw new Error(`engine/engine_bg.wasm: HTTP ${r.status}`);
        if (!r.body) {
          const all = new Uint8Array(await r.arrayBuffer());
          wasm.chunks.push(all);
          tell({ chunk: all });
        } else {
          const reader = r.body.getReader();
          for (;;) {
            const { done, value } = await reader.read();
            if (done) break;
            wasm.chunks.push(value);
            tell({ chunk: value });
          }
        }
        wasm.done = true;
        tell({ done: true });
      })
      .catch((err) => {
        wasm.error = String(err && err.message ? err.message : err);
        tell({ error: wasm.error });
        if (files && files.wasm === wasm) files = null;
      });
    scripts.catch(() => {
      if (files && files.scripts === scripts) files = null;
    });
    files = { base, scripts, wasm };
    return files;
  }

  /** The engine workers alive now (each gets the time-zone file when it comes). */
  const live = new Set();
  let zones = null;
  /** The time-zone file, fetched once per page (a failed fetch is tried again on the next call);
   * resolves once every live worker has been handed it. */
  function timeZones(base) {
    if (zones && zones.base === base) return zones.promise;
    const entry = { base, bytes: null, promise: null };
    entry.promise = fetch(new URL('tz/zones.tzdb', base))
      .then((r) => {
        if (!r.ok) throw new Error(`tz/zones.tzdb: HTTP ${r.status}`);
        return r.arrayBuffer();
      })
      .then((bytes) => {
        entry.bytes = bytes;
        for (const w of live) w._giveTimeZones();
      });
    entry.promise.catch(() => {
      if (zones === entry) zones = null;
    });
    zones = entry;
    return entry.promise;
  }

  class SandboxWorker {
    constructor(base) {
      this.base = base;
      this._zonesGiven = false;
      this._booted = false;
      this.onmessage = null;
      this.onerror = null;
      this._dead = false;
      this._outstanding = 0;
      // When the unanswered ping was sent (0: none is).
      this._pingSent = 0;
      this._ping = 0;
      const channel = new MessageChannel();
      this._port = channel.port1;
      this._port.onmessage = (e) => {
        if (e.data && typeof e.data === 'object' && e.data.id !== undefined) this._outstanding = Math.max(0, this._outstanding - 1);
        // The first engine's readiness, for tools/tti.mjs (it breaks the time to interactive down).
        if (e.data && e.data.kind === 'ready' && !performance.getEntriesByName('pp-engine-ready').length) {
          performance.mark('pp-engine-ready');
          const started = e.data.started || {};
          for (const step of ['script', 'boot', 'compiled', 'instance', 'session']) {
            const t = started[step] - performance.timeOrigin;
            try {
              if (t >= 0) performance.mark(`pp-engine-${step}`, { startTime: t });
            } catch (_) {
              // a browser without User Timing level 3 marks only the readiness
            }
          }
        }
        if (typeof this.onmessage === 'function') this.onmessage(e);
      };
      const frame = document.createElement('iframe');
      frame.setAttribute('sandbox', 'allow-scripts');
      frame.setAttribute('aria-hidden', 'true');
      frame.setAttribute('tabindex', '-1');
      frame.title = 'Pattern Playground engine sandbox';
      frame.className = 'pp-sandbox';
      frame.style.cssText = 'display:none';
      frame.srcdoc = FRAME_HTML;
      this.frame = frame;
      const sources = load(base);
      // The wasm's bytes go to the worker over their own port, chunk by chunk as they arrive
      // (copies: a restart needs them again), so it compiles them while they download.
      const wasmChannel = new MessageChannel();
      this._wasmPort = wasmChannel.port1;
      this._onWindowMessage = (e) => {
        if (e.source !== frame.contentWindow || !e.data || typeof e.data !== 'object') return;
        const d = e.data;
        if (d.pp === 'sandbox') {
          sources.scripts.then(
            (f) => {
              if (this._dead) return;
              // Copies are transferred: a restart needs the bytes again.
              const boot = { pp: 'boot', worker: f.worker.slice(0), runtime: f.runtime.slice(0), engine: f.engine.slice(0), wasm: wasmChannel.port2, port: channel.port2 };
              frame.contentWindow.postMessage(boot, '*', [channel.port2, wasmChannel.port2, boot.worker, boot.runtime, boot.engine]);
              sources.wasm.feed((m) => {
                if (this._dead) return;
                if (m.chunk) {
                  const copy = m.chunk.slice(0);
                  this._wasmPort.postMessage({ chunk: copy }, [copy.buffer]);
                } else if (m.done) {
                  this._wasmPort.postMessage({ done: true });
                } else {
                  this._fail(`the engine's files could not be loaded: ${m.error}`);
                }
              });
              this._booted = true;
              this._giveTimeZones();
            },
            (err) => this._fail(`the engine's files could not be loaded: ${err && err.message ? err.message : err}`),
          );
        } else if (d.pp === 'pong' && d.n === this._ping) {
          this._pingSent = 0;
        } else if (d.pp === 'error') {
          this._fail(String(d.message));
        }
      };
      window.addEventListener('message', this._onWindowMessage);
      live.add(this);
      (document.body || document.documentElement).appendChild(frame);
      this._timer = setInterval(() => this._check(), PING_MS);
    }

    /** Hands the worker the time-zone file once, when both it has booted and the file is here
     * (posted on the port after the boot message, so before any request it will serve). */
    _giveTimeZones() {
      if (this._dead || this._zonesGiven || !this._booted || !zones || zones.base !== this.base || !zones.bytes) return;
      this._zonesGiven = true;
      const bytes = zones.bytes.slice(0);
      this._port.postMessage({ kind: 'timeZones', bytes }, [bytes]);
    }

    postMessage(message, transfer) {
      if (this._dead) return;
      if (message && typeof message === 'object' && message.id !== undefined) this._outstanding += 1;
      this._port.postMessage(message, transfer || []);
    }

    /** While a request is outstanding: ping the frame; a frame that leaves a ping unanswered
     * for DEAD_MS is dead. (Only an unanswered ping counts: a background tab's timers may run
     * once a minute.) */
    _check() {
      if (this._dead) return;
      const now = Date.now();
      if (this._pingSent !== 0) {
        if (now - this._pingSent > DEAD_MS) this._fail('the engine stopped answering: its sandbox crashed (a script may have run out of memory)');
        return;
      }
      if (this._outstanding === 0) return;
      this._pingSent = now;
      if (this.frame.contentWindow) this.frame.contentWindow.postMessage({ pp: 'ping', n: ++this._ping }, '*');
    }

    _fail(message) {
      if (this._dead) return;
      const handler = this.onerror;
      this.terminate();
      if (typeof handler === 'function') handler(new ErrorEvent('error', { message }));
    }

    terminate() {
      if (this._dead) return;
      this._dead = true;
      live.delete(this);
      clearInterval(this._timer);
      window.removeEventListener('message', this._onWindowMessage);
      this._port.onmessage = null;
      this._port.close();
      this._wasmPort.close();
      this.frame.remove();
    }
  }

  window.ppSandbox = {
    /** A sandboxed engine worker; `base` is the site's URL (default: this page's directory). */
    start(base) {
      return new SandboxWorker(String(new URL(base || '.', location.href)));
    },
    /** The time-zone file fetched and handed to the engine workers (src/app/worker.rs awaits it
     * before sending again a request that needed it); `base` as for `start`. */
    timeZones(base) {
      return timeZones(String(new URL(base || '.', location.href)));
    },
    FRAME_HTML,
  };

  // In the background: once the page is interactive, when the browser is idle. (tools/site.mjs
  // evaluates this file without a DOM to read FRAME_HTML.)
  if (typeof window.addEventListener !== 'function') return;
  window.addEventListener(
    'pp-ready',
    () => {
      const fetchZones = () => window.ppSandbox.timeZones().catch(() => {});
      if (typeof window.requestIdleCallback === 'function') window.requestIdleCallback(fetchZones, { timeout: 3000 });
      else setTimeout(fetchZones, 500);
    },
    { once: true },
  );
})();
