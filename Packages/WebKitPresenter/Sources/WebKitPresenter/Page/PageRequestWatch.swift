/// The requests a page sends by script, which WebKitGTK 6 shows nowhere else: its
/// `resource-load-started` signal reports a view's main resource only, and a
/// `decide-policy` question comes for navigations, never for a `fetch`. This
/// script runs at the start of every document in every frame, in the page's own
/// world (it must wrap the page's `fetch`), before any of the page's scripts.
///
/// It reports the method and absolute URL of every `fetch`, `XMLHttpRequest` and
/// `navigator.sendBeacon` whose method is not `GET` or `HEAD`, to the `egwRequest`
/// message handler, and never a body or a header. A `fetch` and an asynchronous
/// XHR are sent once the presenter has handed the report to the SDK (the handler
/// answers at once, in every case, so nothing is held for long and nothing is
/// held by us when the page goes); a beacon and a synchronous XHR, which cannot
/// wait, are reported and sent at once. A failure of ours never stops the page's
/// request. What it cannot see: requests from workers, and a page that reaches
/// the original functions some other way (an `iframe`'s before its own document
/// starts).
enum PageRequestWatch {
    static let script = """
        (() => {
          const handlers = window.webkit && window.webkit.messageHandlers;
          const channel = handlers && handlers.egwRequest;
          if (!channel) return;
          const postMessage = channel.postMessage.bind(channel);
          const quiet = (method) => method === 'GET' || method === 'HEAD';
          const absolute = (url) => { try { return new URL(String(url), document.baseURI).href; }
            catch (e) { return String(url); } };
          const report = (method, url) => {
            try { return Promise.resolve(postMessage(method + ' ' + absolute(url))).catch(() => undefined); }
            catch (e) { return Promise.resolve(); }
          };
          const originalFetch = window.fetch;
          if (typeof originalFetch === 'function') {
            window.fetch = function (input, init) {
              let method = 'GET';
              let url = input;
              try {
                const isRequest = typeof Request === 'function' && input instanceof Request;
                method = String((init && init.method) || (isRequest ? input.method : 'GET')).toUpperCase();
                url = isRequest ? input.url : input;
              } catch (e) { method = 'UNKNOWN'; }
              if (quiet(method)) return originalFetch.apply(this, arguments);
              const self = this;
              const args = arguments;
              return report(method, url).then(() => originalFetch.apply(self, args));
            };
          }
          const XHR = window.XMLHttpRequest;
          if (typeof XHR === 'function') {
            const opened = new WeakMap();
            const originalOpen = XHR.prototype.open;
            const originalSend = XHR.prototype.send;
            XHR.prototype.open = function (method, url, async) {
              opened.set(this, { method: String(method).toUpperCase(), url, async: arguments.length < 3 || !!async });
              return originalOpen.apply(this, arguments);
            };
            XHR.prototype.send = function () {
              const request = opened.get(this);
              if (!request || quiet(request.method)) return originalSend.apply(this, arguments);
              const sent = report(request.method, request.url);
              if (!request.async) return originalSend.apply(this, arguments);
              const self = this;
              const args = arguments;
              sent.then(() => { try { originalSend.apply(self, args); } catch (e) { } });
            };
          }
          if (navigator.sendBeacon) {
            const originalBeacon = navigator.sendBeacon.bind(navigator);
            navigator.sendBeacon = function (url, data) {
              report('POST', url);
              return originalBeacon(url, data);
            };
          }
        })();
        """
}
