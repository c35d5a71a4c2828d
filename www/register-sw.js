// Registers the service worker (www/sw.js, written into dist/ by `make dist`), which keeps the site
// working offline. Not in embed mode: a widget's iframe may have an opaque origin, where touching
// navigator.serviceWorker throws, and a widget should not install the whole site on a course page.
// Under `trunk serve` there is no sw.js and the registration fails quietly.
//
// Not on the first load's critical path: installing fetches every file of the site, so the
// playground registers it once it is interactive (the `pp-ready` event, src/app/pg.rs), other
// pages once they loaded.
//
// A new version of the site waits until the learner agrees: once its service worker is installed
// while an older one controls this page, a notice says "A new version of Pattern Playground is
// ready" with a Reload button, which tells the waiting worker to take over
// ({ type: "pp-skip-waiting" }, see sw.js) and reloads the page when it has.
(function () {
  'use strict';
  let accepted = false;

  /** The "a new version is ready" notice (plain DOM: it works on every page of the site). */
  function offer(waiting) {
    if (!navigator.serviceWorker.controller || document.getElementById('pp-update')) return;
    const bar = document.createElement('div');
    bar.id = 'pp-update';
    bar.setAttribute('role', 'status');
    Object.assign(bar.style, {
      position: 'fixed', left: '50%', bottom: '16px', transform: 'translateX(-50%)', zIndex: '1000',
      display: 'flex', gap: '12px', alignItems: 'center', padding: '8px 12px', borderRadius: '8px',
      background: '#00684a', color: '#fff', font: '14px/1.4 system-ui, sans-serif', boxShadow: '0 2px 8px rgba(0,0,0,.3)',
    });
    const text = document.createElement('span');
    text.textContent = 'A new version of Pattern Playground is ready.';
    const reload = document.createElement('button');
    reload.type = 'button';
    reload.textContent = 'Reload to update';
    const later = document.createElement('button');
    later.type = 'button';
    later.textContent = 'Later';
    later.setAttribute('aria-label', 'Dismiss: update on a later visit');
    reload.addEventListener('click', () => {
      accepted = true;
      reload.disabled = true;
      waiting.postMessage({ type: 'pp-skip-waiting' });
    });
    later.addEventListener('click', () => bar.remove());
    bar.append(text, reload, later);
    document.body.appendChild(bar);
  }

  function register() {
    try {
      if (!('serviceWorker' in navigator) || location.hash.indexOf('#/embed') === 0) return;
      navigator.serviceWorker.addEventListener('controllerchange', () => {
        if (accepted) location.reload();
      });
      navigator.serviceWorker
        .register('sw.js')
        .then((reg) => {
          if (reg.waiting) offer(reg.waiting);
          reg.addEventListener('updatefound', () => {
            const w = reg.installing;
            if (!w) return;
            w.addEventListener('statechange', () => {
              if (w.state === 'installed') offer(w);
            });
          });
        })
        .catch(() => {});
    } catch (e) {
      // an opaque origin: no service worker
    }
  }

  if (window.ppReady === true) register();
  else if (document.getElementById('app')) window.addEventListener('pp-ready', register, { once: true });
  else if (document.readyState === 'complete') register();
  else window.addEventListener('load', register, { once: true });
})();
