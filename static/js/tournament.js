// Live progress of a tournament. With a shared channel layer the page has a data-socket-path
// and listens on the websocket (the worker's progress messages); otherwise, or when the socket
// closes, it polls the progress JSON every few seconds. An open socket that says nothing for
// QUIET_MS (workers that publish nothing: no REDIS_URL of theirs, or a layer that lost their
// messages) has the page poll too, once each QUIET_MS of silence, so that it stays true
// whatever the workers publish. A worker's message carries the counts but not the latest
// results, which the page then fetches: once for a burst of messages, FETCH_MS after the first
// of them (a busy tournament stores several matches a second, and every open page would
// otherwise fetch once per match). When the tournament finishes the page reloads once to show
// the cross table.
(function () {
  'use strict';

  var POLL_MS = 4000;
  var QUIET_MS = 10000;
  var FETCH_MS = 2000;
  var panel = document.getElementById('progress');
  if (!panel || panel.getAttribute('data-finished') === 'true') return;
  var progressUrl = panel.getAttribute('data-progress-url');
  var socketPath = panel.getAttribute('data-socket-path');
  var timer = null;
  var quiet = null;
  var fetching = null;
  var done = false;

  function setCount(name, number) {
    var node = panel.querySelector('[data-count="' + name + '"]');
    if (node) node.textContent = String(number);
  }

  function showRecent(recent) {
    var list = document.getElementById('recent-results');
    if (!list || !recent || list.dataset.older) return; // a page of older results stays
    list.textContent = '';
    recent.forEach(function (result) {
      var item = document.createElement('li');
      var link = document.createElement('a');
      link.href = result.url;
      link.textContent = 'Match ' + result.match;
      item.appendChild(link);
      item.appendChild(document.createTextNode(': '));
      result.seats.forEach(function (seat, i) {
        if (i) item.appendChild(document.createTextNode(', '));
        item.appendChild(document.createTextNode(seat.bot + ' '));
        var score = document.createElement('strong');
        // (as the server writes it: a negative with the minus sign)
        score.textContent = seat.score_text || String(seat.score);
        item.appendChild(score);
        if (seat.fault) {
          var badge = document.createElement('span');
          badge.className = 'badge lost';
          badge.textContent = seat.fault;
          item.appendChild(document.createTextNode(' '));
          item.appendChild(badge);
        }
      });
      list.appendChild(item);
    });
  }

  function show(data) {
    var jobs = data.jobs || {};
    ['queued', 'running', 'done', 'failed'].forEach(function (name) {
      if (name in jobs) setCount(name, jobs[name]);
    });
    var total = (jobs.queued || 0) + (jobs.running || 0) + (jobs.done || 0) + (jobs.failed || 0);
    var percent = total ? Math.round((1000 * ((jobs.done || 0) + (jobs.failed || 0))) / total) / 10 : 0;
    setCount('percent', percent);
    var state = document.getElementById('tournament-state');
    if (state && data.state && state.textContent !== data.state) {
      // (the states' names are what the page shows: pending, running, done)
      state.textContent = data.state;
      state.className = 'state ' + data.state;
    }
    var bar = document.getElementById('progress-bar');
    if (bar) {
      bar.value = percent;
      bar.textContent = percent + '%';
    }
    if (data.recent) showRecent(data.recent);
    if (data.finished && !done) {
      done = true;
      window.setTimeout(function () { window.location.reload(); }, 800);
    }
  }

  function poll() {
    fetch(progressUrl, { headers: { Accept: 'application/json' }, credentials: 'same-origin' })
      .then(function (response) { return response.ok ? response.json() : null; })
      .then(function (data) { if (data) show(data); })
      .catch(function () { /* try again at the next tick */ });
  }

  // the latest results, once for the messages of the next FETCH_MS
  function pollSoon() {
    if (fetching !== null || done) return;
    fetching = window.setTimeout(function () {
      fetching = null;
      poll();
    }, FETCH_MS);
  }

  function startPolling() {
    if (quiet !== null) window.clearTimeout(quiet);
    quiet = null;
    if (timer === null && !done) timer = window.setInterval(poll, POLL_MS);
  }

  // the socket is open: a poll after each QUIET_MS without a message on it
  function listen() {
    if (quiet !== null) window.clearTimeout(quiet);
    quiet = done || timer !== null ? null : window.setTimeout(function () {
      quiet = null;
      poll();
      listen();
    }, QUIET_MS);
  }

  if (socketPath && 'WebSocket' in window) {
    var scheme = window.location.protocol === 'https:' ? 'wss://' : 'ws://';
    var socket = new WebSocket(scheme + window.location.host + socketPath);
    socket.addEventListener('open', listen);
    socket.addEventListener('message', function (event) {
      listen();
      var data;
      try { data = JSON.parse(event.data); } catch (error) { return; }
      if (data.type !== 'progress') return;
      show(data);
      if (!data.recent) pollSoon(); // a worker's message has no result list: fetch it
    });
    socket.addEventListener('close', startPolling);
  } else {
    startPolling();
  }
})();
