// A playground run's page follows the run in place. It polls the run's status JSON every
// second, moves the progress bar and says where the run is (its place in the queue while it
// waits). When a match was played or the run ended, it asks once for the parts of the page
// that change (/playground/<key>/results/: the progress, the results, "submit this version")
// and puts in only what changed: the rows already there stay the same elements, so focus and
// an opened log stay as they were, and what the person looks at stays where it was on the
// screen. The polite live region #run-said says each
// match played ("3 of 6 matches played.") and the end, once. Without this script the page
// refreshes itself and shows the same.
(function () {
  'use strict';

  var panel = document.getElementById('run-progress');
  var live = document.getElementById('run-said');
  if (!panel || !live || panel.hasAttribute('data-final')) return;
  var statusUrl = panel.getAttribute('data-status-url');
  var resultsUrl = panel.getAttribute('data-results-url');
  var played = Number(panel.getAttribute('data-played'));
  var EVERY_MS = 1000;
  var MOST_MS = 30000; // the longest wait between tries while the site does not answer
  var delay = EVERY_MS;
  var timer = null;
  var busy = false;

  function announce(words) {
    // cleared first, so that the same words said again are announced again
    live.textContent = '';
    window.setTimeout(function () { live.textContent = words; }, 50);
  }

  function show(data) {
    var bar = document.getElementById('run-bar');
    bar.value = data.percent;
    bar.textContent = data.percent + '%';
    document.getElementById('progress-title').textContent =
      data.position ? 'Waiting for a worker' : 'Playing';
    document.getElementById('run-status').textContent = data.message;
  }

  function alike(a, b) {
    return a.nodeType === b.nodeType && a.nodeName === b.nodeName &&
      (a.nodeType !== 1 || a.id === b.id);
  }

  // `old` made like `now` (the same element as the server draws it now), keeping the nodes
  // that are alike; a <details> stays open or closed as the person left it
  function patch(old, now) {
    var i, name;
    var keepOpen = old.nodeName === 'DETAILS';
    for (i = old.attributes.length - 1; i >= 0; i--) {
      name = old.attributes[i].name;
      if (!now.hasAttribute(name) && !(keepOpen && name === 'open')) old.removeAttribute(name);
    }
    for (i = 0; i < now.attributes.length; i++) {
      name = now.attributes[i].name;
      if (keepOpen && name === 'open') continue;
      if (old.getAttribute(name) !== now.attributes[i].value) {
        old.setAttribute(name, now.attributes[i].value);
      }
    }
    var a = old.firstChild;
    var b = now.firstChild;
    while (b) {
      var next = b.nextSibling;
      if (a && alike(a, b)) {
        if (a.nodeType === 1) {
          if (!a.isEqualNode(b)) patch(a, b);
        } else if (a.nodeValue !== b.nodeValue) {
          a.nodeValue = b.nodeValue;
        }
        a = a.nextSibling;
      } else {
        old.insertBefore(b, a); // a new node (or, at the end, appended)
      }
      b = next;
    }
    while (a) {
      var gone = a;
      a = a.nextSibling;
      old.removeChild(gone);
    }
  }

  // What the person looks at: the focused element if it is in view, else the first few
  // elements in view (one of them may go); none at the top of the page, which stays there.
  var LOOKED_AT = 'main h1, main h2, main h3, main p, main progress, main tr, main summary, main li';

  function inView(el) {
    var box = el.getBoundingClientRect();
    return box.height > 0 && box.top >= 0 && box.top < window.innerHeight;
  }

  function lookedAt() {
    if (!window.scrollY) return [];
    var focused = document.activeElement;
    if (focused && focused !== document.body && inView(focused)) return [focused];
    return Array.prototype.filter.call(document.querySelectorAll(LOOKED_AT), inView).slice(0, 5);
  }

  // Scrolls by what the changes above it moved the element the person looked at, so that it
  // stays where it was on the screen (the browser's own scroll anchoring, off while the page
  // follows the run, loses its place when the node it picked goes: the note above the results)
  function keepPlace(seen, change) {
    var tops = seen.map(function (el) { return el.getBoundingClientRect().top; });
    change();
    for (var i = 0; i < seen.length; i++) {
      if (!seen[i].isConnected) continue;
      var moved = seen[i].getBoundingClientRect().top - tops[i];
      if (moved) window.scrollBy(0, moved);
      return;
    }
  }

  function refresh() {
    return fetch(resultsUrl, { headers: { Accept: 'text/html' }, cache: 'no-store' })
      .then(function (response) {
        if (!response.ok) throw new Error('HTTP ' + response.status);
        return response.text();
      })
      .then(function (html) {
        var box = document.createElement('template');
        box.innerHTML = html;
        keepPlace(lookedAt(), function () {
          Array.prototype.forEach.call(box.content.children, function (part) {
            var old = part.id && document.getElementById(part.id);
            if (old && !old.isEqualNode(part)) patch(old, part);
          });
        });
        var now = Number(panel.getAttribute('data-played'));
        var matches = panel.getAttribute('data-matches');
        if (panel.hasAttribute('data-final')) {
          document.body.style.overflowAnchor = '';
          announce(panel.getAttribute('data-said'));
        } else if (now !== played) {
          announce(now + ' of ' + matches + ' matches played.');
        }
        played = now;
      });
  }

  function poll() {
    return fetch(statusUrl, { headers: { Accept: 'application/json' }, cache: 'no-store' })
      .then(function (response) {
        if (!response.ok) throw new Error('HTTP ' + response.status);
        return response.json();
      })
      .then(function (data) {
        if (data.final || data.played !== played) return refresh();
        show(data);
      });
  }

  function schedule() {
    window.clearTimeout(timer);
    timer = panel.hasAttribute('data-final') ? null : window.setTimeout(tick, delay);
  }

  function tick() {
    if (document.hidden) return; // asked again when the page is seen
    busy = true;
    poll().then(
      function () { delay = EVERY_MS; },
      function () { delay = Math.min(delay * 2, MOST_MS); }
    ).then(function () {
      busy = false;
      schedule();
    });
  }

  document.body.style.overflowAnchor = 'none';
  document.addEventListener('visibilitychange', function () {
    if (!document.hidden && !busy && !panel.hasAttribute('data-final')) {
      delay = EVERY_MS;
      window.clearTimeout(timer);
      tick();
    }
  });

  schedule();
})();
