// The strategy explorer. On the form: shows a game's own options (the fieldset marked with
// its slug in data-game-option) only for that game and keeps the iterations field within the
// chosen game's limit, lower for some values of its options (data-option-limits). On a
// solve's page: polls the progress JSON, moves the progress bar, shows its place in the
// queue while it waits for a worker (and, after a while, that no worker seems to be there),
// and reloads once the solve is done. Without this script the form still works and the
// solve's page refreshes itself.
(function () {
  'use strict';

  var form = document.getElementById('explorer-form');
  if (form) {
    var limits = JSON.parse(form.getAttribute('data-limits') || '{}');
    // fewer iterations for some values of a game's option: {game: {field: {value: most}}}
    var optionLimits = JSON.parse(form.getAttribute('data-option-limits') || '{}');
    var game = form.querySelector('[name="game"]');
    var iterations = form.querySelector('[name="iterations"]');
    var groups = form.querySelectorAll('fieldset[data-game-option]');
    // `clamp`: a game just chosen brings its limit down on the number; on load the number
    // stays what was asked, so that the page's message about it stays true
    var syncForm = function (clamp) {
      var chosen = game.value;
      var limit = limits[chosen];
      var own = optionLimits[chosen] || {};
      Object.keys(own).forEach(function (name) {
        var field = form.querySelector('[name="' + name + '"]');
        var most = field && own[name][field.value];
        if (most && limit) limit = Math.min(limit, most);
      });
      if (limit) {
        iterations.max = String(limit);
        if (clamp && Number(iterations.value) > limit) iterations.value = String(limit);
      }
      // each game's own options: shown and sent only for that game
      for (var i = 0; i < groups.length; i++) {
        var own = groups[i].getAttribute('data-game-option') === chosen;
        groups[i].hidden = !own;
        groups[i].disabled = !own;
      }
    };
    game.addEventListener('change', function () { syncForm(true); });
    Object.keys(optionLimits).forEach(function (slug) {
      Object.keys(optionLimits[slug]).forEach(function (name) {
        var field = form.querySelector('[name="' + name + '"]');
        if (field) field.addEventListener('change', function () { syncForm(true); });
      });
    });
    syncForm(false);
  }

  var panel = document.getElementById('solve-progress');
  if (!panel) return;
  var url = panel.getAttribute('data-progress-url');
  var bar = document.getElementById('solve-bar');
  var title = document.getElementById('progress-title');
  var status = document.getElementById('solve-status');
  var notice = document.getElementById('solve-notice');
  // a running solve's row changes now and then; a waiting one's place in the queue slowly
  var RUNNING_MS = 700;
  var WAITING_MS = 2000;

  // the server words the status line and the notice (a solve no worker has taken for a
  // while): the page only shows them
  function show(data) {
    bar.value = data.percent;
    bar.textContent = data.percent + '%';
    title.textContent = data.state === 'queued' ? 'Waiting for a worker\u2026' : 'Solving\u2026';
    status.textContent = data.message;
    notice.hidden = !data.notice;
    notice.firstElementChild.textContent = data.notice || '';
  }

  function poll() {
    fetch(url, { headers: { Accept: 'application/json' }, cache: 'no-store' })
      .then(function (response) {
        if (!response.ok) throw new Error('HTTP ' + response.status);
        return response.json();
      })
      .then(function (data) {
        show(data);
        if (data.state === 'running') window.setTimeout(poll, RUNNING_MS);
        else if (data.state === 'queued') window.setTimeout(poll, WAITING_MS);
        else window.location.reload();
      })
      .catch(function () {
        // the network dropped or the solve was forgotten: fall back to reloading the page
        window.setTimeout(function () { window.location.reload(); }, 3000);
      });
  }

  window.setTimeout(poll, RUNNING_MS);
})();
