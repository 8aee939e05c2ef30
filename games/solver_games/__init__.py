"""The games ``manage.py solve`` (and later the strategy explorer) can solve, by name."""

from __future__ import annotations

from games.blackjack_pp.tree import BlackjackPP, parse_up_cards
from games.kuhn.tree import Kuhn
from games.leduc.tree import Leduc
from games.solver.game import Game

SOLVABLE = {"kuhn": Kuhn.title, "leduc": Leduc.title, "blackjack-pp": BlackjackPP.title}
ALIASES = {
    "blackjack": "blackjack-pp",
    "blackjack_pp": "blackjack-pp",
    "blackjackpp": "blackjack-pp",
}


class GameChoiceError(ValueError):
    pass


def canonical(name: str) -> str:
    key = name.strip().lower()
    key = ALIASES.get(key, key)
    if key not in SOLVABLE:
        raise GameChoiceError(f"unknown game {name!r}: choose one of {', '.join(SOLVABLE)}")
    return key


def make_game(name: str, up: str | None = None, max_hits: int | None = None) -> Game:
    """A game by name; ``up`` (e.g. ``"6,6,2"``) and ``max_hits`` are Blackjack++'s options."""
    key = canonical(name)
    if key != "blackjack-pp":
        if up is not None or max_hits is not None:
            raise GameChoiceError("--up and --max-hits are options of blackjack-pp only")
        return Kuhn() if key == "kuhn" else Leduc()
    hits = 2 if max_hits is None else max_hits
    if hits not in (1, 2, 3):
        raise GameChoiceError(f"--max-hits must be 1, 2 or 3 (got {hits})")
    try:
        cards = parse_up_cards(up if up is not None else "6,6,2")
    except ValueError as exc:
        raise GameChoiceError(str(exc)) from None
    return BlackjackPP(cards, hits)
