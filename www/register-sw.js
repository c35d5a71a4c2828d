// Registers the service worker (www/sw.js, written into dist/ by `make dist`), which keeps the site
// working offline. Not in embed mode: a widget's iframe may have an opaque origin, where touching
// navigator.serviceWorker throws, and a widget should not install the whole site on a course page.
// Under `trunk serve` there is no sw.js and the registration fails quietly.
//
// Not on the first load's critical path: installing fetches every file of the site, so the
// playground registers it once it is interactive (the `pp-ready` event, src/app/pg.rs), other
// pages once they loaded.
function ppRegisterServiceWorker() {
  try {
    if ('serviceWorker' in navigator && location.hash.indexOf('#/embed') !== 0) {
      navigator.serviceWorker.register('sw.js').catch(() => {});
    }
  } catch (e) {
    // an opaque origin: no service worker
  }
}
if (window.ppReady === true) ppRegisterServiceWorker();
else if (document.getElementById('app')) window.addEventListener('pp-ready', ppRegisterServiceWorker, { once: true });
else if (document.readyState === 'complete') ppRegisterServiceWorker();
else window.addEventListener('load', ppRegisterServiceWorker, { once: true });
