// Sortable tables: a table marked data-sortable gets its rows sorted when a header's button
// is pressed (click, Enter or Space). Each cell's data-sort holds the raw value; columns are
// numeric unless their header says data-type="text". Empty values sort last either way.
// aria-sort on the header tells assistive technology the current order.
(function () {
  'use strict';

  function value(row, index, numeric) {
    var cell = row.cells[index];
    var raw = cell ? cell.getAttribute('data-sort') : null;
    if (raw === null) raw = cell ? cell.textContent.trim() : '';
    if (raw === '') return null;
    if (!numeric) return raw.toLowerCase();
    var number = Number(raw);
    return Number.isNaN(number) ? null : number;
  }

  function sortBy(table, header) {
    var headers = Array.prototype.slice.call(header.parentNode.children);
    var index = headers.indexOf(header);
    var numeric = header.getAttribute('data-type') !== 'text';
    var ascending = header.getAttribute('aria-sort') !== 'ascending';
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows).map(function (row, position) {
      return { row: row, key: value(row, index, numeric), position: position };
    });
    rows.sort(function (a, b) {
      if (a.key === null || b.key === null) {
        if (a.key === b.key) return a.position - b.position;
        return a.key === null ? 1 : -1;
      }
      var order = a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
      return (ascending ? order : -order) || a.position - b.position;
    });
    rows.forEach(function (entry) { body.appendChild(entry.row); });
    headers.forEach(function (other) { other.removeAttribute('aria-sort'); });
    header.setAttribute('aria-sort', ascending ? 'ascending' : 'descending');
  }

  document.querySelectorAll('table[data-sortable]').forEach(function (table) {
    table.querySelectorAll('thead th').forEach(function (header) {
      var button = header.querySelector('button');
      if (!button) return;
      button.addEventListener('click', function () { sortBy(table, header); });
    });
  });
})();
