// Live tables (templates/tables/table.html and the create form of templates/tables/lobby.html).
//
// The table page is drawn from the messages of the websocket ws/tables/<token>/ (see
// games/live/consumers.py and games/live/host.py): "hello" (your seat), "lobby" (seats while
// the table waits), "seats" (names, away), "state" (the table as your seat may see it),
// "turn" (you are asked: its number, seconds left, the default), "error" (a refusal, for this
// socket only), "note" (a line for your log alone: your time ran out), "taken" (a move the
// table has: your own, with its turn, or at a simultaneous turn another seat's, never which
// move), "over" (the result and the replay's address; "pending": the result, not saved yet,
// and another "over" follows once it is); "lobby", "seats" and "over" also say whether the table is "rated".
// "refused" (why, before a close with code 4430: too many sockets open from your network).
// A socket is closed with code 4409 when where you sit changed in another tab (you left the
// seat, or took one): the page reloads to show where you sit now.
// "moved" (the table's server stopped and another takes it over: a line for the log).
// The page only sends
// intentions ({"type": "act", "turn": N, "action": ...}), "sync" (the whole table again) and
// "ping" (answered "pong": the connection is alive); the server checks everything.
// Cards use the markup of templates/includes/card.html, described by games.replays.card_view.
(function () {
  "use strict";

  // ---- the create form: seats past the chosen number of players are hidden, and a seat's
  // uploaded-bot name field shows while "An uploaded bot" is its choice -------------------
  var createForm = document.getElementById("create-table");
  if (createForm) {
    var players = createForm.querySelector("select[name=players]");
    var syncSeats = function () {
      var count = players ? Number(players.value) : Infinity;
      createForm.querySelectorAll(".seat-field").forEach(function (box) {
        var used = Number(box.dataset.seat) < count;
        var menu = box.querySelector("select");
        var bot = box.querySelector(".seat-bot");
        box.hidden = !used;
        menu.disabled = !used;
        if (bot) {
          var named = used && menu.value === "bot";
          bot.hidden = !named;
          bot.querySelector("input").disabled = !named;
        }
      });
    };
    createForm.querySelectorAll(".seat-field select").forEach(function (menu) {
      menu.addEventListener("change", syncSeats);
    });
    if (players) {
      players.addEventListener("change", syncSeats);
      createForm.querySelectorAll(".seat-field > .field .help").forEach(function (help) { help.hidden = true; });
    }
    syncSeats();
    // a refused table (a limit, a choice the rules refuse, a bot's name that is no bot's): its
    // reason is above the form or under the field, far down the lobby; bring it into view
    var refusal = document.querySelector("#create .form-alert, #create .field-invalid");
    if (refusal) refusal.scrollIntoView({ block: "center" });
  }

  var setupNode = document.getElementById("table-setup");
  if (!setupNode) return;
  var setup = JSON.parse(setupNode.textContent);
  var CARDS = setup.cards || {};
  var LOG_KEPT = 200;
  // how long a player's page keeps its socket after the end, to hear of a rematch
  var REMATCH_LISTEN_MS = 10 * 60 * 1000;
  var FAN_MOST = 8; // face-down cards drawn of another's hand (the count says how many)
  var DOUBLE_CLICK_MS = 600; // the two clicks of a double click on one card, at most this apart
  // the digits of a card's number typed at most this far apart make one number ("1" then "3":
  // the 13), where the cards are numbers (Goofspiel)
  var TYPED_MS = 1000;
  // an answer to a move slower than this is shown as the table being slow (the connection or
  // the server: the page cannot tell which)
  var SLOW_MS = 1500;
  // with no answer to a move for this long the page asks for the whole table again ("sync"):
  // the move may have gone to a server that stopped, and the table moved on without it
  var SYNC_MS = 5000;
  // ... and with no answer to that either for this long, the table is said not to answer;
  // so is it when nothing came this long after the turn's time ran out (the table plays the
  // default within 2.5 s of the deadline: games/live/humans.py)
  var NO_ANSWER_MS = 4000;
  // the least time between two "sync"s the page sends when a move was refused as sent to a
  // server that no longer hosts the table
  var RESYNC_MS = 2000;
  // The page checks its connection: a "ping" after PING_MS without a message from the table
  // (and when a move has had no answer for SLOW_MS, and as the page is shown again), which the
  // server answers at once
  // ("pong"). With nothing at all heard for PONG_WAIT_MS after one, the connection is taken as
  // lost, since a socket whose network went away (a phone in a tunnel, a laptop asleep) may
  // never say it closed: the page closes it, says so, and connects again (then asks for the
  // whole table). At most one small message each way per 10 s per page (the socket's rate
  // allows 10 a second).
  var PING_MS = 10000;
  var PONG_WAIT_MS = 5000;
  // a full table that cannot start yet (the site plays its most tables with uploaded bots):
  // the page asks again this often
  var START_RETRY_MS = 20000;

  var el = {
    state: document.getElementById("table-state"),
    rated: document.getElementById("table-rated"),
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
    status: document.getElementById("live-status"),
    keys: document.getElementById("keys-help"),
    log: document.getElementById("live-log"),
    end: document.getElementById("table-end"),
    endTitle: document.getElementById("end-title"),
    endSummary: document.getElementById("end-summary"),
    endRematch: document.getElementById("end-rematch"),
    endScores: document.getElementById("end-scores"),
    endReplay: document.getElementById("end-replay"),
    endReview: document.getElementById("end-review"),
  };

  var t = {
    seat: setup.seat,            // my seat, or null when watching
    names: setup.names.slice(),  // seat names
    away: [],
    gone: [],                    // by seat, none of that person's pages follows the table
    view: null,                  // the last "state" view
    turn: null,                  // the last "turn" message while I am asked
    sent: false,                 // an action of this turn is on its way
    sentAt: 0,                   // when it was sent (Date.now())
    synced: false,               // the page asked for the table again since (no answer came)
    pinged: false,               // the page checked its connection since (no answer came)
    resyncedAt: 0,               // when the page last asked again after a refusal
    moves: 0,                    // how many times the table moved to another server
    placed: {},                  // seats whose move of this view the table has ("taken")
    timedOut: "",                // the note of a default played for me in this view
    waits: {},                   // by seat, a bot's wait for its turn to think, in words
    deadline: 0,
    selection: [],               // indices into my hand, in the order chosen
    typed: "",                   // the digits of a card's number typed so far ...
    typedAt: 0,                  // ... the last of them then (Date.now())
    suit: null,
    call: false,
    callTouched: false,          // the person set "Last card!" themselves
    logKeys: {},
    logDropped: 0,               // the log's lines dropped (the oldest, past LOG_KEPT)
    over: false,
    saving: false,               // over, its result not saved yet: the page waits for it
    // the keyboard's place (a card or a button's data-focus-id) while the controls are
    // disabled or drawn anew (a move on its way, a refusal, the next turn): put back on them
    keepFocus: null,
    firstTurn: true,             // no turn of mine was shown yet: its first card gets focus
    warned: false,               // "10 seconds left" was said for this turn
  };

  // ---- small helpers -------------------------------------------------------------------------
  var node = window.CardArena.node;

  function kbd(key) { return node("kbd", null, key); }

  function label(code) { return CARDS[code] ? CARDS[code].label : String(code); }

  // A seat's name; seats of the same name (three copies of one bot) say which seat they are.
  function plainName(seat) {
    var name = t.names[seat] || "seat " + (seat + 1);
    var twins = t.names.filter(function (other) { return other === name; }).length;
    return twins > 1 ? name + " (seat " + (seat + 1) + ")" : name;
  }

  function nameOf(seat) {
    return seat === t.seat ? plainName(seat) + " (you)" : plainName(seat);
  }

  // A final score as the server's score_text writes it: "+7" for a gain where scores are
  // gains and losses (a chip game), as the end line beside the scores says it; a negative
  // with the minus sign, as every page writes it
  function number(value) {
    if (typeof value !== "number") return String(value);
    var rounded = Math.round(value * 100) / 100 + 0; // + 0: never "-0"
    var text = String(rounded).replace("-", "\u2212");
    return (setup.signedScores && rounded > 0 ? "+" : "") + text;
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
  // the close code of a socket refused because its network has too many open (the server
  // says why in a "refused" message first: games/live/sockets.py)
  var TOO_MANY_SOCKETS = 4430;
  var REFUSED_WAIT = 30000;
  var refused = "";
  // the close code of a socket whose seat its person no longer holds (they left it, or sat
  // down elsewhere, in another tab): the page is loaded again, to show where they sit now
  var SEAT_CHANGED = 4409;
  // a form of this page was sent (join, leave, play again): the page is on its way elsewhere,
  // and a reload would cancel that
  var navigating = false;
  document.addEventListener("submit", function (event) {
    if (!event.defaultPrevented) navigating = true;
  });

  // the connection's check (see PING_MS): when the last ping went (0: none is unanswered), and
  // when the page last sent one or heard from the table
  var pingAt = 0;
  var activeAt = 0;
  // the connection was lost (the socket closed, or went silent): the page says so
  var lost = false;

  function connect() {
    var scheme = window.location.protocol === "https:" ? "wss://" : "ws://";
    var ws = new WebSocket(scheme + window.location.host + setup.ws);
    socket = ws;
    pingAt = 0;
    if (lost) showLost("Connection lost: reconnecting…");
    // a socket given up on (silent: see checkConnection) is no longer heard
    ws.addEventListener("open", function () {
      if (socket !== ws) return;
      retries = 0;
      lost = false;
      activeAt = Date.now();
      el.connection.textContent = "";
      el.connection.classList.remove("connection--lost");
      if (everOpen) send({ type: "sync" }); // back after a drop: ask for the whole table
      everOpen = true;
      if (t.view) draw(); else tick();
    });
    ws.addEventListener("message", function (event) {
      if (socket !== ws) return;
      pingAt = 0; // whatever comes, the connection is alive
      activeAt = Date.now();
      var message;
      try { message = JSON.parse(event.data); } catch (e) { return; }
      receive(message);
    });
    ws.addEventListener("close", function (event) {
      if (socket !== ws) return;
      socket = null;
      if (event.code === 4404) {
        el.connection.textContent = "This table does not exist.";
        return;
      }
      if (event.code === SEAT_CHANGED) {
        el.connection.textContent = "Where you sit at this table changed in another tab: reloading the page…";
        if (!navigating) window.location.reload();
        return;
      }
      if (event.code === TOO_MANY_SOCKETS) {
        // too many pages of tables open from this network: say so, and try again slowly
        el.connection.classList.add("connection--lost");
        el.connection.textContent = "Not connected: " + (refused || "too many open connections from your network") +
          ". Trying again in " + Math.round(REFUSED_WAIT / 1000) + " s…";
        if (!everOpen) el.turnLine.textContent = "Not connected to the table.";
        window.setTimeout(connect, REFUSED_WAIT);
        return;
      }
      // (a match over whose result is not saved yet: the page waits for it to be)
      if (t.over && !t.saving) return;
      reconnect();
    });
  }

  function showLost(text) {
    el.connection.classList.add("connection--lost");
    el.connection.textContent = text;
  }

  // The socket closed, or went silent: connect again, sooner the first times (and at once
  // when the browser says its network is back).
  var again = null;
  var againAt = 0; // when the page connects again (the line under the title counts down to it)
  function reconnect() {
    var wait = Math.min(1000 * Math.pow(2, retries), 15000);
    retries += 1;
    lost = true;
    againAt = Date.now() + wait;
    showAgain();
    if (t.view) draw(); else tick();
    again = window.setTimeout(function () {
      again = null;
      connect();
    }, wait);
  }
  // "Connection lost: reconnecting in 12 s…", the seconds counted down as they pass
  function showAgain() {
    showLost("Connection lost: reconnecting in " + Math.max(1, Math.ceil((againAt - Date.now()) / 1000)) + " s…");
  }
  // now rather than at the next try: the browser says its network is back, or the page is
  // shown again (a phone woken up, whose network may have come back without a word)
  function connectNow() {
    if (again === null) return;
    window.clearTimeout(again);
    again = null;
    connect();
  }
  window.addEventListener("online", connectNow);

  function ping() {
    if (!socket || socket.readyState !== WebSocket.OPEN) return;
    socket.send(JSON.stringify({ type: "ping" }));
    activeAt = Date.now();
    if (!pingAt) pingAt = activeAt;
  }

  // Called with the clock: a ping when one is due, and a socket silent too long given up on.
  function checkConnection() {
    if (!socket || socket.readyState !== WebSocket.OPEN || t.over) return;
    var now = Date.now();
    if (pingAt && now - pingAt > PONG_WAIT_MS) {
      // no answer: the network went away without the socket saying so. Closed (it may take
      // the browser a while: the page does not wait for it), and connected again
      var silent = socket;
      socket = null;
      pingAt = 0;
      try { silent.close(); } catch (e) { /* closed already */ }
      reconnect();
      return;
    }
    if (now - activeAt >= PING_MS) ping();
  }

  // Ask the server for the whole table again (quietly: nothing to say if not connected; the
  // page asks again as it reconnects).
  function sync() {
    if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ type: "sync" }));
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
        t.waits = {}; // (a new connection: the table says again who still waits)
        break;
      case "lobby":
        drawLobby(message.seats, message.busy);
        showRated(message);
        break;
      case "seats":
        showRated(message);
        message.seats.forEach(function (seat) {
          t.names[seat.seat] = seat.name;
          t.away[seat.seat] = !!seat.away;
          t.gone[seat.seat] = !!seat.gone;
        });
        startPlaying();
        if (t.view) draw();
        break;
      case "state":
        startPlaying();
        // the game builds the table as a frame: the one renderer draws it
        Object.keys(message.cards || {}).forEach(function (code) { CARDS[code] = message.cards[code]; });
        t.view = { frame: message.frame, actions: message.actions || [] };
        // how many views arrived: lets a test (or a curious person) see the table move on
        el.live.dataset.updates = String(Number(el.live.dataset.updates || 0) + 1);
        t.turn = null; // a new state: the next question comes after it
        t.sent = false;
        t.placed = {};
        t.timedOut = "";
        clearError();
        afterState();
        draw();
        break;
      case "turn":
        var fresh = !t.turn || t.turn.turn !== message.turn;
        t.turn = message;
        t.sent = false;
        t.deadline = Date.now() + message.seconds * 1000;
        clearError();
        if (fresh) {
          // said once (the clock itself is silent): the time to move, and 10 s before the end
          var seconds = Math.max(0, Math.round(message.seconds));
          t.warned = seconds <= 10;
          say(seconds + (seconds === 1 ? " second" : " seconds") + " to move");
        }
        draw();
        break;
      case "error":
        t.sent = false;
        // the choice refused is let go: the next card chosen starts a new one
        clearChoice();
        showError(message.error);
        draw();
        // a move sent to a server that no longer hosts the table (it stopped, or another took
        // the table over): the whole table again, from wherever it is now
        if (/server stopped/.test(message.error || "") && t.seat !== null && !t.over &&
            Date.now() - t.resyncedAt > RESYNC_MS) {
          t.resyncedAt = Date.now();
          sync();
        }
        break;
      case "moved":
        // the table's server stopped: another takes it over (the table and the turn follow)
        t.moves += 1;
        addLog([{ key: "moved" + t.moves, text: message.text + (t.sent && t.seat !== null
          ? " If your move was not kept, you will be asked for it again." : ""), mine: false }]);
        t.sent = false;
        t.turn = null;
        if (t.view) draw();
        break;
      case "refused":
        refused = message.error;
        break;
      case "note":
        // something the table says to you alone (your time ran out), in your log
        addLog([{ key: message.key, text: message.text, mine: true }]);
        // the default was played for the turn it names: if that is the turn asked now, it is
        // no longer mine to answer (a reload hears the notes of earlier turns too)
        if (/^timeout/.test(message.key || "") && t.turn && t.seat !== null &&
            message.turn === t.turn.turn) {
          t.turn = null;
          t.sent = false;
          t.placed[t.seat] = true;
          t.timedOut = message.text;
          if (t.view) draw();
        }
        break;
      case "taken":
        // the table has a move: mine (the server got it; the others may still be awaited),
        // or another seat's at a simultaneous turn
        if (message.seat === t.seat && t.turn && message.turn !== t.turn.turn) break;
        if (message.seat === t.seat) {
          t.turn = null;
          t.sent = false;
          clearError();
        }
        t.placed[message.seat] = true;
        if (t.view) draw();
        break;
      case "over":
        showRated(message);
        finish(message);
        break;
      case "wait":
        // a bot at the table waits for its turn to think (the site is busy), or has it now
        if (message.text) t.waits[message.seat] = message.text;
        else delete t.waits[message.seat];
        if (t.view) draw();
        break;
      case "rematch":
        // another person of this table opened a rematch: where to join it (not to its opener)
        if (t.seat !== null && message.seat !== t.seat) showRematch(message);
        break;
      default:
        break;
    }
  }

  // ---- waiting for players -----------------------------------------------------------------
  var startRetry = null;

  // busy: why the full table cannot start yet (the site plays its most tables with uploaded
  // bots); the page asks again in a while, and the match starts once there is a place
  function drawLobby(seats, busy) {
    if (busy && !startRetry) {
      startRetry = window.setTimeout(function () {
        startRetry = null;
        sync();
      }, START_RETRY_MS);
    }
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
        : busy || "Every seat is taken: the match is starting.";
    }
  }

  // Whether the table is rated, as the server says now: a guest who sat down after this page
  // was drawn made it unrated, and its end says whether its match was rated.
  function showRated(message) {
    if (el.rated && typeof message.rated === "boolean") {
      el.rated.textContent = message.rated ? "rated" : "unrated";
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

  // A short line for screen readers alone (a polite status: the time to move, the card a key
  // chose), said again even when it is the same words as the last. `chosen`: the line says
  // what is chosen (the selection then), and is taken back once the choice is another.
  function say(text, chosen) {
    if (!el.status) return;
    el.status.textContent = el.status.textContent === text ? text + "\u00a0" : text;
    if (chosen) el.status.dataset.chosen = JSON.stringify(chosen);
    else delete el.status.dataset.chosen;
  }

  // The status no longer says a choice that changed since (a click, a refusal, a new turn).
  function keepStatusTrue() {
    if (!el.status || el.status.dataset.chosen === undefined) return;
    if (el.status.dataset.chosen === JSON.stringify(t.selection)) return;
    el.status.textContent = "";
    delete el.status.dataset.chosen;
  }

  function addLog(entries) {
    entries.forEach(function (entry) {
      if (t.logKeys[entry.key]) return;
      t.logKeys[entry.key] = true;
      var item = node("li", entry.mine ? "log-line log-line--mine" : "log-line", entry.text);
      el.log.appendChild(item);
    });
    // the oldest lines go; the others keep their numbers (the list counts on from them)
    while (el.log.children.length > LOG_KEPT) {
      el.log.removeChild(el.log.firstChild);
      t.logDropped += 1;
    }
    if (t.logDropped) el.log.start = t.logDropped + 1;
    el.log.scrollTop = el.log.scrollHeight;
  }

  // ---- my turn -----------------------------------------------------------------------------
  function asked() { return t.seat !== null && t.turn !== null && !t.sent && !t.over; }

  function act(action) {
    if (!asked()) return;
    if (send({ type: "act", turn: t.turn.turn, action: action })) {
      t.sent = true;
      t.synced = false;
      t.sentAt = Date.now();
      t.pinged = false;
      clearError();
      draw();
    }
  }

  function tick() {
    checkConnection();
    var waited = t.sent && !t.over ? Date.now() - t.sentAt : 0;
    el.countdown.classList.toggle("countdown--slow", waited > SLOW_MS && !lost);
    if (waited > SLOW_MS && !t.pinged) {
      // no answer to the move yet: is the connection still there? (a move that went nowhere
      // is soon known)
      t.pinged = true;
      ping();
    }
    if (waited > SYNC_MS && !t.synced) {
      // no answer: the table as it is now (the turn again if the move was lost on the way)
      t.synced = true;
      sync();
    }
    if (again !== null) showAgain();
    if (lost && t.view && !t.over) {
      // the connection is lost: said where the clock is too (the bar stays in view on a
      // phone, the line under the title may not), with the time the turn has left. Once it
      // ran out the page cannot tell what happened: the table played the default if only
      // this page's network went, but a server that stopped plays nothing, and gives the
      // whole turn back when the table goes on
      var line = "Connection lost: reconnecting…";
      if (asked()) {
        var gone = Math.max(0, Math.ceil((t.deadline - Date.now()) / 1000));
        line += gone > 0 ? " " + gone + " s left to play"
          : " Your time is up: unless the site's server stopped, this was played for you: " + playedFor();
      }
      el.countdown.hidden = false;
      el.countdown.classList.add("countdown--low");
      el.countdown.textContent = line;
      return;
    }
    // the turn's time ran out a while ago and the table has said nothing since (no default
    // played, no new turn: the server running it may have stopped)
    var overdue = asked() && t.deadline && Date.now() - t.deadline > NO_ANSWER_MS;
    if (waited > SYNC_MS + NO_ANSWER_MS || overdue) {
      el.countdown.hidden = false;
      el.countdown.classList.remove("countdown--low");
      el.countdown.textContent = "The table is not answering. Check your connection; if the " +
        "site's server stopped, another takes the table over within half a minute and asks " +
        "again for a move it did not keep…";
      return;
    }
    if (waited > SLOW_MS) {
      // the move is on its way (and counts if the server got it in time); the page cannot
      // tell a slow connection from a busy server
      el.countdown.hidden = false;
      el.countdown.classList.remove("countdown--low");
      el.countdown.textContent = "No answer from the table yet: your connection or the server " +
        "may be slow. A move that reached the server in time counts…";
      return;
    }
    if (!asked()) {
      el.countdown.hidden = true;
      return;
    }
    var left = Math.max(0, Math.ceil((t.deadline - Date.now()) / 1000));
    if (left <= 10 && left > 0 && !t.warned) {
      t.warned = true;
      say(left + " seconds left, then this is played for you: " + playedFor());
    }
    el.countdown.hidden = false;
    el.countdown.classList.toggle("countdown--low", left <= 5);
    el.countdown.textContent = left > 0
      ? left + " s left"
      : timeUp();
  }
  window.setInterval(tick, 250);

  // the move the table plays for me if my time runs out, as my buttons name it ("check",
  // "bid 10"): the turn says it, the game's general rule stands in where it does not
  function playedFor() { return t.turn.default || setup.defaultAction; }
  function timeUp() { return "Time is up, so this is played for you: " + playedFor(); }

  // ---- drawing -----------------------------------------------------------------------------
  function draw() {
    if (!t.view) return;
    var active = document.activeElement;
    var lostFocus = !active || active === document.body;
    var focused = active && active.dataset && active.dataset.focusId ? active.dataset.focusId : null;
    // focus lost when the controls were disabled (a move on its way): their place is kept
    if (!focused && lostFocus) focused = t.keepFocus;
    // a game may want the seat's own cards before the shared ones on a phone (table.css)
    el.live.classList.toggle("live--hand-first", !!t.view.frame.hand_first);
    el.seats.replaceChildren.apply(el.seats, game.seats(t.view).map(drawSeat));
    el.shared.replaceChildren.apply(el.shared, game.shared(t.view));
    // the hand is drawn anew when it changes; a new choice only marks the cards
    var handKey = JSON.stringify([game.handKey(t.view), asked(), t.over]);
    if (handKey !== el.hand.dataset.key) {
      var mine = t.seat !== null ? game.hand(t.view) : null;
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
    // (a touch screen has no keys to press: the line would only take a phone's room)
    var keys = t.seat !== null && !t.over && !touchOnly() ? game.keys() : null;
    el.keys.hidden = !keys;
    if (keys) el.keys.replaceChildren.apply(el.keys, keys);
    el.turnLine.textContent = t.over ? "The match is over." : withWaits(game.turnLine(t.view));
    el.turnLine.classList.toggle("turn-line--mine", asked());
    keepStatusTrue();
    tick();
    placeFocus(focused, lostFocus);
  }

  // The turn line, and after it the words of each bot that waits for its turn to think
  // ("house/cfr is waiting for its turn to think: the site is busy, ...") and of each other
  // person none of whose pages follows the table (they closed it, or their network went)
  function withWaits(line) {
    var waits = Object.keys(t.waits).map(function (seat) { return t.waits[seat]; });
    var gone = [];
    t.gone.forEach(function (isGone, seat) {
      if (isGone && seat !== t.seat) gone.push(plainName(seat));
    });
    if (gone.length) {
      waits.push(gone.join(" and ") + (gone.length > 1 ? " are" : " is") + " not connected: " +
        "until they are back, their turns are played for them when their time runs out.");
    }
    return [line].concat(waits).filter(Boolean).join(" ");
  }

  // The same control, drawn anew, keeps the keyboard's place; one disabled meanwhile (the
  // move on its way) gets it back when the controls are enabled again, or, gone by then, the
  // first card: the keyboard is never left on the page's body while cards can take it. The
  // first turn puts it on the first card.
  function placeFocus(focused, lostFocus) {
    var active = document.activeElement;
    if (focused) {
      var again = el.live.querySelector('[data-focus-id="' + focused + '"]');
      if (again && !again.disabled) {
        if (again !== active) again.focus();
        t.keepFocus = null;
        return;
      }
      if (!asked()) {
        // disabled now: its place is kept for when the controls come back
        if (!active || active === document.body || !el.live.contains(active) || active.disabled) {
          t.keepFocus = focused;
        }
        return;
      }
    }
    active = document.activeElement;
    var nowhere = !active || active === document.body;
    if (!asked()) return;
    var first = t.firstTurn;
    t.firstTurn = false;
    if (!nowhere || !(t.keepFocus || focused || first)) return;
    // (the first turn's card is focused for a keyboard: on a touch screen without one, its
    // focus ring looked like a card chosen, while the button to keep it stayed disabled)
    if (first && !t.keepFocus && !focused && touchOnly()) return;
    t.keepFocus = null;
    // (a game of buttons alone is not given one: Enter would press it, not the key's action)
    var target = el.hand.querySelector(".hand-card:not([disabled])");
    if (target) target.focus();
  }

  // Whether the page is on a touch screen with no pointer that hovers (a phone, a tablet
  // without a mouse): no keyboard to follow the focus, as a rule
  function touchOnly() {
    return window.matchMedia("(hover: none) and (pointer: coarse)").matches;
  }

  // Moves the keyboard to card ``index`` of the hand (the choice made with a key goes with it),
  // unless the keyboard is elsewhere than the hand or the page's body (a button, the log).
  function focusCard(index) {
    var active = document.activeElement;
    if (active && active !== document.body && !el.hand.contains(active)) return;
    var card = el.hand.querySelector('.hand-card[data-index="' + index + '"]');
    if (card && !card.disabled) card.focus();
  }

  // "Chosen: scissors 4 (Enter to keep it)", said when a key chose a card (or cleared them)
  function sayChosen(codes, verb) {
    var chosen = t.selection.slice();
    if (!codes.length) { say("No card chosen", chosen); return; }
    say("Chosen: " + codes.map(label).join(", ") + " (Enter to " + verb.toLowerCase() +
      (codes.length > 1 ? " them)" : " it)"), chosen);
  }

  // The index of the card of the hand the keyboard is on (null: none).
  function focusedCard() {
    var active = document.activeElement;
    if (!active || !active.matches || !active.matches("#live-hand .hand-card")) return null;
    return Number(active.dataset.index);
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
      heading.appendChild(scoreBadge(seat.score));
    }
    box.appendChild(heading);
    var badges = node("p", "badges");
    if (seat.turn) badges.appendChild(node("span", "pill pill--turn", seat.turnText || "to play"));
    if (seat.placed) badges.appendChild(node("span", "pill pill--placed", seat.doneText || "move in"));
    if (t.away[seat.seat]) badges.appendChild(node("span", "pill pill--away", "away"));
    if (t.gone[seat.seat] && seat.seat !== t.seat) badges.appendChild(node("span", "pill pill--away", "not connected"));
    (seat.badges || []).forEach(function (text) { badges.appendChild(node("span", "pill", text)); });
    if (badges.children.length) box.appendChild(badges);
    (seat.zones || []).forEach(function (made) { box.appendChild(made); });
    if (seat.notes && seat.notes.length) box.appendChild(node("p", "seat__notes", seat.notes.join(" · ")));
    return box;
  }

  // A seat's score: a bare number says what it counts (the game's score label, "games won";
  // "game won" after 1 or −1), as a replay's does; a game's own words ("+2 chips") stand as
  // they are.
  function scoreBadge(text) {
    var bare = /^[+\u2212-]?\d+(\.\d+)?$/.test(String(text));
    if (!bare) return window.CardArena.scoreBadge(text, "");
    var one = Math.abs(Number(String(text).replace("\u2212", "-"))) === 1;
    return window.CardArena.scoreBadge(text, one ? el.live.dataset.scoreLabelOne : el.live.dataset.scoreLabel);
  }

  // My hand as buttons: click (or its number key) to choose; `picked` gives the order.
  // `keyed`: each card shows its key (the cards that are numbers are typed).
  function handButtons(title, codes, picked, onPick, enabled, keyed) {
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
      var key = !keyed ? "" : index < 9 ? String(index + 1) : index === 9 ? "0" : "";
      button.dataset.name = label(code) + (key ? ", key " + key : "");
      button.disabled = !enabled;
      button.appendChild(drawCard(code));
      if (key) {
        var hint = node("span", "hand-card__key", key);
        hint.setAttribute("aria-hidden", "true");
        button.appendChild(hint);
      }
      // a double click chooses and plays; the browser also calls it one when a tap lands
      // where the last one did, on another button (a card drawn there since): only two
      // clicks on this very card, the second soon after the first, count
      var last = -Infinity, previous = -Infinity;
      button.addEventListener("click", function (event) {
        previous = last;
        last = event.timeStamp;
        onPick(index);
      });
      button.addEventListener("dblclick", function () {
        if (last - previous < DOUBLE_CLICK_MS) onPick(index, true);
      });
      row.appendChild(button);
    });
    box.appendChild(row);
    markPicked(box, picked);
    return box;
  }

  // Shows which cards of the hand are chosen, and in which order, and which cannot be chosen
  // now (in place: choosing a card does not draw the hand anew, so a double click and the
  // keyboard's focus stay on it).
  function markPicked(box, picked) {
    box.querySelectorAll(".hand-card").forEach(function (button) {
      var barred = many.barred(Number(button.dataset.index));
      button.classList.toggle("hand-card--barred", barred);
      if (barred) button.setAttribute("aria-disabled", "true");
      else button.removeAttribute("aria-disabled");
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

  // ---- the one renderer: a table frame and the seat's actions (games/engine/table.py) --------
  function frameZone(z, size) {
    return zone(z.label, z.cards, z.down, size, z.note, z.fan === "pile");
  }

  // The seat's actions, by the input they need: each plays one card of the hand ("card"), or
  // takes several cards chosen in order with a suit and a call ("several"), or is a button.
  function cardActions(view) { return view.actions.filter(function (a) { return a.card !== undefined && a.card !== null; }); }

  function severalOf(view) { return view.actions.filter(function (a) { return !!a.several; })[0] || null; }

  function buttonActions(view) {
    return view.actions.filter(function (a) { return (a.card === undefined || a.card === null) && !a.several; });
  }

  function keyOf(action, key) {
    var keys = [action.key].concat(action.also || []);
    return keys.some(function (k) { return k && k.toLowerCase() === key.toLowerCase(); });
  }

  // the cards a person chooses among now (one card of the hand, or several)
  function choosable(view) {
    var several = severalOf(view);
    return several ? several.several.cards : cardActions(view).map(function (a) { return a.card; });
  }

  // ---- several cards: chosen in order, a suit after some cards, a call ----------------------
  // the moves a game allows (its spec's "moves"), as a set of their cards: by spec
  var allowedBySpec = new WeakMap();

  var many = {
    chosen: function (spec) {
      return t.selection.map(function (i) { return spec.cards[i]; });
    },
    // whether the cards of hand `indices`, in this order, make a move the rules allow or its
    // beginning (any do where the game does not say which moves it allows)
    fits: function (spec, indices) {
      if (!spec.moves) return true;
      var allowed = allowedBySpec.get(spec);
      if (!allowed) {
        allowed = {};
        spec.moves.forEach(function (cards) { allowed[cards.join(" ")] = true; });
        allowedBySpec.set(spec, allowed);
      }
      return allowed[indices.map(function (i) { return spec.cards[i]; }).join(" ")] === true;
    },
    // card `index` cannot join the cards chosen (it is drawn greyed)
    barred: function (index) {
      var action = t.view && asked() && severalOf(t.view);
      return !!action && t.selection.indexOf(index) < 0 &&
        !many.fits(action.several, t.selection.concat([index]));
    },
    // the cards chosen that still make a move, in their order, once one was unchosen (the
    // first chosen may have been the one the others could follow)
    refit: function (spec, indices) {
      var kept = [];
      var left = indices.slice();
      var grew = true;
      while (grew) {
        grew = false;
        left = left.filter(function (i) {
          if (!many.fits(spec, kept.concat([i]))) return true;
          kept.push(i);
          grew = true;
          return false;
        });
      }
      return kept;
    },
    // the choice (a suit) is asked when the last card chosen asks for it (an ace)
    needsChoice: function (spec) {
      var cards = many.chosen(spec);
      return !!spec.choice && cards.length > 0 && spec.choice.when_last.indexOf(cards[cards.length - 1]) >= 0;
    },
    // chooses card `index`, or unchooses it; false (a hint says why) if it cannot be chosen
    toggle: function (index) {
      var spec = severalOf(t.view).several;
      var at = t.selection.indexOf(index);
      if (at >= 0) {
        t.selection.splice(at, 1);
        t.selection = many.refit(spec, t.selection);
      } else if (many.barred(index)) {
        var name = label(spec.cards[index]);
        hint(t.selection.length ? "the " + name + " cannot follow the cards chosen"
          : "the " + name + " cannot start a move now");
        return false;
      } else {
        t.selection.push(index);
      }
      clearError();
      many.autoCall();
      draw();
      return true;
    },
    // the toggle turns itself on when the cards chosen would leave `left` in the hand,
    // unless the person set it themselves
    autoCall: function () {
      var action = t.view && severalOf(t.view);
      var toggle = action && action.several.toggle;
      if (toggle && !t.callTouched) {
        t.call = t.selection.length > 0 && action.several.cards.length - t.selection.length === toggle.left;
      }
    },
    play: function () {
      var action = severalOf(t.view);
      if (!asked() || !action) return;
      var spec = action.several;
      var cards = many.chosen(spec);
      if (!cards.length) {
        hint(spec.empty);
        return;
      }
      var needs = many.needsChoice(spec);
      if (needs && !t.suit) {
        hint(spec.choice.missing);
        var first = el.controls.querySelector("input[name=" + spec.choice.field + "]");
        if (first) first.focus();
        return;
      }
      var value = JSON.parse(JSON.stringify(action.value));
      value[spec.field] = cards;
      if (spec.choice) value[spec.choice.field] = needs ? t.suit : null;
      if (spec.toggle) value[spec.toggle.field] = !!t.call;
      act(value);
    },
    clear: function () {
      t.selection = [];
      t.suit = null;
      t.callTouched = false;
      many.autoCall();
      clearError();
      draw();
      sayChosen([], "play");
    },
    flip: function () {
      t.call = !t.call;
      t.callTouched = true;
      draw();
    },
    controls: function (action) {
      var spec = action.several;
      var disabled = !asked();
      var count = t.selection.length;
      var parts = [
        actionButton(count > 1 ? spec.many.replace("{n}", String(count)) : action.label, action.key, many.play,
          { disabled: disabled || !count }),
        actionButton("Clear", "Esc", many.clear, { disabled: disabled || !count, secondary: true }),
      ];
      if (spec.toggle) {
        var call = node("label", "toggle");
        var box = node("input");
        box.type = "checkbox";
        box.dataset.focusId = "toggle-" + spec.toggle.field;
        box.checked = !!t.call;
        box.disabled = disabled;
        box.setAttribute("aria-keyshortcuts", spec.toggle.key);
        box.addEventListener("change", function () {
          t.call = box.checked;
          t.callTouched = true;
          draw();
        });
        call.appendChild(box);
        call.appendChild(document.createTextNode(" " + spec.toggle.label + " "));
        var shortcut = kbd(spec.toggle.key);
        shortcut.setAttribute("aria-hidden", "true");
        call.appendChild(shortcut);
        parts.push(call);
      }
      if (many.needsChoice(spec)) {
        var choice = spec.choice;
        var set = node("fieldset", "suits");
        set.appendChild(node("legend", null, choice.legend));
        choice.options.forEach(function (option) {
          var item = node("label", "suit" + (option.tone ? " suit--" + option.tone : ""));
          var radio = node("input");
          radio.type = "radio";
          radio.name = choice.field;
          radio.value = option.value;
          radio.dataset.focusId = choice.field + "-" + option.value;
          radio.checked = t.suit === option.value;
          radio.disabled = disabled;
          radio.addEventListener("change", function () {
            t.suit = option.value;
            clearError(); // "choose the suit" is answered
          });
          item.appendChild(radio);
          if (option.symbol) {
            var symbol = node("span", "suit__symbol", option.symbol);
            symbol.setAttribute("aria-hidden", "true");
            item.appendChild(symbol);
          }
          item.appendChild(document.createTextNode(" " + option.label));
          set.appendChild(item);
        });
        parts.push(set);
      }
      return parts;
    },
    keys: function (action) {
      var pairs = [[cardKeys(action.several.cards.length), "choose cards in order"], [action.key, "play them"]];
      if (action.several.toggle) pairs.push([action.several.toggle.key, action.several.toggle.label]);
      pairs.push(["Esc", "clear the choice"]);
      return pairs;
    },
    onKey: function (action, key) {
      if (key === action.key) { many.play(); return true; }
      if (key === "Escape") { many.clear(); return true; }
      var toggle = action.several.toggle;
      if (toggle && key.toLowerCase() === toggle.key.toLowerCase() && asked()) { many.flip(); return true; }
      var index = digit(key);
      if (index !== null && index < action.several.cards.length && asked()) {
        var took = many.toggle(index);
        focusCard(index);
        if (took) sayChosen(many.chosen(action.several), "play");
        return true;
      }
      return false;
    },
  };

  // the one renderer: every game's table is a frame with actions
  var game = {
    handKey: function (view) {
      return [view.frame.hand, view.frame.pick, choosable(view)];
    },
    seats: function (view) {
      return view.frame.seats.map(function (seat, index) {
        // a seat whose move the table has is no longer awaited
        var placed = !!seat.turn && !!t.placed[index];
        return {
          seat: index, score: seat.score, notes: seat.notes, badges: seat.badges,
          turn: seat.turn && !placed, turnText: seat.turn_text,
          placed: placed, doneText: seat.done_text,
          zones: seat.zones.map(function (z) { return frameZone(z, "small"); }),
        };
      });
    },
    shared: function (view) {
      return view.frame.shared.map(function (z) { return frameZone(z, null); })
        .concat(view.frame.lines.map(function (line) { return fact(line); }));
    },
    hand: function (view) {
      var cards = choosable(view);
      var several = !!severalOf(view);
      var zones = view.frame.hand || [];
      if (!cards.length && !zones.length) return null;
      // (cards that are numbers are chosen by typing the number: no key is drawn on them)
      var keyed = several || !numbersOf(cardActions(view));
      var box = cards.length
        ? handButtons(view.frame.pick || "Your cards", cards, t.selection,
          function (index, now) {
            if (several) {
              if (many.toggle(index) && now) many.play();
              return;
            }
            t.selection = [index];
            clearError();
            if (now) game.play(); else draw();
          }, asked(), keyed)
        : node("div", "hand");
      zones.forEach(function (z) { box.appendChild(frameZone(z, null)); });
      return box;
    },
    play: function () {
      if (!asked()) return;
      if (!t.selection.length) {
        hint("choose a card first: press Space on it, or its number key");
        return;
      }
      var chosen = cardActions(t.view)[t.selection[0]];
      if (chosen) act(chosen.value);
    },
    controls: function (view) {
      if (!view.actions.length) return null;
      var parts = [];
      var cards = cardActions(view);
      var several = severalOf(view);
      if (cards.length) {
        var chosen = t.selection.length ? cards[t.selection[0]] : null;
        parts.push(actionButton(cards[0].label + " " + (chosen ? label(chosen.card) : "the chosen card"),
          "Enter", game.play, { disabled: !asked() || !chosen }));
      }
      if (several) parts = parts.concat(many.controls(several));
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
      var several = severalOf(t.view);
      var count = cardActions(t.view).length;
      if (count) {
        // the keys there are: as many digits as cards (0 the tenth), arrows past ten; or,
        // where the cards are numbers, the digits of a card's number
        // Enter does what the button says ("Keep the chosen card": "keep it", "bid it")
        var verb = cardActions(t.view)[0].label.toLowerCase();
        var numbers = numbersOf(cardActions(t.view));
        if (numbers) pairs.push.apply(pairs, numberKeys(numbers));
        else pairs.push([cardKeys(count) + (count > 10 ? " ← →" : ""), "choose a card"]);
        pairs.push(["Enter", verb + " it"], ["Esc", "clear"]);
      }
      if (several) pairs = pairs.concat(many.keys(several));
      buttonActions(t.view).forEach(function (action) {
        if (action.key) pairs.push([[action.key].concat(action.also || []).join(" "), action.label.toLowerCase()]);
      });
      return keyHelp(pairs);
    },
    onKey: function (key) {
      var cards = cardActions(t.view);
      var several = severalOf(t.view);
      if (several && many.onKey(several, key)) return true;
      if (cards.length) {
        if (key === "Enter") { game.play(); return true; }
        if (key === "Escape") {
          t.selection = [];
          t.typed = "";
          draw();
          sayChosen([], cards[0].label);
          return true;
        }
        // a digit: the card of that place, or of that number where the cards are numbers
        var numbers = numbersOf(cards);
        var index = numbers && digit(key) !== null && asked() ? typedCard(numbers, key) : digit(key);
        if (numbers && digit(key) !== null && index === null) return true; // (a hint said why)
        if (index !== null && index < cards.length && asked()) {
          t.selection = [index];
          clearError();
          draw();
          focusCard(index);
          sayChosen([cards[index].card], cards[0].label);
          return true;
        }
        // the arrows move the choice along the hand: every card has a key, however many;
        // with none chosen, from the card the keyboard is on
        var step = key === "ArrowRight" ? 1 : key === "ArrowLeft" ? -1 : 0;
        if (step && asked()) {
          var from = t.selection.length ? t.selection[0] : focusedCard();
          var at = from !== null ? from + step : step > 0 ? 0 : cards.length - 1;
          t.selection = [Math.max(0, Math.min(cards.length - 1, at))];
          draw();
          focusCard(t.selection[0]); // the focus goes with the choice
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
      if (t.seat !== null && t.placed[t.seat]) return game.waitingLine(view);
      if (t.seat !== null && t.sent) {
        return lost ? "Your move may not have reached the table: if not, you will be asked for it again."
          : "Your move is on its way…";
      }
      return view.frame.status;
    },
    // my move is in (or was played for me): who the table waits for now
    waitingLine: function (view) {
      var names = [];
      view.frame.seats.forEach(function (seat, index) {
        if (seat.turn && index !== t.seat && !t.placed[index]) names.push(plainName(index));
      });
      var waiting = names.length
        ? (view.frame.waiting || "waiting for {names}").replace("{names}", names.join(" and ")) + "."
        : "";
      if (t.timedOut) return t.timedOut + (waiting ? " " + waiting.charAt(0).toUpperCase() + waiting.slice(1) : "");
      return (view.frame.taken || "Your move is in") + (waiting ? ": " + waiting : ".");
    },
    log: function (view) {
      return view.frame.log.map(function (entry) { return { key: entry.key, text: entry.text, mine: !!entry.mine }; });
    },
  };

  // The keys of a hand of numbers as the keys line shows them: "2 … 9 type a card's number to
  // choose it", and with a number of two digits "0 … 9 type a card's number to choose it (1
  // then 3 for 13)"; the arrows.
  function numberKeys(numbers) {
    var low = Math.min.apply(null, numbers), high = Math.max.apply(null, numbers);
    if (high < 10) {
      return [[low === high ? String(low) : low + " … " + high, "type a card's number to choose it"],
        ["← →", "move the choice"]];
    }
    var digits = String(high).split("").join(" then ");
    return [["0 … 9", "type a card's number to choose it (" + digits + " for " + high + ")"],
      ["← →", "move the choice"]];
  }

  // The digit keys of a hand of ``count`` cards as the keys line shows them: "1 2", "1 … 6",
  // "1 … 9 0" (0 is the tenth card's).
  function cardKeys(count) {
    if (count <= 3) return ["1", "2", "3"].slice(0, count).join(" ");
    if (count <= 9) return "1 … " + count;
    return "1 … 9 0";
  }

  function digit(key) {
    if (key.length !== 1 || key < "0" || key > "9") return null;
    return key === "0" ? 9 : Number(key) - 1;
  }

  // The cards' numbers, where each card of the hand is a number of its own (Goofspiel's 1 to
  // 13): the digit keys then type a card's number; null where they name its place.
  function numbersOf(cards) {
    var numbers = cards.map(function (action) { return action.number; });
    var own = numbers.length > 0 && numbers.every(function (n, i) {
      return typeof n === "number" && numbers.indexOf(n) === i;
    });
    return own ? numbers : null;
  }

  // The index of the card whose number is typed (its digits at most TYPED_MS apart: "1" then
  // "3" is the 13), or null, said in a hint, while the hand has no such card.
  function typedCard(numbers, key) {
    var now = Date.now();
    var text = (now - t.typedAt <= TYPED_MS ? t.typed : "") + key;
    var begins = function (n) { return String(n).indexOf(text) === 0; };
    if (!numbers.some(begins)) text = key; // no card's number goes on so: a new number
    t.typed = text;
    t.typedAt = now;
    var at = numbers.map(String).indexOf(text);
    if (at >= 0) return at;
    var longer = numbers.filter(begins);
    var some = longer.length > 1 ? longer.slice(0, -1).join(", ") + " or " + longer[longer.length - 1] : String(longer[0]);
    hint("no " + text + " in your hand" + (longer.length ? ": type the second digit for " + some : ""));
    return null;
  }

  // No card chosen, nor a suit, nor a call (a new view, a refused move); the next digit
  // typed begins a new number.
  function clearChoice() {
    t.selection = [];
    t.typed = "";
    t.suit = null;
    t.call = false;
    t.callTouched = false;
  }

  // After each new view: what the new turn starts with, and the log.
  function afterState() {
    // a new view: the previous choice no longer points at the same cards
    clearChoice();
    // a finished table's log holds its latest lines: they keep their numbers
    var dropped = t.view.frame.log_dropped;
    if (typeof dropped === "number" && !el.log.children.length) t.logDropped = dropped;
    addLog(game.log(t.view));
  }

  // ---- the end -----------------------------------------------------------------------------
  // The table stops: its last view stays, without a turn, a clock or actions.
  function closeTable(abandoned) {
    t.over = true;
    t.turn = null;
    el.state.textContent = abandoned ? "Abandoned" : "Finished";
    if (el.lobby) el.lobby.hidden = true;
    draw();
    el.turnLine.textContent = "The match is over.";
    el.countdown.hidden = true;
    el.controls.hidden = true;
    el.keys.hidden = true;
  }

  function finish(message) {
    closeTable(!!message.error);
    // the match is over, but the site cannot save its result yet (the summary says so): the
    // page listens on, and shows the end again once it is saved (with the replay's link)
    t.saving = message.pending === true;
    if (t.saving) el.state.textContent = "Over, not saved yet";
    // a table whose match never began (everyone left it first) closed: no match is over
    el.endTitle.textContent = message.error && message.started === false ? "Table closed" : "Match over";
    if (message.error) {
      el.endSummary.textContent = "The table stopped: " + message.error;
    } else if (message.result) {
      el.endSummary.textContent = message.summary;
      var scores = message.result.scores || [];
      var rows = el.endScores.querySelectorAll("tbody tr");
      rows.forEach(function (row, seat) {
        // names too: a seat taken after the page was drawn (an invited player) was blank
        var cells = row.querySelectorAll("td");
        if (cells.length > 1 && t.names[seat]) cells[1].textContent = nameOf(seat);
        var cell = row.querySelector(".num");
        if (cell && seat < scores.length) cell.textContent = number(scores[seat]);
      });
      el.endScores.hidden = false;
    }
    // a rated match moved a signed-in player's rating (at once): where to see it
    var ratedLine = document.getElementById("end-rated");
    if (ratedLine && setup.profile && message.rated === true && message.url) ratedLine.hidden = false;
    if (message.url) {
      el.endReplay.href = message.url;
      el.endReplay.hidden = false;
      // the solver's review of this seat's decisions, for a game the solver reviews, where
      // the seat made one it judges (message.review: those seats)
      var judged = !message.review || message.review.indexOf(t.seat) !== -1;
      if (el.endReview && t.seat !== null && judged) {
        el.endReview.href = message.url + "?review=" + t.seat + "#review";
        el.endReview.hidden = false;
      }
    }
    var wasHidden = el.end.hidden;
    el.end.hidden = false;
    if (wasHidden) el.end.focus();
    if (t.saving) return; // (listening on for the end as saved)
    // a player's page listens a while longer, to hear of a rematch another player opens
    if (socket && t.seat !== null) {
      var ended = socket;
      window.setTimeout(function () { ended.close(); }, REMATCH_LISTEN_MS);
    } else if (socket) {
      socket.close();
    }
  }

  // "alice opened a rematch: Join it", with the link, at the end of the match
  function showRematch(message) {
    if (!el.endRematch) return;
    var link = node("a", null, "Join it");
    link.href = message.url;
    el.endRematch.replaceChildren(document.createTextNode(message.text + " "), link);
    el.endRematch.hidden = false;
  }

  // ---- keys --------------------------------------------------------------------------------
  document.addEventListener("keydown", function (event) {
    if (!t.view || t.seat === null || t.over) return;
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    var target = event.target;
    if (target.matches && target.matches("input[type=text], input[type=url], textarea, select, [contenteditable]")) return;
    // a key held down is sent again and again by the system: one press is one move or one
    // choice (a held C would check now and check again at the next turn, a held Enter would
    // press a focused button twice, a held 1 would type 11); only the arrows repeat
    if (event.repeat && !/^Arrow/.test(event.key)) {
      event.preventDefault();
      return;
    }
    // Enter on one of your cards plays that card (in a game of several cards, it joins the
    // cards chosen, if it was not one, and they are played)
    var onCard = target.closest && target.closest("#live-hand .hand-card");
    if (event.key === "Enter" && onCard) {
      event.preventDefault();
      playCard(Number(onCard.dataset.index));
      return;
    }
    // the arrows on a card of a game of several cards move the keyboard along the hand
    if (onCard && severalOf(t.view) && (event.key === "ArrowRight" || event.key === "ArrowLeft")) {
      var next = event.key === "ArrowRight" ? onCard.nextElementSibling : onCard.previousElementSibling;
      if (next && !next.disabled) next.focus();
      event.preventDefault();
      return;
    }
    // Enter on the suit to follow an ace (or on "Last card!") plays the cards chosen
    if (event.key === "Enter" && target.matches && el.controls.contains(target) &&
        target.matches("input[type=radio], input[type=checkbox]")) {
      event.preventDefault();
      if (severalOf(t.view)) many.play();
      return;
    }
    // a focused button or link keeps its own Enter and Space
    if (event.key === "Enter" && target.matches && target.matches("button, a, input")) return;
    // a radio keeps its arrows
    if (/^Arrow/.test(event.key) && target.matches && target.matches("input")) return;
    if (game.onKey(event.key)) event.preventDefault();
  });

  // Enter on card ``index`` of the hand: that card is played (with the cards chosen before it,
  // in a game of several cards)
  function playCard(index) {
    if (!asked() || isNaN(index)) return;
    var several = severalOf(t.view);
    if (several) {
      if (t.selection.indexOf(index) < 0 && !many.toggle(index)) return;
      many.play();
      return;
    }
    t.selection = [index];
    game.play();
  }

  document.addEventListener("visibilitychange", function () {
    // a phone woke up: make sure the table is current, and that the connection still is
    // (asleep, its network may have gone without the socket saying so); a page that lost its
    // connection tries again at once, rather than after its wait (up to 15 s)
    if (document.visibilityState !== "visible") return;
    if (socket && socket.readyState === WebSocket.OPEN) {
      send({ type: "sync" });
      ping();
    } else {
      connectNow();
    }
  });

  if (setup.state === "finished" || setup.state === "abandoned") {
    // the page shows the end (drawn by the server); the table as this seat (or a spectator)
    // saw it end comes with the page, its log included: drawn as the live view was, and
    // the socket would only repeat it
    if (setup.view) {
      t.over = true;
      // the log is read in full on the page, not announced line by line as it happens
      el.log.setAttribute("aria-live", "off");
      receive(setup.view);
      closeTable(false);
    }
    return;
  }
  connect();
})();
