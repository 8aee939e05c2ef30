// Live tables (templates/tables/table.html and the create form of templates/tables/lobby.html).
//
// The table page is drawn from the messages of the websocket ws/tables/<token>/ (see
// games/live/consumers.py and games/live/host.py): "hello" (your seat), "lobby" (seats while
// the table waits), "seats" (names, away), "state" (the table as your seat may see it),
// "turn" (you are asked: its number, seconds left, the default), "error" (a refusal, for this
// socket only), "over" (the result and the replay's address). The page only sends
// intentions ({"type": "act", "turn": N, "action": ...}); the server checks everything.
// Cards use the markup of templates/includes/card.html, described by games.replays.card_view.
(function () {
  "use strict";

  // ---- the create form: seats past the chosen number of players are hidden -----------------
  var createForm = document.getElementById("create-table");
  if (createForm) {
    var players = createForm.querySelector("select[name=players]");
    var syncSeats = function () {
      if (!players) return;
      var count = Number(players.value);
      createForm.querySelectorAll(".seat-field").forEach(function (box) {
        var used = Number(box.dataset.seat) < count;
        box.hidden = !used;
        box.querySelector("select").disabled = !used;
      });
    };
    if (players) {
      players.addEventListener("change", syncSeats);
      createForm.querySelectorAll(".seat-field .help").forEach(function (help) { help.hidden = true; });
      syncSeats();
    }
  }

  var setupNode = document.getElementById("table-setup");
  if (!setupNode) return;
  var setup = JSON.parse(setupNode.textContent);
  var CARDS = setup.cards || {};
  var SUITS = { s: "spades", h: "hearts", d: "diamonds", c: "clubs" };
  var SUIT_SYMBOLS = { s: "\u2660", h: "\u2665", d: "\u2666", c: "\u2663" };
  var LOG_KEPT = 200;
  var FAN_MOST = 8; // face-down cards drawn of another's hand (the count says how many)

  var el = {
    state: document.getElementById("table-state"),
    connection: document.getElementById("connection"),
    lobby: document.getElementById("table-lobby"),
    lobbySeats: document.getElementById("lobby-seats"),
    lobbyNote: document.getElementById("lobby-note"),
    live: document.getElementById("live"),
    turnLine: document.getElementById("turn-line"),
    countdown: document.getElementById("countdown"),
    seats: document.getElementById("live-seats"),
    shared: document.getElementById("live-shared"),
    hand: document.getElementById("live-hand"),
    controls: document.getElementById("live-controls"),
    error: document.getElementById("live-error"),
    keys: document.getElementById("keys-help"),
    log: document.getElementById("live-log"),
    end: document.getElementById("table-end"),
    endSummary: document.getElementById("end-summary"),
    endScores: document.getElementById("end-scores"),
    endReplay: document.getElementById("end-replay"),
  };

  var t = {
    seat: setup.seat,            // my seat, or null when watching
    names: setup.names.slice(),  // seat names
    away: [],
    view: null,                  // the last "state" view
    turn: null,                  // the last "turn" message while I am asked
    sent: false,                 // an action of this turn is on its way
    deadline: 0,
    selection: [],               // indices into my hand, in the order chosen
    suit: null,
    call: false,
    callTouched: false,          // the person set "Last card!" themselves
    logKeys: {},
    over: false,
    rps: { offer: null, known: null, step: -1, phase: null },
    lc: { moves: [], seen: 0 },
  };

  // ---- small helpers -------------------------------------------------------------------------
  var node = window.CardArena.node;

  function kbd(key) { return node("kbd", null, key); }

  function label(code) { return CARDS[code] ? CARDS[code].label : String(code); }

  function labels(codes) { return codes.map(label).join(", "); }

  // A seat's name; seats of the same name (three copies of one bot) say which seat they are.
  function plainName(seat) {
    var name = t.names[seat] || "seat " + (seat + 1);
    var twins = t.names.filter(function (other) { return other === name; }).length;
    return twins > 1 ? name + " (seat " + (seat + 1) + ")" : name;
  }

  function nameOf(seat) {
    return seat === t.seat ? plainName(seat) + " (you)" : plainName(seat);
  }

  function number(value) {
    if (typeof value !== "number") return String(value);
    return String(Math.round(value * 100) / 100);
  }


  function drawCard(code, size) {
    return window.CardArena.drawCard(code === null ? null : CARDS[code], size);
  }

  // A labelled row of cards (face up, then `down` face-down ones), like a replay's zone.
  function zone(title, codes, down, size, note, fan) {
    var box = node("div", "zone" + (fan ? " zone--fan" : ""));
    var head = node("span", "zone__label", title);
    if (note) {
      head.appendChild(document.createTextNode(" · "));
      head.appendChild(node("span", "zone__count", note));
    }
    box.appendChild(head);
    var row = node("span", "zone__cards");
    (codes || []).forEach(function (code) { row.appendChild(drawCard(code, size)); });
    var backs = fan ? Math.min(down || 0, FAN_MOST) : down || 0;
    for (var i = 0; i < backs; i++) row.appendChild(drawCard(null, size));
    if (!(codes || []).length && !down) row.appendChild(node("span", "zone__empty", "none"));
    box.appendChild(row);
    return box;
  }

  function fact(text, className) { return node("p", "fact" + (className ? " " + className : ""), text); }

  // ---- the socket ------------------------------------------------------------------------------
  var socket = null;
  var retries = 0;
  var everOpen = false;

  function connect() {
    var scheme = window.location.protocol === "https:" ? "wss://" : "ws://";
    socket = new WebSocket(scheme + window.location.host + setup.ws);
    socket.addEventListener("open", function () {
      retries = 0;
      el.connection.textContent = "";
      el.connection.classList.remove("connection--lost");
      if (everOpen) send({ type: "sync" }); // back after a drop: ask for the whole table
      everOpen = true;
    });
    socket.addEventListener("message", function (event) {
      var message;
      try { message = JSON.parse(event.data); } catch (e) { return; }
      receive(message);
    });
    socket.addEventListener("close", function (event) {
      socket = null;
      if (event.code === 4404) {
        el.connection.textContent = "This table does not exist.";
        return;
      }
      if (t.over) return;
      var wait = Math.min(1000 * Math.pow(2, retries), 15000);
      retries += 1;
      el.connection.classList.add("connection--lost");
      el.connection.textContent = "Connection lost: reconnecting in " + Math.round(wait / 1000) + " s…";
      window.setTimeout(connect, wait);
    });
  }

  function send(message) {
    if (!socket || socket.readyState !== WebSocket.OPEN) {
      hint("not connected to the table: your move was not sent (reconnecting…)");
      return false;
    }
    socket.send(JSON.stringify(message));
    return true;
  }

  function receive(message) {
    switch (message.type) {
      case "hello":
        t.seat = message.seat;
        break;
      case "lobby":
        drawLobby(message.seats);
        break;
      case "seats":
        message.seats.forEach(function (seat) {
          t.names[seat.seat] = seat.name;
          t.away[seat.seat] = !!seat.away;
        });
        startPlaying();
        if (t.view) draw();
        break;
      case "state":
        startPlaying();
        if (message.frame) {
          // the game builds the table as a frame: the one renderer draws it
          game = framed;
          Object.keys(message.cards || {}).forEach(function (code) { CARDS[code] = message.cards[code]; });
          t.view = { frame: message.frame, actions: message.actions || [] };
        } else {
          t.view = message.view;
        }
        // how many views arrived: lets a test (or a curious person) see the table move on
        el.live.dataset.updates = String(Number(el.live.dataset.updates || 0) + 1);
        t.turn = null; // a new state: the next question comes after it
        t.sent = false;
        clearError();
        afterState();
        draw();
        break;
      case "turn":
        t.turn = message;
        t.sent = false;
        t.deadline = Date.now() + message.seconds * 1000;
        clearError();
        draw();
        break;
      case "error":
        t.sent = false;
        showError(message.error);
        draw();
        break;
      case "over":
        finish(message);
        break;
      default:
        break;
    }
  }

  // ---- waiting for players -----------------------------------------------------------------
  function drawLobby(seats) {
    if (!el.lobbySeats) return;
    var open = 0;
    seats.forEach(function (seat) {
      var item = el.lobbySeats.querySelector('[data-seat="' + seat.seat + '"]');
      if (!item) return;
      if (seat.open) open += 1;
      item.classList.toggle("seat-chip--open", seat.open);
      item.querySelector("[data-role=name]").textContent =
        seat.open ? "open" : seat.name + (seat.seat === t.seat ? " (you)" : "");
      var join = item.querySelector("[data-role=join]");
      if (join) join.hidden = !seat.open;
    });
    if (el.lobbyNote && t.seat !== null) {
      el.lobbyNote.textContent = open
        ? "Waiting for " + open + (open === 1 ? " more player" : " more players") +
          ". Send the invite link to the people you want to play with."
        : "Every seat is taken: the match is starting.";
    }
  }

  function startPlaying() {
    if (el.lobby) el.lobby.hidden = true;
    el.live.hidden = false;
    if (!t.over) el.state.textContent = "Playing";
  }

  var copy = document.getElementById("copy-invite");
  if (copy) {
    copy.addEventListener("click", function () {
      var input = document.getElementById("invite-link");
      var status = document.getElementById("copy-status");
      var done = function () { status.textContent = "Copied the invite link."; };
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(input.value).then(done, function () {
          input.select();
          status.textContent = "Press Ctrl+C (or Cmd+C) to copy the selected link.";
        });
      } else {
        input.focus();
        input.select();
        status.textContent = document.execCommand && document.execCommand("copy")
          ? "Copied the invite link."
          : "Press Ctrl+C (or Cmd+C) to copy the selected link.";
      }
    });
  }

  // ---- errors and the log ------------------------------------------------------------------
  // the server's refusals say so; the page's own hints (no card chosen...) are plain advice
  function showError(text) { el.error.textContent = text ? "Refused: " + text : ""; }

  function hint(text) { el.error.textContent = text.charAt(0).toUpperCase() + text.slice(1) + "."; }

  function clearError() { el.error.textContent = ""; }

  function addLog(entries) {
    entries.forEach(function (entry) {
      if (t.logKeys[entry.key]) return;
      t.logKeys[entry.key] = true;
      var item = node("li", entry.mine ? "log-line log-line--mine" : "log-line", entry.text);
      el.log.appendChild(item);
    });
    while (el.log.children.length > LOG_KEPT) el.log.removeChild(el.log.firstChild);
    el.log.scrollTop = el.log.scrollHeight;
  }

  // ---- my turn -----------------------------------------------------------------------------
  function asked() { return t.seat !== null && t.turn !== null && !t.sent && !t.over; }

  function act(action) {
    if (!asked()) return;
    if (send({ type: "act", turn: t.turn.turn, action: action })) {
      t.sent = true;
      clearError();
      draw();
    }
  }

  function tick() {
    if (!asked()) {
      el.countdown.hidden = true;
      return;
    }
    var left = Math.max(0, Math.ceil((t.deadline - Date.now()) / 1000));
    el.countdown.hidden = false;
    el.countdown.classList.toggle("countdown--low", left <= 5);
    el.countdown.textContent = left > 0
      ? left + " s left"
      : "Time is up: " + (t.turn.default || setup.defaultAction) + " is played for you";
  }
  window.setInterval(tick, 250);

  // ---- drawing -----------------------------------------------------------------------------
  var game = null; // the game's face, below

  function draw() {
    if (!t.view || !game) return;
    var focused = document.activeElement && document.activeElement.dataset
      ? document.activeElement.dataset.focusId : null;
    el.seats.replaceChildren.apply(el.seats, game.seats(t.view).map(drawSeat));
    el.shared.replaceChildren.apply(el.shared, game.shared(t.view));
    // the hand is drawn anew when it changes; a new choice only marks the cards
    var handKey = JSON.stringify([game.handKey ? game.handKey(t.view) : t.view.you || null, asked(), t.over]);
    if (handKey !== el.hand.dataset.key) {
      var mine = t.seat !== null && (game.handKey || t.view.you) ? game.hand(t.view) : null;
      el.hand.hidden = !mine;
      if (mine) el.hand.replaceChildren(mine);
      else el.hand.replaceChildren();
      el.hand.dataset.key = handKey;
    } else {
      markPicked(el.hand, t.selection);
    }
    var controls = t.seat !== null && !t.over ? game.controls(t.view) : null;
    el.controls.hidden = !controls;
    if (controls) el.controls.replaceChildren.apply(el.controls, controls);
    var keys = t.seat !== null && !t.over ? game.keys() : null;
    el.keys.hidden = !keys;
    if (keys) el.keys.replaceChildren.apply(el.keys, keys);
    el.turnLine.textContent = t.over ? "The match is over." : game.turnLine(t.view);
    el.turnLine.classList.toggle("turn-line--mine", asked());
    tick();
    if (focused) {
      // the same control, drawn anew, keeps the keyboard's place
      var again = el.live.querySelector('[data-focus-id="' + focused + '"]');
      if (again && !again.disabled) again.focus();
    }
  }

  // seat: {seat, notes: [..], zones: [..], turn: bool, score: text}
  function drawSeat(seat) {
    var box = node("section", "seat live-seat");
    if (seat.turn) box.classList.add("seat--turn");
    if (seat.seat === t.seat) box.classList.add("live-seat--mine");
    box.setAttribute("aria-label", "Seat " + (seat.seat + 1) + ": " + nameOf(seat.seat));
    var heading = node("h3", "seat__name");
    var name = node("span", "seat__label");
    // long bot names ("owner/bot", "builtin:name") may break after their separator
    nameOf(seat.seat).split(/([:/])/).forEach(function (part) {
      name.appendChild(document.createTextNode(part));
      if (part === ":" || part === "/") name.appendChild(document.createElement("wbr"));
    });
    heading.appendChild(name);
    if (seat.score !== undefined && seat.score !== null) {
      heading.appendChild(node("span", "seat__score", seat.score));
    }
    box.appendChild(heading);
    var badges = node("p", "badges");
    if (seat.turn) badges.appendChild(node("span", "pill pill--turn", seat.turnText || "to play"));
    if (t.away[seat.seat]) badges.appendChild(node("span", "pill pill--away", "away"));
    (seat.badges || []).forEach(function (text) { badges.appendChild(node("span", "pill", text)); });
    if (badges.children.length) box.appendChild(badges);
    (seat.zones || []).forEach(function (made) { box.appendChild(made); });
    if (seat.notes && seat.notes.length) box.appendChild(node("p", "seat__notes", seat.notes.join(" · ")));
    return box;
  }

  // My hand as buttons: click (or its number key) to choose; `picked` gives the order.
  function handButtons(title, codes, picked, onPick, enabled) {
    var box = node("div", "hand");
    box.appendChild(node("h3", "hand__title", title));
    var row = node("div", "hand__cards");
    row.setAttribute("role", "group");
    row.setAttribute("aria-label", title);
    codes.forEach(function (code, index) {
      var button = node("button", "hand-card");
      button.type = "button";
      button.dataset.focusId = "card-" + index;
      button.dataset.index = String(index);
      var key = index < 9 ? String(index + 1) : index === 9 ? "0" : "";
      button.dataset.name = label(code) + (key ? ", key " + key : "");
      button.disabled = !enabled;
      button.appendChild(drawCard(code));
      if (key) {
        var hint = node("span", "hand-card__key", key);
        hint.setAttribute("aria-hidden", "true");
        button.appendChild(hint);
      }
      button.addEventListener("click", function () { onPick(index); });
      button.addEventListener("dblclick", function () { onPick(index, true); });
      row.appendChild(button);
    });
    box.appendChild(row);
    markPicked(box, picked);
    return box;
  }

  // Shows which cards of the hand are chosen, and in which order (in place: choosing a card
  // does not draw the hand anew, so a double click and the keyboard's focus stay on it).
  function markPicked(box, picked) {
    box.querySelectorAll(".hand-card").forEach(function (button) {
      var order = picked.indexOf(Number(button.dataset.index));
      button.setAttribute("aria-pressed", order >= 0 ? "true" : "false");
      var place = picked.length > 1 ? " " + (order + 1) + " of " + picked.length : "";
      button.setAttribute("aria-label", button.dataset.name + (order >= 0 ? ", chosen" + place : ""));
      var badge = button.querySelector(".hand-card__order");
      if (badge) button.removeChild(badge);
      if (order >= 0 && picked.length > 1) {
        badge = node("span", "hand-card__order", String(order + 1));
        badge.setAttribute("aria-hidden", "true");
        button.appendChild(badge);
      }
    });
  }

  function actionButton(text, key, onClick, options) {
    var button = node("button", "btn action" + (options && options.secondary ? " action--secondary" : ""));
    button.type = "button";
    button.dataset.focusId = "action-" + (key || text);
    button.appendChild(document.createTextNode(text));
    if (key) {
      button.appendChild(document.createTextNode(" "));
      var hint = kbd(key);
      hint.setAttribute("aria-hidden", "true");
      button.appendChild(hint);
      button.setAttribute("aria-keyshortcuts", key === "Esc" ? "Escape" : key);
    }
    button.disabled = !!(options && options.disabled);
    button.addEventListener("click", onClick);
    return button;
  }

  function keyHelp(pairs) {
    var parts = [document.createTextNode("Keys: ")];
    pairs.forEach(function (pair, i) {
      if (i) parts.push(document.createTextNode(", "));
      pair[0].split(" ").forEach(function (key, j) {
        if (j) parts.push(document.createTextNode(" "));
        parts.push(kbd(key));
      });
      parts.push(document.createTextNode(" " + pair[1]));
    });
    return parts;
  }

  function waitingFor(seats) {
    var names = seats.map(nameOf);
    return names.length ? "Waiting for " + names.join(" and ") + "…" : "";
  }

  // ---- the one renderer: a table frame and the seat's actions (games/engine/table.py) --------
  function frameZone(z, size) {
    return zone(z.label, z.cards, z.down, size, z.note, z.fan === "pile");
  }

  // the actions that play a card of the hand, and the others (buttons)
  function cardActions(view) { return view.actions.filter(function (a) { return a.card !== undefined && a.card !== null; }); }

  function buttonActions(view) { return view.actions.filter(function (a) { return a.card === undefined || a.card === null; }); }

  function keyOf(action, key) {
    var keys = [action.key].concat(action.also || []);
    return keys.some(function (k) { return k && k.toLowerCase() === key.toLowerCase(); });
  }

  var framed = {
    handKey: function (view) {
      return [view.frame.hand, view.frame.pick, cardActions(view).map(function (a) { return a.card; })];
    },
    seats: function (view) {
      return view.frame.seats.map(function (seat, index) {
        return {
          seat: index, score: seat.score, notes: seat.notes, badges: seat.badges,
          turn: seat.turn, turnText: seat.turn_text,
          zones: seat.zones.map(function (z) { return frameZone(z, "small"); }),
        };
      });
    },
    shared: function (view) {
      return view.frame.shared.map(function (z) { return frameZone(z, null); })
        .concat(view.frame.lines.map(function (line) { return fact(line); }));
    },
    hand: function (view) {
      var cards = cardActions(view);
      var zones = view.frame.hand || [];
      if (!cards.length && !zones.length) return null;
      var box = cards.length
        ? handButtons(view.frame.pick || "Your cards", cards.map(function (a) { return a.card; }), t.selection,
          function (index, now) {
            t.selection = [index];
            if (now) framed.play(); else draw();
          }, asked())
        : node("div", "hand");
      zones.forEach(function (z) { box.appendChild(frameZone(z, null)); });
      return box;
    },
    play: function () {
      if (!asked()) return;
      if (!t.selection.length) {
        hint("choose a card first: click it or press its number");
        return;
      }
      var chosen = cardActions(t.view)[t.selection[0]];
      if (chosen) act(chosen.value);
    },
    controls: function (view) {
      if (!view.actions.length) return null;
      var parts = [];
      var cards = cardActions(view);
      if (cards.length) {
        var chosen = t.selection.length ? cards[t.selection[0]] : null;
        parts.push(actionButton(cards[0].label + " " + (chosen ? label(chosen.card) : "the chosen card"),
          "Enter", framed.play, { disabled: !asked() || !chosen }));
      }
      buttonActions(view).forEach(function (action) {
        parts.push(actionButton(action.label, action.key, function () { act(action.value); }, {
          disabled: !asked(), secondary: !!action.secondary,
        }));
      });
      return parts;
    },
    keys: function () {
      if (!t.view || !t.view.actions.length) return null;
      var pairs = [];
      if (cardActions(t.view).length) pairs.push(["1 2 3", "choose a card"], ["Enter", "play it"], ["Esc", "clear"]);
      buttonActions(t.view).forEach(function (action) {
        if (action.key) pairs.push([[action.key].concat(action.also || []).join(" "), action.label.toLowerCase()]);
      });
      return keyHelp(pairs);
    },
    onKey: function (key) {
      var cards = cardActions(t.view);
      if (cards.length) {
        if (key === "Enter") { framed.play(); return true; }
        if (key === "Escape") {
          t.selection = [];
          draw();
          return true;
        }
        var index = digit(key);
        if (index !== null && index < cards.length && asked()) {
          t.selection = [index];
          draw();
          return true;
        }
      }
      var wanted = buttonActions(t.view).filter(function (action) { return keyOf(action, key); })[0];
      if (wanted) {
        act(wanted.value);
        return true;
      }
      return false;
    },
    turnLine: function (view) {
      if (asked() && view.frame.prompt) return view.frame.prompt;
      if (t.seat !== null && t.sent) return "Your move is on its way…";
      return view.frame.status;
    },
    log: function (view) {
      return view.frame.log.map(function (entry) { return { key: entry.key, text: entry.text, mine: !!entry.mine }; });
    },
  };

  // ---- RPS Poker ---------------------------------------------------------------------------
  var rps = {
    cards: function (view) {
      if (!view.you) return [];
      return view.phase === "draft" ? view.you.offer || [] : view.you.hand || [];
    },
    seats: function (view) {
      return [0, 1].map(function (seat) {
        var notes = view.phase === "draft"
          ? [view.deck_sizes[seat] + " cards in deck"]
          : [view.hand_sizes[seat] + " in hand", view.deck_sizes[seat] + " in deck"];
        var deciding = view.phase !== "over" && view.chosen.indexOf(seat) < 0;
        var zones = [];
        if (seat !== t.seat && view.phase === "main") zones.push(zone("Hand", [], view.hand_sizes[seat], "small", null, true));
        return {
          seat: seat, notes: notes, zones: zones, score: String(view.scores[seat]),
          turn: deciding, turnText: "choosing",
        };
      });
    },
    shared: function (view) {
      var parts = [];
      if (view.phase === "draft") {
        parts.push(fact("Draft: step " + (view.step + 1) + " of 5. Each player keeps one of two cards and passes the other on."));
      } else if (view.phase === "main") {
        parts.push(zone("Base card", [view.base], 0, null, "game " + (view.step + 1) + " of 10"));
      }
      var last = view.games[view.games.length - 1];
      if (last) {
        parts.push(zone("Last game", last.played, 0, "small", "base " + label(last.base) + ", won by " + nameOf(last.winner)));
      }
      if (view.phase !== "draft") parts.push(fact(view.remaining + " base cards left"));
      return parts;
    },
    hand: function (view) {
      if (view.phase === "over") return null;
      var draft = view.phase === "draft";
      var box = handButtons(draft ? "Your offer: keep one card" : "Your hand", rps.cards(view), t.selection,
        function (index, now) {
          t.selection = [index];
          if (now) rps.play(); else draw();
        }, asked());
      if (view.you.deck && view.you.deck.length) {
        box.appendChild(zone(draft ? "Your deck so far" : "Your deck (drawn in this order)", view.you.deck, 0, "small"));
      }
      return box;
    },
    play: function () {
      if (!asked()) return;
      if (!t.selection.length) {
        hint("choose a card first: click it or press its number");
        return;
      }
      act(t.selection[0]);
    },
    controls: function (view) {
      if (view.phase === "over") return null;
      var draft = view.phase === "draft";
      var chosen = t.selection.length ? label(rps.cards(view)[t.selection[0]]) : "";
      return [
        actionButton(draft ? "Keep " + (chosen || "the chosen card") : "Play " + (chosen || "the chosen card"),
          "Enter", rps.play, { disabled: !asked() || !t.selection.length }),
      ];
    },
    keys: function () {
      return keyHelp([["1 2 3", "choose a card"], ["Enter", "play it"], ["Esc", "clear"]]);
    },
    onKey: function (key) {
      if (key === "Enter") { rps.play(); return true; }
      if (key === "Escape") {
        t.selection = [];
        draw();
        return true;
      }
      var index = digit(key);
      if (index !== null && t.view && index < rps.cards(t.view).length && asked()) {
        t.selection = [index];
        draw();
        return true;
      }
      return false;
    },
    turnLine: function (view) {
      if (view.phase === "over") return "The match is over.";
      if (asked()) {
        return view.phase === "draft"
          ? "Your turn: keep one of the two cards offered to you."
          : "Your turn: play a card against the base card " + label(view.base) + ".";
      }
      var deciding = [0, 1].filter(function (s) { return view.chosen.indexOf(s) < 0 && s !== t.seat; });
      if (t.seat !== null && t.sent) return "Your card is down. " + waitingFor(deciding);
      return (view.phase === "draft" ? "Draft step " + (view.step + 1) : "Game " + (view.step + 1)) +
        ": both players choose at the same time.";
    },
    log: function (view) {
      var entries = [];
      var mem = t.rps;
      // the draft, for the player: which card was kept, which came from the other side
      if (view.you && mem.known !== null && mem.phase === "draft" &&
          (view.phase !== "draft" || view.step > mem.step)) {
        var now = (view.you.deck || []).concat(view.phase === "draft" ? [] : view.you.hand || []);
        var fresh = now.filter(function (c) { return mem.known.indexOf(c) < 0; });
        var kept = fresh.filter(function (c) { return (mem.offer || []).indexOf(c) >= 0; });
        var got = fresh.filter(function (c) { return kept.indexOf(c) < 0; });
        entries.push({
          key: "d" + mem.step, mine: true,
          text: "Draft " + (mem.step + 1) + " of 5: you kept " + labels(kept) + " and received " + labels(got) + ".",
        });
      } else if (!view.you) {
        var done = view.phase === "draft" ? view.step : 5;
        for (var step = 0; step < done; step++) entries.push({ key: "d" + step, text: "Draft step " + (step + 1) + " of 5 done." });
      }
      if (view.you) {
        mem.phase = view.phase;
        mem.step = view.step;
        mem.offer = view.phase === "draft" ? (view.you.offer || []).slice() : null;
        mem.known = (view.you.deck || []).slice();
      }
      view.games.forEach(function (g, i) {
        entries.push({
          key: "g" + i,
          text: "Game " + (i + 1) + " (base " + label(g.base) + "): " + nameOf(0) + " played " + label(g.played[0]) +
            ", " + nameOf(1) + " played " + label(g.played[1]) + ". " + nameOf(g.winner) + " wins it; " +
            "score " + scoreAfter(view.games, i) + ".",
        });
      });
      return entries;
    },
    summary: function (result) {
      var s = result.scores || [];
      var score = s.map(number).join(" to ");
      var text;
      if (result.winner === null || result.winner === undefined) text = "A draw, " + score + ".";
      else if (result.winner === t.seat) text = "You win, " + score + "!";
      else text = plainName(result.winner) + " wins, " + score + ".";
      if (result.forfeited_games) text += " " + result.forfeited_games + " games were forfeited.";
      return text;
    },
  };

  function scoreAfter(games, upto) {
    var score = [0, 0];
    for (var i = 0; i <= upto; i++) score[games[i].winner] += 1;
    return score.join("-");
  }

  // ---- Last Card ---------------------------------------------------------------------------
  var MOVE_TEXT = {
    start: function () { return "The cards are dealt."; },
    play: function (m) {
      var text = nameOf(m.seat) + " plays " + labels(m.cards);
      if (m.suit) text += " and chooses " + SUITS[m.suit];
      if (m.call) text += ", calling last card";
      return text + ".";
    },
    pass: function (m) {
      return nameOf(m.seat) + (m.auto ? " is out of the game and passes" : " passes") + (m.call ? ", calling last card." : ".");
    },
    draw: function (m) { return nameOf(m.seat) + " draws " + m.drawn + (m.drawn === 1 ? " card." : " cards."); },
    punished: function (m) { return nameOf(m.seat) + " picks up " + m.drawn + " cards as punishment."; },
    no_call: function (m) { return nameOf(m.seat) + " emptied the hand without calling last card and draws " + m.drawn + "."; },
    skip: function (m) { return nameOf(m.seat) + " misses a turn."; },
    illegal: function (m) { return nameOf(m.seat) + " made an illegal move: it counts as a pass."; },
    fault: function (m) { return nameOf(m.seat) + " is out of the game (" + m.kind + ")."; },
    reshuffle: function (m) { return "The " + m.cards + " played cards are shuffled back into the deck."; },
    cap: function (m) { return m.turns + " turns without a winner: the game ends."; },
    win: function (m) { return nameOf(m.seat) + " wins the game!"; },
  };

  var lastCard = {
    hand: function (view) {
      var hand = view.you.hand;
      var box = handButtons("Your hand (" + hand.length + (hand.length === 1 ? " card)" : " cards)"), hand, t.selection,
        function (index, now) {
          lastCard.toggle(index);
          if (now) lastCard.play();
        }, asked());
      return box;
    },
    toggle: function (index) {
      var at = t.selection.indexOf(index);
      if (at >= 0) t.selection.splice(at, 1);
      else t.selection.push(index);
      lastCard.autoCall();
      draw();
    },
    autoCall: function () {
      // leaving yourself one card: "Last card!" is on unless you turned it off
      if (!t.callTouched && t.view && t.view.you) {
        t.call = t.selection.length > 0 && t.view.you.hand.length - t.selection.length === 1;
      }
    },
    chosen: function () {
      var hand = t.view.you.hand;
      return t.selection.map(function (i) { return hand[i]; });
    },
    needsSuit: function () {
      var cards = lastCard.chosen();
      return cards.length > 0 && cards[cards.length - 1][0] === "A";
    },
    move: function (cards) {
      return { cards: cards, suit: cards.length && cards[cards.length - 1][0] === "A" ? t.suit : null, last_card: !!t.call };
    },
    play: function () {
      if (!asked()) return;
      var cards = lastCard.chosen();
      if (!cards.length) {
        hint("choose cards first (click them or press their numbers), or draw with D");
        return;
      }
      if (lastCard.needsSuit() && !t.suit) {
        hint("you end on an ace: choose the suit that must follow");
        var first = el.controls.querySelector("input[name=suit]");
        if (first) first.focus();
        return;
      }
      act(lastCard.move(cards));
    },
    pass: function () { act({ cards: [], suit: null, last_card: false }); },
    clear: function () {
      t.selection = [];
      t.suit = null;
      t.callTouched = false;
      lastCard.autoCall();
      clearError();
      draw();
    },
    controls: function (view) {
      if (view.over) return null;
      var disabled = !asked();
      var parts = [];
      var count = t.selection.length;
      parts.push(actionButton(count > 1 ? "Play " + count + " cards" : "Play", "Enter", lastCard.play,
        { disabled: disabled || !count }));
      var drawText = view.punishment ? "Draw " + view.punishment + " cards" : "Draw a card (pass)";
      parts.push(actionButton(drawText, "D", lastCard.pass, { disabled: disabled, secondary: true }));
      parts.push(actionButton("Clear", "Esc", lastCard.clear, { disabled: disabled || !count, secondary: true }));
      var call = node("label", "toggle");
      var box = node("input");
      box.type = "checkbox";
      box.dataset.focusId = "call";
      box.checked = !!t.call;
      box.disabled = disabled;
      box.setAttribute("aria-keyshortcuts", "L");
      box.addEventListener("change", function () {
        t.call = box.checked;
        t.callTouched = true;
        draw();
      });
      call.appendChild(box);
      call.appendChild(document.createTextNode(" Last card! "));
      var hint = kbd("L");
      hint.setAttribute("aria-hidden", "true");
      call.appendChild(hint);
      parts.push(call);
      if (lastCard.needsSuit()) {
        var set = node("fieldset", "suits");
        set.appendChild(node("legend", null, "Suit to follow your ace"));
        ["s", "h", "d", "c"].forEach(function (suit) {
          var option = node("label", "suit suit--" + (suit === "h" || suit === "d" ? "red" : "black"));
          var radio = node("input");
          radio.type = "radio";
          radio.name = "suit";
          radio.value = suit;
          radio.dataset.focusId = "suit-" + suit;
          radio.checked = t.suit === suit;
          radio.disabled = disabled;
          radio.addEventListener("change", function () { t.suit = suit; });
          option.appendChild(radio);
          var symbol = node("span", "suit__symbol", SUIT_SYMBOLS[suit]);
          symbol.setAttribute("aria-hidden", "true");
          option.appendChild(symbol);
          option.appendChild(document.createTextNode(" " + SUITS[suit]));
          set.appendChild(option);
        });
        parts.push(set);
      }
      return parts;
    },
    keys: function () {
      return keyHelp([
        ["1 … 9 0", "choose cards in order"], ["Enter", "play them"], ["D", "draw (pass)"],
        ["L", "Last card!"], ["Esc", "clear the choice"],
      ]);
    },
    onKey: function (key) {
      if (!t.view || !t.view.you) return false;
      var lower = key.toLowerCase();
      if (key === "Enter") { lastCard.play(); return true; }
      if (lower === "d") { lastCard.pass(); return true; }
      if (key === "Escape") { lastCard.clear(); return true; }
      if (lower === "l" && asked()) {
        t.call = !t.call;
        t.callTouched = true;
        draw();
        return true;
      }
      var index = digit(key);
      if (index !== null && index < t.view.you.hand.length && asked()) {
        lastCard.toggle(index);
        return true;
      }
      return false;
    },
    seats: function (view) {
      return view.hand_sizes.map(function (size, seat) {
        var badges = [];
        if (view.called[seat]) badges.push("last card!");
        if (view.winner === seat) badges.push("winner");
        var zones = seat === t.seat ? [] : [zone("Hand", [], size, "small", size + (size === 1 ? " card" : " cards"), true)];
        return {
          seat: seat, zones: zones, badges: badges,
          notes: seat === t.seat ? [size + (size === 1 ? " card in your hand" : " cards in your hand")] : [],
          turn: view.current === seat, turnText: "to play",
        };
      });
    },
    shared: function (view) {
      var parts = [];
      var note = view.active_suit ? "suit to follow: " + SUITS[view.active_suit] : "";
      parts.push(zone("Last played card", view.last_played ? [view.last_played] : [], 0, null, note));
      parts.push(zone("Deck", [], view.deck_size ? 1 : 0, "small", view.deck_size + " cards"));
      if (view.punishment) parts.push(fact("Pending punishment: the next player draws " + view.punishment + " cards or plays a " + (lastCard.punishCard(view) || "matching card") + ".", "fact--alert"));
      parts.push(fact("Play goes " + (view.direction === 1 ? "up the seats (1 → 2 → 3…)" : "down the seats (… 3 → 2 → 1)") + ". Turn " + view.turns + "."));
      return parts;
    },
    punishCard: function (view) {
      var top = view.last_played;
      return top && (top[0] === "2" || top[0] === "5") ? top[0] : null;
    },
    turnLine: function (view) {
      if (view.over) return "The game is over.";
      if (asked()) {
        return view.punishment
          ? "Your turn: play a " + lastCard.punishCard(view) + " to pass the punishment on, or draw " + view.punishment + " cards."
          : "Your turn: play cards matching " + label(view.last_played) + (view.active_suit ? " (suit " + SUITS[view.active_suit] + ")" : "") + ", or draw.";
      }
      if (view.current === t.seat && t.sent) return "Your move is on its way…";
      return nameOf(view.current) + " to play.";
    },
    log: function (view) {
      // the view keeps the last moves; find where the new ones start
      var before = t.lc.moves;
      var now = view.moves.map(function (m) { return JSON.stringify(m); });
      var overlap = 0;
      for (var k = Math.min(before.length, now.length); k > 0; k--) {
        var same = true;
        for (var i = 0; i < k && same; i++) same = before[before.length - k + i] === now[i];
        if (same) { overlap = k; break; }
      }
      var entries = [];
      for (var j = overlap; j < now.length; j++) {
        var move = view.moves[j];
        var text = MOVE_TEXT[move.e] ? MOVE_TEXT[move.e](move) : null;
        t.lc.seen += 1;
        if (text) entries.push({ key: "m" + t.lc.seen, text: text, mine: move.seat === t.seat });
      }
      t.lc.moves = now;
      return entries;
    },
    summary: function (result) {
      var text = result.winner === null || result.winner === undefined
        ? "Nobody emptied their hand."
        : result.winner === t.seat ? "You win!" : plainName(result.winner) + " wins.";
      var points = (result.scores || []).map(function (p, seat) { return plainName(seat) + " " + number(p); });
      return text + " Points taken (lower is better): " + points.join(", ") + ".";
    },
  };

  function digit(key) {
    if (key.length !== 1 || key < "0" || key > "9") return null;
    return key === "0" ? 9 : Number(key) - 1;
  }

  // the games not yet drawn from frames (a framed game's face is set by its first view)
  game = { "rps-poker": rps, "last-card": lastCard }[setup.game] || null;

  // After each new view: what the new turn starts with, and the log.
  function afterState() {
    if (!game) return;
    // a new view: the previous choice no longer points at the same cards
    t.selection = [];
    t.suit = null;
    t.call = false;
    t.callTouched = false;
    addLog(game.log(t.view));
  }

  // ---- the end -----------------------------------------------------------------------------
  function finish(message) {
    t.over = true;
    t.turn = null;
    el.state.textContent = message.error ? "Abandoned" : "Finished";
    if (el.lobby) el.lobby.hidden = true;
    draw();
    el.turnLine.textContent = "The match is over.";
    el.countdown.hidden = true;
    el.controls.hidden = true;
    el.keys.hidden = true;
    if (message.error) {
      el.endSummary.textContent = "The table stopped: " + message.error;
    } else if (message.result && game) {
      el.endSummary.textContent = message.summary || game.summary(message.result);
      var scores = message.result.scores || [];
      var rows = el.endScores.querySelectorAll("tbody tr");
      rows.forEach(function (row, seat) {
        var cell = row.querySelector(".num");
        if (cell && seat < scores.length) cell.textContent = number(scores[seat]);
      });
      el.endScores.hidden = false;
    }
    if (message.url) {
      el.endReplay.href = message.url;
      el.endReplay.hidden = false;
    }
    var wasHidden = el.end.hidden;
    el.end.hidden = false;
    if (wasHidden) el.end.focus();
    if (socket) socket.close();
  }

  // ---- keys --------------------------------------------------------------------------------
  document.addEventListener("keydown", function (event) {
    if (!game || !t.view || t.seat === null || t.over) return;
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    var target = event.target;
    if (target.matches && target.matches("input[type=text], input[type=url], textarea, select, [contenteditable]")) return;
    // a focused button or link keeps its own Enter and Space
    // (but Enter on one of your cards plays the choice)
    var onCard = target.closest && target.closest(".hand-card");
    if (event.key === "Enter" && !onCard && target.matches && target.matches("button, a, input")) return;
    if (game.onKey(event.key)) event.preventDefault();
  });

  document.addEventListener("visibilitychange", function () {
    // a phone woke up: make sure the table is current
    if (document.visibilityState === "visible" && socket && socket.readyState === WebSocket.OPEN) {
      send({ type: "sync" });
    }
  });

  if (setup.state === "finished" || setup.state === "abandoned") {
    // the page shows the end; the socket would only repeat it
    return;
  }
  connect();
})();
