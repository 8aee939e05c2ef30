// A playground run's page: polls the run's status JSON, moves the progress bar and says where
// the run is (its place in the queue while it waits), and reloads the page when a match was
// played or the run ended, so its results show. Without this script the page refreshes itself.
(function () {
  'use strict';

  var panel = document.getElementById('run-progress');
  if (!panel) return;
  var url = panel.getAttribute('data-status-url');
  var played = Number(panel.getAttribute('data-played'));
  var bar = document.getElementById('run-bar');
  var title = document.getElementById('progress-title');
  var status = document.getElementById('run-status');
  var EVERY_MS = 1000;

  function show(data) {
    bar.value = data.percent;
    bar.textContent = data.percent + '%';
    title.textContent = data.position ? 'Waiting for a worker' : 'Playing';
    status.textContent = data.message;
  }

  function poll() {
    fetch(url, { headers: { Accept: 'application/json' }, cache: 'no-store' })
      .then(function (response) {
        if (!response.ok) throw new Error('HTTP ' + response.status);
        return response.json();
      })
      .then(function (data) {
        if (data.final || data.played !== played) {
          window.location.reload();
          return;
        }
        show(data);
        window.setTimeout(poll, EVERY_MS);
      })
      .catch(function () {
        window.setTimeout(function () { window.location.reload(); }, 3000);
      });
  }

  window.setTimeout(poll, EVERY_MS);
})();
