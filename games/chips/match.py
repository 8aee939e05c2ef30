"""The engine of a two-player chip game: a match of many hands between two seats, who take
turns to act first (Kuhn poker, Leduc hold'em, Blackjack++).

A match is ``hands`` hands (an even number, default 100), each dealt from a fresh shuffle;
seat 0 acts first in odd-numbered hands, seat 1 in even-numbered ones, so each seat holds each
position in half the hands. A seat's score is the chips it won over the match (zero-sum). A
game gives one hand's rules by subclassing :class:`HandsMatch`.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from games.engine.chance import Chance
from games.engine.game import Fault, GameState, IllegalAction, Prompt, one_fault
from games.engine.options import GameOption

DEFAULT_HANDS = 100
MAX_HANDS = 10_000
#: the option of a two-seat chip game's matches (Kuhn, Leduc): how many hands they last
HANDS_OPTION = GameOption(
    "hands",
    "hands in a match (each seat acts first in half of them)",
    DEFAULT_HANDS,
    low=2,
    high=MAX_HANDS,
    even=True,
)


def check_hands(config: dict[str, Any]) -> int:
    hands = config.get("hands")
    if type(hands) is not int or not 2 <= hands <= MAX_HANDS or hands % 2:
        raise ValueError(f"hands must be an even number from 2 to {MAX_HANDS}, not {hands!r}")
    return hands


@dataclass
class HandsMatch(GameState):
    """A match of ``hands`` two-player hands; subclasses give one hand's rules.
    ``position`` 0 acts first in a hand; in hand ``h`` it is seat ``h % 2``."""

    #: what a seat loses for each hand it does not play after a fault (the ante; Blackjack++,
    #: which has none: the most a deal can cost)
    forfeit_per_hand: ClassVar[float] = 1.0
    #: what the game calls one of its hands, in words (Blackjack++: "deal")
    hand_word: ClassVar[str] = "hand"

    hand: int = field(default=0, init=False)
    hands_total: int = field(default=DEFAULT_HANDS, init=False)
    deck: list[str] = field(default_factory=list, init=False)
    chips: list[float] = field(default_factory=lambda: [0.0, 0.0], init=False)
    hands_played: list[dict[str, Any]] = field(default_factory=list, init=False)
    over: bool = field(default=False, init=False)
    forfeited_hands: int = field(default=0, init=False)
    #: whether the last action ended a hand (for replays)
    hand_done_now: bool = field(default=False, init=False)
    _chance: Chance | None = field(default=None, init=False, repr=False)

    @classmethod
    def default_config(cls) -> dict[str, Any]:
        return {"hands": DEFAULT_HANDS}

    # ---- hands --------------------------------------------------------------------------
    def start(self, chance: Chance) -> None:
        self.hands_total = check_hands(self.config)
        self._chance = chance
        self._deal()

    def _deal(self) -> None:
        assert self._chance is not None
        self.deck = self._chance.shuffle(f"hand-{self.hand + 1}", self.full_deck())
        self.begin_hand()

    def seat_of(self, position: int) -> int:
        return (position + self.hand) % 2

    # ---- the betting in words (replays and tables; poker games fill these in) -------------
    #: whether a public card is turned for a second round of betting (Leduc)
    has_board: ClassVar[bool] = False

    def betting(self) -> str:
        """The hand's betting so far, in the game's letters (rounds split by ``/``)."""
        return ""

    def hole_cards(self) -> tuple[str, str]:
        """The cards of position 0 and 1, as card codes."""
        return self.deck[0], self.deck[1]

    def public_card(self) -> str | None:
        return None

    @classmethod
    def card_code(cls, card: str) -> str:
        """A card of a hand's record (``hands_played``) as a card code for drawing."""
        return card

    @classmethod
    def action_words(cls, action: str, before: str) -> str:
        """What ``action`` means after ``before``, this round's betting."""
        return action

    @classmethod
    def action_said(cls, action: str, before: str, round_number: int) -> str:
        """``action`` as the tables say it in a hand's betting: :meth:`action_words` with
        what it puts in where the game says so (Kuhn's "bets 1", Leduc's "raises 2")."""
        return cls.action_words(action, before)

    @classmethod
    def said(cls, history: str, names: list[str]) -> list[list[str]]:
        """Each betting round's moves in words (``pb``: "ann checks", "bob bets 1");
        ``names`` by position, the first to act first in each round."""
        rounds = []
        for number, betting in enumerate(history.split("/") if history else []):
            rounds.append(
                [
                    f"{names[i % 2]} {cls.action_said(token, betting[:i], number)}"
                    for i, token in enumerate(betting)
                ]
            )
        return rounds

    @classmethod
    def betting_words(cls, history: str, names: list[str]) -> str:
        """A hand's betting in words, as its tables and replays say it (``cr/c``: "ann
        checks, bob raises 2; then ann checks"); ``names`` by position."""
        rounds = [", ".join(moves) for moves in cls.said(history, names) if moves]
        return "; then ".join(rounds) or "no bets yet"

    def position_of(self, seat: int) -> int:
        return (seat + self.hand) % 2

    def _finish_hand(self, won: float, showdown: bool) -> None:
        """The hand is over: ``won`` is what position 0 wins."""
        self.hand_done_now = True
        first = self.seat_of(0)
        self.chips[first] += won
        self.chips[1 - first] -= won
        self.hands_played.append(
            self.hand_record() | {"first": first, "won": won, "showdown": showdown}
        )
        self.hand += 1
        if self.hand >= self.hands_total:
            self.over = True
        else:
            self._deal()

    # ---- what a game gives --------------------------------------------------------------
    @abstractmethod
    def full_deck(self) -> tuple[str, ...]: ...

    @abstractmethod
    def begin_hand(self) -> None: ...

    @abstractmethod
    def to_act(self) -> int:
        """The position to act in the current hand."""

    @abstractmethod
    def legal(self) -> list[str]: ...

    @abstractmethod
    def observation(self, seat: int) -> dict[str, Any]: ...

    @abstractmethod
    def act(self, action: str) -> None:
        """Play a legal action of the position to act; call :meth:`_finish_hand` at the end."""

    @abstractmethod
    def hand_record(self) -> dict[str, Any]:
        """The current hand for the result (every card, the betting)."""

    @abstractmethod
    def at_stake(self, position: int) -> float:
        """What ``position`` has put in the pot of the current hand."""

    # ---- the runner's questions ---------------------------------------------------------
    def pending(self) -> list[int]:
        return [] if self.over else [self.seat_of(self.to_act())]

    def prompt(self, seat: int) -> Prompt:
        if self.over:
            raise IllegalAction("the match is over")
        return Prompt("act", self.observation(seat))

    def verify(self, seat: int, action: Any) -> None:
        if self.over:
            raise IllegalAction("the match is over")
        if seat != self.seat_of(self.to_act()):
            raise IllegalAction(f"seat {seat} is not to act now")
        legal = self.legal()
        if not isinstance(action, str) or action not in legal:
            raise IllegalAction(f"expected one of: {self.legal_words()}; got {action!r:.40}")

    def legal_words(self) -> str:
        """The legal actions now as a live table's buttons name them, each with its code (what
        a bot and a forged message send): "check (p), bet 1 (b)". A code alone where the
        button says just it (Blackjack++'s hit, stand) or the game has no table."""
        names: dict[str, str] = {}
        try:
            from games.registry import get_game  # (the games' tables import this module)

            table = get_game(self.game).table
            if table is not None:
                names = {code: label.lower() for code, (label, _) in table().faces(self).items()}
        except (AttributeError, KeyError, NotImplementedError):  # (a game without a table)
            names = {}
        return ", ".join(
            f"{names[code]} ({code})" if names.get(code, code) != code else code
            for code in self.legal()
        )

    def _apply(self, seat: int, action: Any) -> None:
        self.hand_done_now = False
        self.act(action)

    def _forfeit(self, faults: dict[int, Fault]) -> None:
        self.hand_done_now = False
        if self.over:
            return
        if len(faults) == 1:
            (loser,) = faults
            # the current hand is lost like a fold (at least forfeit_per_hand), and each hand
            # left unplayed costs forfeit_per_hand
            lost = max(self.at_stake(self.position_of(loser)), self.forfeit_per_hand)
            left = self.hands_total - self.hand - 1
            lost += left * self.forfeit_per_hand
            self.chips[loser] -= lost
            self.chips[1 - loser] += lost
            self.forfeited_hands = left + 1
        self.over = True

    # ---- outcome ------------------------------------------------------------------------
    def is_over(self) -> bool:
        return self.over

    @classmethod
    def fault_words(cls, result: dict[str, Any], names: Sequence[str]) -> str:
        count, faulted = result.get("forfeited_hands"), one_fault(result)
        if not isinstance(count, int) or count < 1 or faulted is None:
            return ""
        word = cls.hand_word
        rest = (
            "" if count == 1 else f" and the {word} not played" if count == 2
            else f" and the {count - 1} {word}s not played"
        )  # fmt: skip
        return f"the {word} in play{rest} went to {names[1 - faulted]}"

    def last_hand(self, seat: int) -> dict[str, Any] | None:
        """The previous hand as ``seat`` saw it: the other's card only after a showdown."""
        if not self.hands_played:
            return None
        done = self.hands_played[-1]
        mine = (seat + done["first"]) % 2  # the position this seat had
        won = done["won"] if mine == 0 else -done["won"]
        return {
            "position": mine,
            "history": done["history"],
            "won": won,
            "showdown": done["showdown"],
            "opponent_card": done["cards"][1 - mine] if done["showdown"] else None,
        }

    def result(self) -> dict[str, Any]:
        a, b = self.chips
        return {
            "scores": list(self.chips),
            "winner": None if a == b else (0 if a > b else 1),
            "hands": len(self.hands_played),
            "hand_log": list(self.hands_played),
            "forfeited_hands": self.forfeited_hands,
            "faults": {str(s): f.as_dict() for s, f in self.faults.items()},
        }

    # ---- what may be seen of it ---------------------------------------------------------
    # Hole cards are shown only at a showdown: the seed, which deals every hand again, and
    # the recorded shuffles stay secret, and a folded hand's cards are left out for good.
    seed_is_public: ClassVar[bool] = False

    @classmethod
    def seen_hand(cls, done: dict[str, Any], seat: int | None) -> dict[str, Any]:
        """A finished hand (of ``hands_played``) as ``seat`` (None: anyone) may see it: the
        cards of a hand that reached a showdown; of a folded one, a seat's own card alone."""
        if done.get("showdown", True):
            return done
        first = done["first"]
        cards = [
            card if seat is not None and (position + first) % 2 == seat else None
            for position, card in enumerate(done["cards"])
        ]
        return done | {"cards": cards}

    def result_for(self, seat: int | None) -> dict[str, Any]:
        """:meth:`result` as ``seat`` (None: anyone) may see it."""
        return self.result() | {"hand_log": [self.seen_hand(d, seat) for d in self.hands_played]}

    @classmethod
    def public_record(cls, record: dict[str, Any], seat: int | None = None) -> dict[str, Any]:
        """The record without its seed, the outcomes of its shuffles, or the cards of the
        hands that did not reach a showdown (``seat`` keeps its own). It cannot be replayed:
        the site builds replays from the stored record, and hides the same cards in them."""
        result = record.get("result")
        if isinstance(result, dict) and isinstance(result.get("hand_log"), list):
            result = result | {"hand_log": [cls.seen_hand(d, seat) for d in result["hand_log"]]}
        return super().public_record(record, seat) | {"result": result}
