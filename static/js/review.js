// The solver's review on a match page: while a solve it needs is queued or running, the
// review section is fetched again every few seconds and put in place of the old one, until
// every solve is done (the section then has no data-review-pending). Without scripts, the
// page says to reload.
(function () {
  "use strict";
  var EVERY_MS = 3000;

  function pending() {
    var section = document.getElementById("review");
    return section && section.hasAttribute("data-review-pending") ? section : null;
  }

  function refresh() {
    var section = pending();
    if (!section) return;
    fetch(window.location.href, { credentials: "same-origin", headers: { Accept: "text/html" } })
      .then(function (response) { return response.ok ? response.text() : null; })
      .then(function (text) {
        if (text) {
          var fresh = new DOMParser().parseFromString(text, "text/html").getElementById("review");
          if (fresh) section.replaceWith(document.importNode(fresh, true));
        }
      })
      .catch(function () { /* the next round asks again */ })
      .then(function () { if (pending()) window.setTimeout(refresh, EVERY_MS); });
  }

  if (pending()) window.setTimeout(refresh, EVERY_MS);
})();
