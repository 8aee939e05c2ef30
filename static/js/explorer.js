// The strategy explorer. On the form: shows a game's own options (the fieldset marked with
// its slug in data-game-option) only for that game and keeps the iterations field within the
// chosen game's limit. On a solve's page: polls the progress JSON, moves the progress bar,
// and reloads once the solve is done. Without this script the form still works and the
// solve's page refreshes itself.
(function () {
  'use strict';

  var form = document.getElementById('explorer-form');
  if (form) {
    var limits = JSON.parse(form.getAttribute('data-limits') || '{}');
    var game = form.querySelector('[name="game"]');
    var iterations = form.querySelector('[name="iterations"]');
    var groups = form.querySelectorAll('fieldset[data-game-option]');
    // `clamp`: a game just chosen brings its limit down on the number; on load the number
    // stays what was asked, so that the page's message about it stays true
    var syncForm = function (clamp) {
      var chosen = game.value;
      var limit = limits[chosen];
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
    syncForm(false);
  }

  var panel = document.getElementById('solve-progress');
  if (!panel) return;
  var url = panel.getAttribute('data-progress-url');
  var bar = document.getElementById('solve-bar');
  var status = document.getElementById('solve-status');
  var POLL_MS = 700;

  function seconds(s) {
    if (s === null || s === undefined) return '';
    return s < 1 ? 'under a second' : Math.round(s) + ' s';
  }

  function show(data) {
    bar.value = data.percent;
    bar.textContent = data.percent + '%';
    var text;
    if (data.phase === 'building') text = 'Building the game tree.';
    else if (data.phase === 'measuring') text = 'Measuring the result.';
    else if (data.phase === 'waiting') text = 'Starting.';
    else {
      text = 'Iteration ' + data.iteration.toLocaleString() + ' of ' + data.total.toLocaleString() + '.';
      if (data.eta_seconds !== null) text += ' About ' + seconds(data.eta_seconds) + ' left.';
      if (data.exploitability_so_far) {
        text += ' Exploitability ' + Number(data.exploitability_so_far[1]).toPrecision(3) +
          ' at iteration ' + data.exploitability_so_far[0].toLocaleString() + '.';
      }
    }
    status.textContent = text;
  }

  function poll() {
    fetch(url, { headers: { Accept: 'application/json' }, cache: 'no-store' })
      .then(function (response) {
        if (!response.ok) throw new Error('HTTP ' + response.status);
        return response.json();
      })
      .then(function (data) {
        show(data);
        if (data.state === 'running') window.setTimeout(poll, POLL_MS);
        else window.location.reload();
      })
      .catch(function () {
        // the server restarted or the network dropped: fall back to reloading the page
        window.setTimeout(function () { window.location.reload(); }, 3000);
      });
  }

  window.setTimeout(poll, POLL_MS);
})();
