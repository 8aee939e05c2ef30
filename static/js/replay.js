// The replay viewer of a match page (templates/matches/match.html). The server draws the
// first frame and the whole log; this script loads the frames (replay.json, see
// games/replays.py) and steps through them: buttons, clickable log steps, keyboard
// (Left/Right, Home/End, Space) and play/pause. It draws cards with the markup of
// templates/includes/card.html.
(function () {
  "use strict";

  var section = document.getElementById("replay");
  if (!section || !section.dataset.replayUrl) return;

  var PILE_SHOWN = 4;
  var PLAY_MS = 1000;
  var frames = null;
  var cards = {};
  var seats = [];
  var current = Number(section.dataset.current) || 0;
  var timer = null;

  var el = {
    counter: document.getElementById("replay-counter"),
    number: document.getElementById("replay-number"),
    label: document.getElementById("replay-label"),
    shared: document.getElementById("replay-shared"),
    notes: document.getElementById("replay-notes"),
    seats: document.getElementById("replay-seats"),
    decision: document.getElementById("replay-decision"),
    log: document.getElementById("replay-log"),
    table: document.getElementById("replay-table"),
    play: section.querySelector('[data-go="play"]'),
  };

  var node = window.CardArena.node;

  function drawCard(code) {
    return window.CardArena.drawCard(code === null ? null : cards[code], "small");
  }

  function drawZone(zone) {
    var box = node("div", "zone zone--" + zone.fan);
    var label = node("span", "zone__label", zone.label);
    var count = zone.cards.length + zone.down;
    if (zone.fan === "pile") {
      label.appendChild(document.createTextNode(" "));
      label.appendChild(node("span", "zone__count", "(" + count + ")"));
    }
    box.appendChild(label);
    var row = node("span", "zone__cards");
    var shown = zone.fan === "pile" ? zone.cards.slice(-PILE_SHOWN) : zone.cards;
    shown.forEach(function (code) { row.appendChild(drawCard(code)); });
    var down = zone.fan === "pile" ? Math.min(zone.down, 1) : zone.down;
    for (var i = 0; i < down; i++) row.appendChild(drawCard(null));
    if (!count) row.appendChild(node("span", "zone__empty", "none"));
    box.appendChild(row);
    return box;
  }

  function number(value) {
    if (typeof value !== "number") return String(value);
    return String(Math.round(value * 100) / 100);
  }

  function drawSeat(seat, index, frame) {
    var name = seats[index] || "seat " + index;
    var box = node("section", "seat");
    if (seat.turn) box.classList.add("seat--turn");
    if (frame.actor === index) box.classList.add("seat--actor");
    box.setAttribute("aria-label", "Seat " + index + ": " + name);
    var heading = node("h3", "seat__name", name);
    if (index < frame.scores.length) {
      heading.appendChild(document.createTextNode(" "));
      heading.appendChild(node("span", "seat__score", number(frame.scores[index])));
    }
    box.appendChild(heading);
    seat.zones.forEach(function (zone) { box.appendChild(drawZone(zone)); });
    box.appendChild(node("p", "seat__notes", seat.notes.join(" · ")));
    return box;
  }

  function markLog(step) {
    if (!el.log) return;
    var old = el.log.querySelector(".log-step.is-current");
    if (old) {
      old.classList.remove("is-current");
      old.removeAttribute("aria-current");
    }
    var item = document.getElementById("step-" + (step + 1));
    if (!item) return;
    item.classList.add("is-current");
    item.setAttribute("aria-current", "step");
    // keep the current step in view inside the log box, without scrolling the page
    var top = item.offsetTop - el.log.offsetTop;
    if (top < el.log.scrollTop || top + item.offsetHeight > el.log.scrollTop + el.log.clientHeight) {
      el.log.scrollTop = top - el.log.clientHeight / 3;
    }
  }

  function setLink(go, step) {
    var link = section.querySelector('[data-go="' + go + '"]');
    if (!link) return;
    link.href = "?step=" + (step + 1) + "#replay";
    var stays = step === current;
    if (stays) link.setAttribute("aria-disabled", "true");
    else link.removeAttribute("aria-disabled");
  }

  function show(step) {
    if (!frames || !frames.length) return;
    current = Math.max(0, Math.min(step, frames.length - 1));
    var frame = frames[current];
    el.number.textContent = String(current + 1);
    el.label.textContent = frame.label;
    el.shared.replaceChildren.apply(el.shared, frame.shared.map(drawZone));
    el.notes.textContent = (frame.notes || []).join(" · ");
    el.seats.replaceChildren.apply(el.seats, frame.seats.map(function (seat, index) {
      return drawSeat(seat, index, frame);
    }));
    el.decision.textContent = frame.decision || "";
    markLog(current);
    setLink("first", 0);
    setLink("previous", Math.max(current - 1, 0));
    setLink("next", Math.min(current + 1, frames.length - 1));
    setLink("last", frames.length - 1);
    if (window.history && window.history.replaceState) {
      window.history.replaceState(null, "", "?step=" + (current + 1) + "#replay");
    }
    if (current === frames.length - 1) pause();
  }

  function play() {
    if (!frames) return;
    if (current === frames.length - 1) show(0);
    el.play.textContent = "Pause";
    el.play.setAttribute("aria-pressed", "true");
    el.counter.setAttribute("aria-live", "off"); // no announcement every second while playing
    timer = window.setInterval(function () { show(current + 1); }, PLAY_MS);
  }

  function pause() {
    if (timer !== null) window.clearInterval(timer);
    timer = null;
    el.play.textContent = "Play";
    el.play.setAttribute("aria-pressed", "false");
    el.counter.setAttribute("aria-live", "polite");
  }

  function toggle() {
    if (timer === null) play();
    else pause();
  }

  function go(where) {
    if (!frames) return false;
    var moves = {
      first: 0,
      previous: current - 1,
      next: current + 1,
      last: frames.length - 1,
    };
    if (where === "play") {
      toggle();
      return true;
    }
    if (!(where in moves)) return false;
    pause();
    show(moves[where]);
    return true;
  }

  section.addEventListener("click", function (event) {
    var target = event.target.closest("[data-go], [data-step]");
    if (!target || !frames) return;
    event.preventDefault();
    if (target.dataset.go) {
      go(target.dataset.go);
    } else {
      pause();
      show(Number(target.dataset.step));
      el.table.focus({ preventScroll: false });
    }
  });

  var KEYS = { ArrowLeft: "previous", ArrowRight: "next", Home: "first", End: "last" };
  document.addEventListener("keydown", function (event) {
    if (!frames || event.altKey || event.ctrlKey || event.metaKey) return;
    var target = event.target;
    var inside = target === document.body || section.contains(target);
    if (!inside || target.matches("input, textarea, select, [contenteditable]")) return;
    if (event.key === " " || event.key === "Spacebar") {
      // a focused button or link keeps its own Space
      if (target.matches("button, a")) return;
      event.preventDefault();
      go("play");
    } else if (KEYS[event.key]) {
      event.preventDefault();
      go(KEYS[event.key]);
    }
  });

  function start(data) {
    if (!data || !data.supported || !data.frames || !data.frames.length) return;
    frames = data.frames;
    cards = data.cards || {};
    seats = data.seats || [];
    el.play.hidden = false;
    el.table.tabIndex = 0;
    show(current);
  }

  fetch(section.dataset.replayUrl, { headers: { Accept: "application/json" } })
    .then(function (response) {
      if (!response.ok) throw new Error("replay: HTTP " + response.status);
      return response.json();
    })
    .then(start)
    .catch(function () {
      // the page still shows the server-drawn step and the whole log; links keep working
    });
})();
