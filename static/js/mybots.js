/* My bots: follow validations as they happen.
 *
 * Every row of a version that is validating carries data-status-url (its owner-only
 * /my/bots/versions/<id>/status.json). While such rows remain, each is asked every 1.5 s
 * and the page is updated in place: the status badge; once the validation has ended, what a
 * reload would show of it (the reason, a compiler's messages and the log under the row, and
 * the bot's rank or "not rated" line, rendered by the server); the other versions of the same
 * bot (a newly active version retires the previous one), which "Make active" / "Retire"
 * buttons apply, and the banner said after the upload. Changes
 * are announced through the polite live region #validation-live. Without JavaScript the page
 * shows the same state on reload.
 */
(function () {
  "use strict";

  var INTERVAL_MS = 1500;
  var MAX_INTERVAL_MS = 30000;
  var live = document.getElementById("validation-live");
  var delay = INTERVAL_MS;
  var timer = null;
  var inFlight = false;

  function waiting() {
    return Array.prototype.filter.call(
      document.querySelectorAll("tr[data-status-url]"),
      function (row) { return row.dataset.status === "validating"; }
    );
  }

  function announce(message) {
    if (!live) return;
    // Clear first so that the same words said twice are announced twice.
    live.textContent = "";
    window.setTimeout(function () { live.textContent = message; }, 50);
  }

  function setStatus(row, status, text, detail) {
    row.dataset.status = status;
    var badge = row.querySelector('[data-role="status"]');
    if (badge) {
      badge.className = "status status-" + status;
      badge.textContent = text;
    }
    var note = row.querySelector('[data-role="detail"]');
    if (note) note.textContent = detail || "";
    var activate = row.querySelector('[data-role="activate"]');
    if (activate) activate.hidden = status !== "retired";
  }

  // The verdict under the row and the bot's line on its card, as a reload draws them: the
  // server renders them with the page's own templates (verdict_html, meta_html).
  function showVerdict(row, data) {
    var box = document.getElementById("verdict-" + data.id);
    if (box && typeof data.verdict_html === "string") {
      box.innerHTML = data.verdict_html;
      box.closest("tr").hidden = !box.textContent.trim();
    }
    var card = row.closest("[data-bot]");
    var meta = card && card.querySelector('[data-role="meta"]');
    if (meta && typeof data.meta_html === "string") meta.outerHTML = data.meta_html;
  }

  // The banner said after an upload ("Version 2 of mine is stored and waits for
  // validation…") is out of date once that version has a verdict: it then says the verdict.
  function settleNotice(id, number, name, status) {
    var notice = document.querySelector(".messages li.upload-of-version-" + id);
    if (!notice || status === "validating") return;
    var said = "Version " + number + " of " + name;
    if (status === "rejected") {
      notice.textContent = said + " was rejected: its row below says why.";
      notice.classList.remove("success");
      notice.classList.add("error");
    } else if (status === "active") {
      notice.textContent = said + " passed validation and is active.";
    } else {
      notice.textContent = said + " is " + status + ": see its row below.";
    }
  }

  function update(row, data) {
    var card = row.closest("[data-bot]");
    var name = card ? card.dataset.name : "your bot";
    (data.versions || []).forEach(function (version) {
      var other = document.getElementById("version-" + version.id);
      if (other && other !== row && other.dataset.status !== version.status) {
        setStatus(other, version.status, version.text, version.detail);
      }
    });
    setStatus(row, data.status, data.text, data.detail);
    if (!data.final) return;
    showVerdict(row, data);
    settleNotice(data.id, data.number, name, data.status);
    if (card) {
      var retire = card.querySelector('[data-role="retire"]');
      var active = (data.versions || []).some(function (v) { return v.status === "active"; });
      if (retire) retire.hidden = !active;
    }
    if (data.status === "rejected") {
      announce("Version " + data.number + " of " + name + " was rejected: " + data.reason);
    } else {
      announce("Version " + data.number + " of " + name + " is " + data.text + ".");
    }
  }

  function poll(row) {
    return fetch(row.dataset.statusUrl, {
      credentials: "same-origin",
      cache: "no-store",
      headers: { Accept: "application/json" },
    }).then(function (response) {
      if (!response.ok) throw new Error("status " + response.status);
      return response.json();
    }).then(function (data) {
      update(row, data);
    });
  }

  function schedule() {
    window.clearTimeout(timer);
    timer = null;
    if (waiting().length) timer = window.setTimeout(tick, delay);
  }

  function tick() {
    if (document.hidden) {
      schedule();
      return;
    }
    inFlight = true;
    Promise.all(waiting().map(poll)).then(
      function () { delay = INTERVAL_MS; },
      function () { delay = Math.min(delay * 2, MAX_INTERVAL_MS); }
    ).then(function () {
      inFlight = false;
      schedule();
    });
  }

  document.addEventListener("visibilitychange", function () {
    if (!document.hidden && !inFlight && waiting().length) {
      delay = INTERVAL_MS;
      window.clearTimeout(timer);
      tick();
    }
  });

  // A verdict may have come before the page was drawn (a quick validation).
  Array.prototype.forEach.call(document.querySelectorAll("tr[data-version]"), function (row) {
    var card = row.closest("[data-bot]");
    settleNotice(row.dataset.version, row.dataset.number,
                 card ? card.dataset.name : "your bot", row.dataset.status);
  });

  schedule();
})();
