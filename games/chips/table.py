"""What a live table of a chip game shows: the hands already played (to everyone), and the
table as frames (:class:`ChipTable`)."""

from __future__ import annotations

from typing import Any, ClassVar

from games.chips.match import HandsMatch
from games.engine.table import FAULT_WORDS, TableRules, name_of, plural, signed
from games.replays import card_view, zone

RECENT = 10


def public_hands(state: HandsMatch, cards_of, viewer: int | None = None) -> list[dict[str, Any]]:
    """The last hands as ``viewer`` (None: a spectator) saw them: both cards only of hands
    that reached a showdown, and the viewer's own card of every hand (``mine``: folded or
    not, its owner saw it; a spectator has none)."""
    out = []
    for number, done in enumerate(state.hands_played[-RECENT:]):
        shown = done["showdown"]
        out.append(
            {
                "hand": len(state.hands_played) - min(RECENT, len(state.hands_played)) + number + 1,
                "first": done["first"],
                "history": done["history"],
                "won": [done["won"], -done["won"]] if done["first"] == 0 else
                       [-done["won"], done["won"]],
                "showdown": shown,
                # by seat: the cards of the seat that acted first, then the other
                "cards": cards_of(done) if shown else None,
                "mine": None if viewer is None else cards_of(done)[viewer],
            }
        )  # fmt: skip
    return out


class ChipTable(TableRules):
    """The table of a two-seat chip game as frames: each seat's chips and cards, the hand in
    play, the last hand; a game gives its cards (:meth:`seat_cards`, :meth:`shared_zones`),
    the words of its betting (:meth:`faces`) and of a finished hand (:meth:`hand_text`)."""

    #: a sitting at a table, not a tournament match of 100 hands
    sitting = {"hands": 10}
    #: what one hand of the sitting is called, and what the chips are
    unit = "hand"
    points = "chips"
    #: a seat's score is what it won or lost (the two add up to 0)
    signed_scores = True

    # ---- what a game gives ----------------------------------------------------------------
    def seat_cards(self, state: HandsMatch, seat: int, viewer: int | None) -> tuple[list, int]:
        """The cards of ``seat`` in the hand in play as ``viewer`` sees them: (face up,
        face down)."""
        raise NotImplementedError

    def shared_zones(self, state: HandsMatch) -> list[dict[str, Any]]:
        """The cards of the hand in play that every seat sees."""
        return []

    def facts(self, state: HandsMatch, names: list[str]) -> list[str]:
        """Lines about the hand in play (its betting, in words); ``names`` by seat."""
        return []

    def moves(self, state: HandsMatch, names: list[str]) -> list[str]:
        """The moves of the hand in play so far, one line each, for the log (``names`` by
        seat); the hand's line replaces them in the log's words once it is over."""
        return []

    def faces(self, state: HandsMatch) -> dict[str, tuple[str, str]]:
        """Each legal action now as (label, key)."""
        raise NotImplementedError

    #: the actions drawn plainer (the cautious ones)
    cautious: ClassVar[tuple[str, ...]] = ()

    def hand_zone(self, state: HandsMatch, seat: int) -> dict[str, Any]:
        """The seat's own cards, as its hand."""
        cards, _ = self.seat_cards(state, seat, seat)
        return zone("Your card" if len(cards) == 1 else "Your cards", cards)

    def finished(self, state: HandsMatch, viewer: int | None = None) -> list[dict[str, Any]]:
        """The last hands as ``viewer`` (None: a spectator) saw them: each {"hand", "first",
        "won" (by seat), ...}, with the viewer's own cards."""
        raise NotImplementedError

    def finished_zones(
        self, done: dict[str, Any], names: list[str], viewer: int | None
    ) -> list[dict[str, Any]]:
        """The cards of a finished hand as ``viewer`` saw them (``names`` by seat)."""
        return []

    def hand_text(self, done: dict[str, Any], names: list[str]) -> str:
        raise NotImplementedError

    # ---- the frame ------------------------------------------------------------------------
    def _title(self, state: HandsMatch) -> str:
        return f"{self.unit.capitalize()} {state.hand + 1} of {state.hands_total}"

    def frame(self, state: HandsMatch, seat: int | None, names: list[str]) -> dict[str, Any]:  # type: ignore[override]
        live = not state.over
        first = state.seat_of(0) if live else None
        to_act = state.pending()[0] if live else None
        shown = [name_of(names, s, None) for s in (0, 1)]
        seats = []
        for s in (0, 1):
            zones, notes = [], []
            if first is not None:
                up, down = self.seat_cards(state, s, seat)
                zones.append(zone(self.seat_zone_label(state, s), up, down))
                notes.append(self.position_note(0 if s == first else 1))
            seats.append({
                "zones": zones, "notes": notes, "turn": to_act == s, "turn_text": "to act",
                "score": f"{signed(state.chips[s])} {self.points}", "badges": [],
            })  # fmt: skip
        shared: list[dict[str, Any]] = []
        lines: list[str] = []
        if live:
            lines.append(self._title(state) + self.title_note(state) + ".")
            shared += self.shared_zones(state)
            lines += self.facts(state, shown)
        recent = self.finished(state, seat)
        if recent:
            last = recent[-1]
            shared += self.finished_zones(last, names, seat)
            lines.append(self.hand_text(last, shown))
        hand = []
        if seat is not None and live:
            hand.append(self.hand_zone(state, seat))
        # the turn line while the seat is not asked: whom the table waits for, as Last Card's
        status = self._title(state) + "." if live else "The match is over."
        if to_act is not None and to_act != seat:
            status = f"{self._title(state)}: {shown[to_act]} to act."
        prompt = ""
        if seat is not None and to_act == seat:
            words = " or ".join(label.lower() for label, _ in self.faces(state).values())
            prompt = f"Your turn: {words}."
        return {
            "label": self._title(state) if live else "The match is over",
            "lines": lines,
            "scores": list(state.chips),
            "seats": seats,
            "shared": shared,
            "hand": hand,
            "status": status,
            "prompt": prompt,
            "log": [
                {"key": f"{self.unit}{h['hand']}", "text": self.hand_text(h, shown)} for h in recent
            ]
            + [
                # the hand in play move by move, so that the log follows a person's own moves
                {"key": f"{self.unit}{state.hand + 1}.{i}", "text": text}
                for i, text in enumerate(self.moves(state, shown) if live else [], 1)
            ]
            # a fault: who faulted, and what the rules gave for the rest
            + self.fault_log(state, shown),
        }

    def fault_given(self, state: HandsMatch, names: list[str]) -> str:  # type: ignore[override]
        """As every game's ("The hand in play and the 9 hands not played went to bob."),
        and what that gave each seat: ": ann \u221210, bob +10 chips"."""
        given = super().fault_given(state, names)
        if not given:
            return given
        # the chips the hands played won, and the rest: what the fault gave
        played = [sum(won_by_seat(done)[s] for done in state.hands_played) for s in (0, 1)]
        each = ", ".join(f"{names[s]} {signed(state.chips[s] - played[s])}" for s in (0, 1))
        return f"{given[:-1]}: {each} {self.points}."

    def seat_zone_label(self, state: HandsMatch, seat: int) -> str:
        return "Card"

    def position_note(self, position: int) -> str:
        return "acts first" if position == 0 else "acts second"

    def title_note(self, state: HandsMatch) -> str:
        return ""

    def actions(self, state: HandsMatch, seat: int) -> list[dict[str, Any]]:  # type: ignore[override]
        if state.over or state.pending() != [seat]:
            return []
        return [
            {"value": action, "label": label, "key": key, "secondary": action in self.cautious}
            for action, (label, key) in self.faces(state).items()
        ]

    def summary(self, result: dict[str, Any], names: list[str], mine: int | None) -> str:
        scores = result.get("scores") or [0, 0]
        each = ", ".join(f"{names[s]} {signed(scores[s])}" for s in (0, 1))
        return f"After {plural(result.get('hands', 0), self.unit)}: {each} {self.points}."

    def ending(self, result: dict[str, Any], names: list[str], mine: int | None) -> str:
        """A sitting one seat's fault cut short says so in one sentence, with the hand it
        faulted in and the hands it forfeited with it ("carol/quitter raised an error in hand 1
        and forfeited it and the 9 hands left (carol +10, carol/quitter -10 chips)."), not
        "After 0 hands: ..." as if nothing had been played; anything else as
        :meth:`TableRules.ending` says it."""
        faults = result.get("faults")
        forfeited = result.get("forfeited_hands") or 0
        if not isinstance(faults, dict) or len(faults) != 1 or forfeited < 1:
            return super().ending(result, names, mine)
        ((seat, fault),) = faults.items()
        kind = fault.get("kind") if isinstance(fault, dict) else None
        try:
            index = int(seat)
        except (TypeError, ValueError):
            return super().ending(result, names, mine)
        if not 0 <= index < len(names) or kind not in FAULT_WORDS:
            return super().ending(result, names, mine)
        who = "You" if index == mine else names[index]
        number = int(result.get("hands", 0)) + 1
        left = forfeited - 1
        rest = f" and the {plural(left, self.unit)} left" if left else ""
        scores = result.get("scores") or [0, 0]
        each = ", ".join(f"{names[s]} {signed(scores[s])}" for s in (0, 1))
        return (
            f"{who} {FAULT_WORDS[kind]} in {self.unit} {number} and forfeited it{rest} "
            f"({each} {self.points})."
        )


def seat_hands(done: dict[str, Any], names: list[str], viewer: int | None) -> list[dict[str, Any]]:
    """A finished poker hand's cards by seat, as ``viewer`` saw them: each seat's card at a
    showdown; else the viewer's own card beside the other's face down (a spectator saw
    none: no zones). ``done`` is one of :func:`public_hands`'s."""
    if not done["cards"] and done.get("mine") is None:
        return []
    zones = []
    for s in (0, 1):
        who = "you" if s == viewer else name_of(names, s, None)
        label = f"Hand {done['hand']}: {who}"
        if done["cards"]:
            zones.append(zone(label, [done["cards"][s]]))
        elif s == viewer:
            zones.append(zone(label, [done["mine"]]))
        else:
            zones.append(zone(label, down=1))
    return zones


def the_cards(codes: list[str]) -> str:
    """Cards in words: "the king of spades", "the ten of clubs and the three of diamonds"."""
    said = [f"the {card_view(c)['label']}" for c in codes]
    return ", ".join(said[:-1]) + f" and {said[-1]}" if len(said) > 1 else "".join(said)


def in_order(names: list[str], first: int) -> list[str]:
    """The seats' names by position: the one who acts first, then the other."""
    return [names[first], names[1 - first]]


def hand_words(done: dict[str, Any], names: list[str], betting: str) -> str:
    """A finished poker hand in one line: its betting in words, whose cards a showdown
    turned over, what each seat won. ``done`` is one of :func:`public_hands`'s."""
    won = ", ".join(f"{names[s]} {signed(done['won'][s])}" for s in (0, 1))
    if not done["showdown"]:
        # the viewer's own card, which no one else saw
        held = f" (you held {the_cards([done['mine']])})" if done.get("mine") else ""
        return f"Hand {done['hand']}: {betting}; {won}, uncontested{held}."
    shown = " and ".join(
        f"{names[s]} the {card_view(c)['label']}" for s, c in enumerate(done["cards"])
    )
    board = f" (board: the {card_view(done['board'])['label']})" if done.get("board") else ""
    return f"Hand {done['hand']}: {betting}; at the showdown {shown}{board}: {won}."


def won_by_seat(done: dict[str, Any]) -> list[float]:
    """What each seat won in a finished hand (``won`` is what the first to act won)."""
    won = done["won"]
    return [won, -won] if done["first"] == 0 else [-won, won]
