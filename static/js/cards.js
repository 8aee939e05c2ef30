// Playing cards drawn by scripts with the markup of templates/includes/card.html (styled by
// static/css/cards.css), shared by the replay viewer and the live table. `view` is a card's
// description from games.replays.card_view (code, rank, suit, color, label), or null for a
// face-down card; `size` is an optional modifier ("small").
(function () {
  "use strict";

  function node(tag, className, text) {
    var made = document.createElement(tag);
    if (className) made.className = className;
    if (text !== undefined && text !== null) made.textContent = text;
    return made;
  }

  function drawCard(view, size) {
    var extra = size ? " card--" + size : "";
    if (!view) {
      var back = node("span", "card card--down" + extra);
      back.setAttribute("role", "img");
      back.setAttribute("aria-label", "face-down card");
      back.title = "face-down card";
      return back;
    }
    var card = node("span", "card card--" + view.color + extra);
    card.setAttribute("role", "img");
    card.setAttribute("aria-label", view.label);
    card.title = view.label;
    card.dataset.code = view.code;
    var corner = node("span", "card__corner");
    corner.setAttribute("aria-hidden", "true");
    corner.appendChild(node("span", "card__rank", view.rank));
    corner.appendChild(node("span", "card__suit", view.suit));
    var pip = node("span", "card__pip", view.suit);
    pip.setAttribute("aria-hidden", "true");
    card.appendChild(corner);
    card.appendChild(pip);
    return card;
  }

  // A seat's score, and what it counts when `label` is given: after it ("7 points taken", the
  // live table's), or with `labelFirst` before it ("points taken: 7", the replay viewer's, as
  // the server draws it in templates/matches/_frame.html).
  function scoreBadge(text, label, title, labelFirst) {
    var badge = node("span", "seat__score", labelFirst && label ? "" : text);
    if (label && labelFirst) {
      badge.title = title || label;
      badge.appendChild(node("span", "seat__score-label", label + ":"));
      badge.appendChild(document.createTextNode(" " + text));
    } else if (label) {
      badge.title = title || label;
      badge.appendChild(document.createTextNode(" "));
      badge.appendChild(node("span", "seat__score-label", label));
    }
    return badge;
  }

  window.CardArena = { node: node, drawCard: drawCard, scoreBadge: scoreBadge };
})();
