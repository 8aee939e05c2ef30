// The replay viewer of a match page (templates/matches/match.html). The server draws the
// step asked for and the log of its window of steps, and gives this script that window's
// frames (the JSON of #replay-frames, see games/replays.py); the other windows come from
// replay.json?from=N&count=M as the viewer reaches them (the next one a little before).
// It steps through them: buttons, clickable log steps, a "jump to" list of the replay's
// chapters, keyboard (Left/Right, Home/End, Space) and play/pause, and says each step it
// stops at in the polite live region #replay-said. It draws cards with the
// markup of templates/includes/card.html. A window that cannot be loaded is asked of the
// server as a page (?step=N), as without JavaScript.
(function () {
  "use strict";

  var section = document.getElementById("replay");
  var embedded = document.getElementById("replay-frames");
  if (!section || !section.dataset.replayUrl || !embedded) return;

  var PILE_SHOWN = 4;
  var PLAY_MS = 1000;
  //: how close to the end of a window (in steps) the next one is asked for
  var AHEAD = 10;
  var WINDOW = Number(section.dataset.window) || 100;
  var total = Number(section.dataset.total) || 0;
  var format = null;
  var windows = {}; // window number -> its frames
  var loading = {}; // window number -> the promise of its frames
  var cards = {};
  var seats = [];
  var current = Number(section.dataset.current) || 0;
  var drawn = false; // set by the first draw
  var wanted = current; // the step asked for last: a window that comes late shows only it
  var logWindow = null; // the window the log lists
  var chapterStarts = [];
  var timer = null;

  var el = {
    said: document.getElementById("replay-said"),
    number: document.getElementById("replay-number"),
    label: document.getElementById("replay-label"),
    shared: document.getElementById("replay-shared"),
    notes: document.getElementById("replay-notes"),
    seats: document.getElementById("replay-seats"),
    decision: document.getElementById("replay-decision"),
    log: document.getElementById("replay-log"),
    logFirst: document.getElementById("replay-log-first"),
    logLast: document.getElementById("replay-log-last"),
    earlier: document.getElementById("replay-earlier"),
    later: document.getElementById("replay-later"),
    table: document.getElementById("replay-table"),
    jump: document.getElementById("replay-jump"),
    chapter: document.getElementById("replay-chapter"),
    play: section.querySelector('[data-go="play"]'),
  };

  var node = window.CardArena.node;

  // ---- the frames, a window at a time --------------------------------------------------
  function keep(answer) {
    if (!answer || !answer.supported || !answer.frames) throw new Error("replay: no frames");
    Object.keys(answer.cards || {}).forEach(function (code) { cards[code] = answer.cards[code]; });
    seats = answer.seats || seats;
    total = answer.total;
    windows[Math.floor(answer.from / WINDOW)] = answer.frames;
  }

  function ask(number, reload) {
    var url = section.dataset.replayUrl + "?from=" + number * WINDOW + "&count=" + WINDOW;
    var options = { headers: { Accept: "application/json" } };
    if (reload) options.cache = "reload";
    return fetch(url, options).then(function (response) {
      if (!response.ok) throw new Error("replay: HTTP " + response.status);
      return response.json();
    }).then(function (answer) {
      // kept by the browser from before the site changed how it draws frames: ask again
      if (answer.format !== format && !reload) return ask(number, true);
      return answer;
    });
  }

  function load(number) {
    if (windows[number]) return Promise.resolve(windows[number]);
    if (!loading[number]) {
      loading[number] = ask(number, false).then(function (answer) {
        keep(answer);
        return windows[number];
      }).finally(function () {
        delete loading[number];
      });
    }
    return loading[number];
  }

  function lastWindow() {
    return Math.floor((total - 1) / WINDOW);
  }

  function prefetch(step) {
    var number = Math.floor(step / WINDOW);
    var offset = step - number * WINDOW;
    var near = null;
    if (offset >= WINDOW - AHEAD && number < lastWindow()) near = number + 1;
    else if (offset < AHEAD && number > 0) near = number - 1;
    if (near !== null && !windows[near]) load(near).catch(function () {});
  }

  function frameAt(step) {
    var frames = windows[Math.floor(step / WINDOW)];
    return frames ? frames[step % WINDOW] : undefined;
  }

  // ---- drawing -------------------------------------------------------------------------
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
    // a zone made only to carry its label's text (games.replays.text_zone): no cards, and
    // no "none" under it, as templates/matches/_zone.html draws it
    if (zone.fan === "text") return box;
    var row = node("span", "zone__cards");
    var shown = zone.fan === "pile" ? zone.cards.slice(-PILE_SHOWN) : zone.cards;
    shown.forEach(function (code) { row.appendChild(drawCard(code)); });
    var down = zone.fan === "pile" ? Math.min(zone.down, 1) : zone.down;
    for (var i = 0; i < down; i++) row.appendChild(drawCard(null));
    if (!count) row.appendChild(node("span", "zone__empty", "none"));
    box.appendChild(row);
    return box;
  }

  // as the server writes points (cardsite.written.figure): a negative with the minus sign
  function number(value) {
    if (typeof value !== "number") return String(value);
    var rounded = Math.round(value * 100) / 100 + 0; // (+ 0: never a negative zero)
    return String(rounded).replace("-", "\u2212");
  }

  // a seat's score with what it counts ("points taken: 7"): the frame's score_label if it
  // has one, else the game's, as the server draws it in templates/matches/_frame.html
  var scoreLabel = el.seats.dataset.scoreLabel || "";
  function scoreBadge(value, frame) {
    var label = frame.score_label || scoreLabel;
    return window.CardArena.scoreBadge(number(value), label, label + " at this step", true);
  }

  function drawSeat(seat, index, frame) {
    var name = seats[index] || "seat " + (index + 1);
    var box = node("section", "seat");
    if (seat.turn) box.classList.add("seat--turn");
    if (frame.actor === index) box.classList.add("seat--actor");
    box.setAttribute("aria-label", "Seat " + (index + 1) + ": " + name);
    var heading = node("h3", "seat__name", name);
    if (index < frame.scores.length) {
      heading.appendChild(document.createTextNode(" "));
      heading.appendChild(scoreBadge(frame.scores[index], frame));
    }
    box.appendChild(heading);
    seat.zones.forEach(function (zone) { box.appendChild(drawZone(zone)); });
    box.appendChild(node("p", "seat__notes", seat.notes.join(" · ")));
    return box;
  }

  // a step's address keeps the page's other parameters (the review's ?review=)
  function stepHref(step) {
    var query = new URLSearchParams(window.location.search);
    query.set("step", String(step + 1));
    return "?" + query.toString() + "#replay";
  }

  function logItem(frame) {
    var item = node("li", "log-step");
    item.id = "step-" + (frame.step + 1);
    var link = node("a", "", frame.label);
    link.href = stepHref(frame.step);
    link.dataset.step = String(frame.step);
    item.appendChild(link);
    if (frame.lines.length) {
      var lines = node("ul", "");
      frame.lines.forEach(function (line) { lines.appendChild(node("li", "", line)); });
      item.appendChild(lines);
    }
    return item;
  }

  function setPage(link, step) {
    if (!link) return;
    link.hidden = step === null;
    if (step !== null) link.href = stepHref(step);
  }

  // the log lists the window of the step shown
  function drawLog(windowNumber) {
    if (!el.log || logWindow === windowNumber) return;
    var frames = windows[windowNumber];
    var first = windowNumber * WINDOW;
    el.log.replaceChildren.apply(el.log, frames.map(logItem));
    el.log.start = first + 1;
    el.log.scrollTop = 0;
    if (el.logFirst) el.logFirst.textContent = String(first + 1);
    if (el.logLast) el.logLast.textContent = String(first + frames.length);
    setPage(el.earlier, windowNumber > 0 ? first - 1 : null);
    setPage(el.later, first + WINDOW < total ? first + WINDOW : null);
    logWindow = windowNumber;
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
    link.href = stepHref(step);
    var stays = step === current;
    if (stays) link.setAttribute("aria-disabled", "true");
    else link.removeAttribute("aria-disabled");
  }

  // the chapter that holds the step: the last one that starts at or before it
  function markChapter(step) {
    if (!el.chapter || !chapterStarts.length) return;
    var low = 0;
    var high = chapterStarts.length - 1;
    while (low < high) {
      var middle = Math.ceil((low + high) / 2);
      if (chapterStarts[middle] <= step) low = middle;
      else high = middle - 1;
    }
    if (el.chapter.selectedIndex !== low) el.chapter.selectedIndex = low;
  }

  // what a screen reader says of a step (#replay-said): its number, its label, and who did
  // what, the actor named where the decision does not name them ("folds": a poker seat's)
  function stepWords(frame) {
    var words = "Step " + (current + 1) + " of " + total + ": " + frame.label;
    var decision = frame.decision || "";
    var actor = typeof frame.actor === "number" ? seats[frame.actor] || "" : "";
    if (decision && actor && decision.indexOf(actor) !== 0) decision = actor + " " + decision;
    return decision ? words + ", " + decision : words;
  }

  function say() {
    var frame = frameAt(current);
    if (el.said && frame) el.said.textContent = stepWords(frame);
  }

  function draw(step) {
    var frame = frameAt(step);
    if (!frame) return;
    current = step;
    el.table.removeAttribute("aria-busy");
    el.number.textContent = String(current + 1);
    el.label.textContent = frame.label;
    el.shared.replaceChildren.apply(el.shared, frame.shared.map(drawZone));
    el.notes.textContent = (frame.notes || []).join(" · ");
    el.seats.replaceChildren.apply(el.seats, frame.seats.map(function (seat, index) {
      return drawSeat(seat, index, frame);
    }));
    el.decision.textContent = frame.decision || "";
    drawLog(Math.floor(current / WINDOW));
    markLog(current);
    markChapter(current);
    setLink("first", 0);
    setLink("previous", Math.max(current - 1, 0));
    setLink("next", Math.min(current + 1, total - 1));
    setLink("last", total - 1);
    // the first draw shows the step the address asked for: the address stays as it was
    if (drawn && window.history && window.history.replaceState) {
      window.history.replaceState(null, "", stepHref(current));
    }
    var first = !drawn;
    drawn = true;
    if (current === total - 1) pause();
    // said at each step but the page's first (nothing happened yet) and while playing (one a
    // second would be too many: the step it stops at is said)
    if (!first && timer === null) say();
    prefetch(current);
  }

  function show(step) {
    if (!total) return;
    step = Math.max(0, Math.min(step, total - 1));
    wanted = step;
    if (frameAt(step)) {
      draw(step);
      return;
    }
    el.table.setAttribute("aria-busy", "true");
    load(Math.floor(step / WINDOW)).then(function () {
      if (wanted === step) draw(step);
    }, function () {
      // the frames did not come: the server draws the step as a page
      pause();
      window.location.assign(stepHref(step));
    });
  }

  // ---- controls ------------------------------------------------------------------------
  function play() {
    if (current === total - 1) show(0);
    el.play.textContent = "Pause";
    el.play.setAttribute("aria-pressed", "true");
    timer = window.setInterval(function () { show(wanted + 1); }, PLAY_MS);
  }

  function pause() {
    if (timer !== null) window.clearInterval(timer);
    timer = null;
    el.play.textContent = "Play";
    el.play.setAttribute("aria-pressed", "false");
  }

  function toggle() {
    if (timer === null) {
      play();
    } else {
      pause();
      say(); // where it stopped
    }
  }

  function go(where) {
    var first = (logWindow === null ? Math.floor(current / WINDOW) : logWindow) * WINDOW;
    var moves = {
      first: 0,
      previous: wanted - 1,
      next: wanted + 1,
      last: total - 1,
      earlier: first - 1,
      later: first + WINDOW,
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
    if (!target) return;
    event.preventDefault();
    if (target.dataset.go) {
      go(target.dataset.go);
    } else {
      pause();
      show(Number(target.dataset.step));
      el.table.focus({ preventScroll: false });
    }
  });

  function jump() {
    pause();
    show(Number(el.chapter.value) - 1);
  }

  if (el.jump && el.chapter) {
    chapterStarts = Array.prototype.map.call(el.chapter.options, function (option) {
      return Number(option.value) - 1;
    });
    el.chapter.addEventListener("change", jump);
    el.jump.addEventListener("submit", function (event) {
      event.preventDefault();
      jump();
    });
  }

  var KEYS = { ArrowLeft: "previous", ArrowRight: "next", Home: "first", End: "last" };
  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
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

  // ---- start: the page's own window ---------------------------------------------------
  var start;
  try {
    start = JSON.parse(embedded.textContent);
    format = start.format;
    keep(start);
  } catch (error) {
    return; // the page still shows the server-drawn step and its log; the links work
  }
  logWindow = Math.floor(start.from / WINDOW);
  el.play.hidden = false;
  el.table.tabIndex = 0;
  // an address that names a log step (#step-N) shows that step
  var named = /^#step-(\d+)$/.exec(window.location.hash);
  show(named ? Number(named[1]) - 1 : current);
})();
