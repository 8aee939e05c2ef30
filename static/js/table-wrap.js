// A table wider than its box scrolls inside it (site.css: .table-wrap). Where it does, a line
// over it says so and the edge it scrolls towards fades, so that a figure cut at the box's
// edge ("35.9" of 35.93) does not read as the whole figure. data-more on the box says which
// way there is more ("left", "right", both, or nothing), as it scrolls and as it is resized.
(function () {
  'use strict';

  var HINT = 'Scroll the table sideways for more \u2192';

  function hintOf(wrap) {
    var hint = wrap.previousElementSibling;
    if (!hint || !hint.classList.contains('scroll-hint')) {
      hint = document.createElement('p');
      hint.className = 'scroll-hint';
      hint.setAttribute('aria-hidden', 'true'); // (for the eyes: the table reads whole)
      hint.textContent = HINT;
      wrap.parentNode.insertBefore(hint, wrap);
    }
    return hint;
  }

  function update(wrap) {
    var room = wrap.clientWidth;
    var width = wrap.scrollWidth;
    var left = Math.abs(wrap.scrollLeft);
    var more = [];
    if (left > 1) more.push('left');
    if (left + room < width - 1) more.push('right');
    wrap.setAttribute('data-more', more.join(' '));
    var wide = width > room + 1;
    if (wide || wrap.previousElementSibling && wrap.previousElementSibling.classList.contains('scroll-hint')) {
      hintOf(wrap).hidden = !wide;
    }
  }

  var wraps = document.querySelectorAll('.table-wrap');
  var resized = typeof ResizeObserver === 'function' ? new ResizeObserver(function (entries) {
    entries.forEach(function (entry) { update(entry.target.closest('.table-wrap')); });
  }) : null;
  Array.prototype.forEach.call(wraps, function (wrap) {
    wrap.addEventListener('scroll', function () { update(wrap); }, { passive: true });
    if (resized) {
      resized.observe(wrap);
      if (wrap.firstElementChild) resized.observe(wrap.firstElementChild);
    }
    update(wrap);
  });
})();
