"""Last Card at a live table: your hand, the last played card, everyone's hand size, and
the moves so far (cards played are public; cards drawn are counted, never shown).

On its turn a seat chooses several cards in order, a suit when it ends on an ace, and whether
it calls "Last card!": one action with a ``several`` part (see games/engine/table.py)."""

from __future__ import annotations

from typing import Any

from games.engine.table import TableRules, name_of
from games.last_card.movecheck import legal_moves
from games.last_card.replay import way_of_play
from games.last_card.rules import LastCardState
from games.replays import SUIT_NAMES, SUIT_SYMBOLS, card_view, zone

#: the log's entries a table shows, each reduced to its public part
_PUBLIC_KEYS = {
    "play": ("seat", "cards", "suit", "call"),
    "pass": ("seat", "call", "auto"),
    "draw": ("seat", "drawn"),
    "punished": ("seat", "owed", "drawn"),
    "no_call": ("seat", "drawn"),
    "skip": ("seat",),
    # the reason of a refused move may name cards of the hand: the seat alone hears it
    "illegal": ("seat",),
    "fault": ("seat", "kind"),
    "reshuffle": ("cards",),
    "cap": ("turns",),
    "win": ("seat",),
}
RECENT = 40

#: the simple entries of the history in words (their public keys fill them in)
_SAID = {
    "punished": "{who} picks up {drawn} cards as punishment.",
    "no_call": "{who} emptied the hand without calling last card and draws {drawn}.",
    "skip": "{who} misses a turn.",
    "illegal": "{who} made an illegal move: it counts as a pass.",
    "fault": "{who} is out of the game ({kind}).",
    # (one card or several: _move_text)
    "reshuffle": "The {cards} played cards are shuffled back into the deck.",
    "cap": "{turns} turns without a winner: the game ends.",
    "win": "{who} wins the game!",
}


class LastCardTable(TableRules):
    default_action_text = "a pass (draw)"

    def summary(self, result: dict[str, Any], names: list[str], mine: int | None) -> str:
        scores = result.get("scores") or []
        winner = result.get("winner")
        points = ", ".join(f"{n} {p:g}" for n, p in zip(names, scores, strict=False))
        who = "Nobody emptied their hand" if winner is None else f"{names[winner]} wins"
        if winner is not None and winner == mine:
            who = "You win"
        return f"{who}. Points taken (lower is better): {points}."

    def frame(self, state: LastCardState, seat: int | None, names: list[str]) -> dict[str, Any]:  # type: ignore[override]
        shown = [name_of(names, s, seat) for s in range(state.num_seats)]
        seats = []
        for s, hand in enumerate(state.hands):
            size = len(hand)
            cards = f"{size} card" + ("" if size == 1 else "s")
            badges = (["last card!"] if state.called[s] else []) + (
                ["winner"] if state.winner == s else []
            )
            seats.append({
                "zones": [] if s == seat
                else [zone("Hand", down=size, fan="pile") | {"note": cards}],
                "notes": [f"{cards} in your hand"] if s == seat else [],
                "turn": not state.over and state.current == s, "turn_text": "to play",
                "badges": badges,
            })  # fmt: skip
        top = state.played[-1] if state.played else None
        suit = f"suit to follow: {SUIT_NAMES[state.active_suit]}" if state.active_suit else ""
        deck = len(state.deck)
        shared = [
            zone("Last played card", [top] if top else []) | {"note": suit},
            zone("Deck", down=1 if deck else 0)
            | {"note": f"{deck} card" + ("" if deck == 1 else "s")},
        ]
        lines = []
        if state.punishment:
            lines.append(
                f"Pending punishment: the next player draws {state.punishment} cards or plays "
                f"a {_punish_rank(state) or 'matching card'}."
            )
        way = way_of_play(state.direction)
        # ``turns`` counts the turns played: the one being played is the next one
        turn = f"Turn {state.turns + 1}"
        cap = state.config.get("max_turns")
        if cap:  # the game ends unfinished there: say how far it may go
            turn += f" of at most {cap}"
        played = f"{state.turns} turn" + ("" if state.turns == 1 else "s")
        lines.append(f"Play goes {way}. " + (f"{played} played." if state.over else f"{turn}."))
        hand = state.hands[seat] if seat is not None else []
        asked = seat is not None and not state.over and state.current == seat
        waiting = seat is not None and not asked and not state.over
        # the cards left in the hand at the end are the points it takes: the seat sees them
        shown_hand = waiting or (seat is not None and state.over)
        return {
            "label": "The game is over" if state.over else turn,
            "lines": lines,
            "scores": [],
            "seats": seats,
            "shared": shared,
            # the hand is the choice itself on the seat's turn (see actions)
            "hand": [zone("Your hand", hand)] if shown_hand else [],
            "pick": ""
            if seat is None
            else f"Your hand ({len(hand)} card{'' if len(hand) == 1 else 's'})",
            "status": "The game is over." if state.over else f"{shown[state.current]} to play.",
            # a seat's words: never a spectator's, nor once the game is over
            "prompt": "" if seat is None or state.over else self._prompt(state),
            "log": self._log(state, seat, shown),
        }

    @staticmethod
    def _log(state: LastCardState, seat: int | None, shown: list[str]) -> list[dict[str, Any]]:
        first = max(0, len(state.history) - RECENT)
        log = []
        for n, entry in enumerate(state.history[first:], start=first):
            text = _move_text(entry, shown)
            if text:
                mine = seat is not None and entry.get("seat") == seat
                log.append({"key": f"m{n}", "text": text, "mine": mine})
        return log

    @staticmethod
    def _prompt(state: LastCardState) -> str:
        if state.punishment:
            return (
                f"Your turn: play a {_punish_rank(state)} to pass the punishment on, or draw "
                f"{state.punishment} cards."
            )
        top = state.played[-1]
        suit = f" (suit {SUIT_NAMES[state.active_suit]})" if state.active_suit else ""
        return f"Your turn: play cards matching {card_view(top)['label']}{suit}, or draw."

    def actions(self, state: LastCardState, seat: int) -> list[dict[str, Any]]:  # type: ignore[override]
        if state.over or seat != state.current:
            return []
        hand = state.hands[seat]
        move = {"cards": [], "suit": None, "last_card": False}
        owed = state.punishment
        return [
            {
                "value": move,
                "label": "Play",
                "key": "Enter",
                # cards chosen in order, a suit after an ace, and the call
                "several": {
                    "field": "cards",
                    "cards": list(hand),
                    "many": "Play {n} cards",
                    "empty": "choose cards first (click them or press their numbers), "
                    "or draw with D",
                    "choice": {
                        "field": "suit",
                        "legend": "Suit to follow your ace",
                        "when_last": [c for c in hand if c[0] == "A"],
                        "missing": "you end on an ace: choose the suit that must follow",
                        "options": [
                            {"value": s, "label": name, "symbol": SUIT_SYMBOLS[s],
                             "tone": "red" if s in "hd" else "black"}
                            for s, name in SUIT_NAMES.items()
                        ],
                    },
                    # on by itself when the cards chosen leave one in the hand
                    "toggle": {"field": "last_card", "label": "Last card!", "key": "L", "left": 1},
                    # the page offers only these (one value, at most 4, the first matching)
                    "moves": playable(state, seat),
                },
            },
            {
                "value": move,
                "label": f"Draw {owed} cards" if owed > 1 else "Draw a card (pass)",
                "key": "D",
                "secondary": True,
            },
        ]  # fmt: skip

    def default_action(self, state: LastCardState, seat: int) -> Any:  # type: ignore[override]
        return {"cards": [], "suit": None, "last_card": False}


def playable(state: LastCardState, seat: int) -> list[list[str]]:
    """The cards ``seat`` may play now, each move in its order (a move's beginning is one too):
    the rules' own legal moves, the suit named after an ace left to the page to ask."""
    seen: dict[tuple[str, ...], None] = {}
    for move in legal_moves(state.view(seat)):
        seen.setdefault(tuple(move["cards"]), None)
    return [list(cards) for cards in seen]


def _punish_rank(state: LastCardState) -> str | None:
    """The rank that passes the pending punishment on (the last played card's, a 2 or a 5)."""
    top = state.played[-1] if state.played else ""
    return top[0] if top[:1] in ("2", "5") else None


def _move_text(entry: dict[str, Any], names: list[str]) -> str:
    """One entry of the engine's history in words, from its public part only (cards drawn
    are counted, never named; a refused move's reason may name cards of the hand)."""
    kind = entry.get("e", "")
    if kind not in _PUBLIC_KEYS:
        return ""
    e = {k: entry[k] for k in _PUBLIC_KEYS[kind] if k in entry}
    who = names[e["seat"]] if "seat" in e else ""
    if kind == "play":
        text = f"{who} plays {', '.join(card_view(c)['label'] for c in e['cards'])}"
        if e.get("suit"):
            text += f" and chooses {SUIT_NAMES[e['suit']]}"
        return text + (", calling last card." if e.get("call") else ".")
    if kind == "pass":
        did = " is out of the game and passes" if e.get("auto") else " passes"
        return who + did + (", calling last card." if e.get("call") else ".")
    if kind == "draw":
        if not e["drawn"]:
            return f"{who} passes (nothing left to draw)."
        return f"{who} draws {e['drawn']} card{'' if e['drawn'] == 1 else 's'}."
    if kind == "reshuffle" and e.get("cards") == 1:
        return "The 1 played card is shuffled back into the deck."
    return _SAID[kind].format(who=who, **e)
