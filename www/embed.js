/*! Pattern Playground widgets for course pages.
 *
 * One script tag on the page, from wherever the playground is published:
 *
 *   <script src="https://example.org/playground/embed.js" defer></script>
 *
 * then, anywhere in the page:
 *
 *   <pattern-playground lesson="subset" step="2"></pattern-playground>
 *       step 2 of the Subset lesson (steps count from 1): its script, Run and the output, on the
 *       data the lesson's earlier steps build (they run first, quietly)
 *
 *   <pattern-playground>
 *     <script type="text/mongosh">
 *       db.c.insertOne({ a: 1 });
 *       db.c.find();
 *     </script>
 *   </pattern-playground>
 *       your own script, on an empty database
 *
 *   <pattern-playground lesson="subset" step="3"><script type="text/mongosh">...</script></pattern-playground>
 *       your own script, on the data steps 1-2 of the lesson build
 *
 * The script is read from a child <script type="text/mongosh">: the browser neither runs nor
 * shows it, and its text is taken verbatim (`<`, `&` and quotes need no escaping; only the
 * sequence `</script` cannot appear, write `<\/script` inside strings). It is read once the page
 * has been parsed, its common indentation removed. Change the attributes to load another step.
 *
 * Each widget is an iframe of the playground's embed mode (embed.html#/embed?...: index.html with
 * the Content-Security-Policy of an opaque-origin frame, see tools/site.mjs), so each has its
 * own page, worker and database; widgets on one page never share data. Every Run starts from the
 * same data again. The iframe sits in a shadow root, so the page's stylesheets cannot reach it,
 * and it is sandboxed, so it cannot reach the page:
 *   - page and playground on different origins (the usual case: a course site embedding the
 *     published playground): sandbox="allow-scripts allow-same-origin allow-popups
 *     allow-popups-to-escape-sandbox". The iframe keeps the playground's origin, which the
 *     same-origin policy already separates from the page's, and works on any static host.
 *   - page and playground on the same origin: the same without allow-same-origin, since a
 *     same-origin iframe with both flags could reach the page and lift its own sandbox. The
 *     iframe then has an opaque origin ("null"): it cannot read the page, and its requests for the
 *     playground's files are cross-origin, so the server must answer them with
 *     `Access-Control-Allow-Origin: *` (GitHub Pages does, for every file).
 * The popup flags let "Open in the playground" open a normal tab. Either way the widget's scripts
 * run one level further in, in the engine's own sandbox (www/sandbox.js: an opaque-origin frame
 * with no network), so a script on a course page can reach neither the playground's origin nor
 * the page's.
 *
 * The iframe reports its height with postMessage ({ pp: "pattern-playground:height", w, height });
 * a message is used only when it comes from that widget's iframe (event.source) and from the
 * playground's origin (or "null" for an opaque iframe).
 */
(function () {
  'use strict';
  if (!window.customElements || window.customElements.get('pattern-playground')) return;

  const HEIGHT_MESSAGE = 'pattern-playground:height';
  const MIN_HEIGHT = 60;
  const MAX_HEIGHT = 4000;

  // The site's URL comes from this script's own src, so the playground works from any sub-path.
  const me = document.currentScript ||
    [...document.querySelectorAll('script[src]')].reverse().find((s) => /(^|\/)embed\.js([?#].*)?$/.test(s.src));
  const SITE = new URL('.', me ? me.src : location.href);
  const SAME_ORIGIN = SITE.origin === location.origin;
  const SANDBOX = 'allow-scripts allow-popups allow-popups-to-escape-sandbox' + (SAME_ORIGIN ? '' : ' allow-same-origin');
  const FRAME_ORIGIN = SAME_ORIGIN ? 'null' : SITE.origin;

  const CSS =
    // The host element is in the page, so the page's rules reach it; pin what would hide or
    // squash it (an author's `hidden` attribute still hides it). Inner (shadow) !important wins.
    ':host { display: block !important; visibility: visible !important; opacity: 1 !important;' +
    ' position: relative !important; box-sizing: border-box !important; height: auto !important;' +
    ' min-height: 0 !important; max-height: none !important; overflow: visible !important;' +
    ' min-width: 240px !important; max-width: 100% !important; transform: none !important;' +
    ' filter: none !important; clip-path: none !important; margin: 1em 0; padding: 0 !important; }' +
    ':host([hidden]) { display: none !important; }' +
    '.frame { display: block; width: 100%; height: 240px; border: 1px solid #c9d3cc;' +
    ' border-radius: 8px; background: transparent; box-sizing: border-box; color-scheme: normal; }' +
    '.problem { font: 14px/1.4 system-ui, sans-serif; color: #8a1c1c; background: #fdecec;' +
    ' border: 1px solid #e0a0a0; border-radius: 8px; padding: 8px 12px; margin-top: 4px; }' +
    '.problem[hidden] { display: none; }';

  const widgets = [];
  let counter = 0;

  // Heights from the widgets' iframes.
  window.addEventListener('message', (event) => {
    const data = event.data;
    if (!data || typeof data !== 'object' || data.pp !== HEIGHT_MESSAGE) return;
    if (event.origin !== FRAME_ORIGIN) return;
    const w = widgets.find((x) => x._frame && event.source === x._frame.contentWindow);
    if (w && data.w === w._id) w._setHeight(data.height);
  });

  /** The text of a <script type="text/mongosh">, without the lines that only hold the tags'
   * indentation and without the indentation all lines share. */
  function dedent(text) {
    const lines = String(text).replace(/\r\n?/g, '\n').split('\n');
    while (lines.length && !lines[0].trim()) lines.shift();
    while (lines.length && !lines[lines.length - 1].trim()) lines.pop();
    const indents = lines.filter((l) => l.trim()).map((l) => /^[ \t]*/.exec(l)[0].length);
    const indent = indents.length ? Math.min(...indents) : 0;
    return lines.map((l) => l.slice(indent).replace(/[ \t]+$/, '')).join('\n');
  }

  class PatternPlayground extends HTMLElement {
    static get observedAttributes() {
      return ['lesson', 'step'];
    }

    connectedCallback() {
      if (!this._root) {
        this._id = 'pp' + ++counter;
        this._root = this.attachShadow({ mode: 'open' });
        const style = document.createElement('style');
        style.textContent = CSS;
        this._problem = document.createElement('div');
        this._problem.className = 'problem';
        this._problem.setAttribute('role', 'alert');
        this._problem.hidden = true;
        // The frame's box from the start: the iframe comes once the page is parsed (below), and
        // the text after the widget must not move down when it does (no layout shift).
        this._placeholder = document.createElement('div');
        this._placeholder.className = 'frame';
        this._placeholder.setAttribute('aria-hidden', 'true');
        this._root.append(style, this._placeholder, this._problem);
      }
      if (!widgets.includes(this)) widgets.push(this);
      // The script child is there once the page is parsed (this element may be upgraded as soon
      // as its start tag is).
      if (document.readyState === 'loading') {
        document.addEventListener('DOMContentLoaded', () => this._load(), { once: true });
      } else {
        this._load();
      }
    }

    disconnectedCallback() {
      const i = widgets.indexOf(this);
      if (i >= 0) widgets.splice(i, 1);
      // A moved element reloads its iframe anyway: start afresh when it comes back.
      this._src = null;
    }

    attributeChangedCallback(name, before, after) {
      if (this._src && before !== after) this._load();
    }

    /** The script the page gives this widget, or null. */
    _script() {
      for (let c = this.firstElementChild; c; c = c.nextElementSibling) {
        if (c.localName === 'script' && /^text\/mongosh$/i.test((c.getAttribute('type') || '').trim())) {
          return dedent(c.textContent);
        }
      }
      return null;
    }

    _load() {
      if (!this.isConnected) return;
      const lesson = (this.getAttribute('lesson') || '').trim();
      const step = (this.getAttribute('step') || '').trim();
      const script = this._script();
      const q = [];
      if (lesson) q.push('lesson=' + encodeURIComponent(lesson));
      if (step) q.push('step=' + encodeURIComponent(step));
      if (script !== null) q.push('script=' + encodeURIComponent(script));
      q.push('w=' + encodeURIComponent(this._id), 'host=' + encodeURIComponent(location.origin));
      const src = new URL('embed.html#/embed?' + q.join('&'), SITE).href;
      if (src === this._src) return;
      this._src = src;
      this._problem.hidden = true;
      if (this._frame) this._frame.remove();
      if (this._placeholder) {
        this._placeholder.remove();
        this._placeholder = null;
      }
      const frame = document.createElement('iframe');
      frame.className = 'frame';
      frame.setAttribute('sandbox', SANDBOX);
      frame.setAttribute('title', 'Pattern Playground: ' + (lesson ? lesson + (step ? ', step ' + step : '') : 'a mongosh script'));
      frame.setAttribute('loading', 'lazy');
      frame.setAttribute('referrerpolicy', 'no-referrer');
      frame.src = src;
      this._frame = frame;
      this._heard = false;
      // No word from the playground long after its page loaded: say what may be wrong.
      frame.addEventListener('load', () => {
        setTimeout(() => {
          if (this._frame !== frame || this._heard) return;
          this._problem.textContent = 'The playground did not start in this frame. ' + (SAME_ORIGIN
            ? 'On the playground\u2019s own origin its server must send Access-Control-Allow-Origin: * (see embed.js).'
            : 'Check that ' + SITE.href + ' serves it.');
          this._problem.hidden = false;
        }, 20000);
      });
      this._root.insertBefore(frame, this._problem);
    }

    _setHeight(h) {
      h = Number(h);
      if (!Number.isFinite(h)) return;
      this._heard = true;
      this._problem.hidden = true;
      // The content's height plus the frame's border.
      this._frame.style.height = Math.round(Math.min(MAX_HEIGHT, Math.max(MIN_HEIGHT, h + 2))) + 'px';
    }
  }

  window.customElements.define('pattern-playground', PatternPlayground);
})();
