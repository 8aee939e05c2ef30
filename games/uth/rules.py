"""The Ultimate Texas Hold'em engine: a session of rounds, one seat against the dealer.

Each round the seat posts an ante and a blind, sees its two hole cards, and may put in one
play bet: 4x the ante before the flop, 2x on the flop, 1x at the river (or fold there).
Phases with nothing to decide still ask for ``[skip]``, as the reference does. The dealer
needs a pair to qualify (which only matters to the ante); the blind pays by the variant's
pay table on a straight or better. Chip results match TextArena's ``UltimateTexasHoldem-v0``
for the same cards and actions (``tests/uth/test_reference.py`` checks it against the package).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, ClassVar

from games.engine.cards import standard_deck
from games.engine.chance import Chance
from games.engine.game import Fault, GameState, IllegalAction, Prompt
from games.engine.untrusted import shorten
from games.uth import actions, hands
from games.uth.actions import BET_1X, BET_2X, BET_4X, CHECK, FOLD, MULTIPLES, SKIP

DECK: tuple[str, ...] = tuple(str(c) for c in standard_deck())

PRE_FLOP, FLOP, RIVER, OVER = "pre_flop", "flop", "river", "over"

#: Blind pay tables (winnings per chip of blind, on a winning hand). Below a straight a
#: winning blind pushes. ``default`` is the reference's; ``standard`` the casino's.
PAY_TABLES: dict[str, dict[str, Fraction]] = {
    "default": {
        hands.ROYAL_FLUSH: Fraction(500),
        hands.STRAIGHT_FLUSH: Fraction(50),
        hands.FOUR_OF_A_KIND: Fraction(10),
        hands.FULL_HOUSE: Fraction(3),
        hands.FLUSH: Fraction(3),
        hands.STRAIGHT: Fraction(1),
    },
}
PAY_TABLES["standard"] = PAY_TABLES["default"] | {hands.FLUSH: Fraction(3, 2)}

#: refused actions a seat may make before the session ends (the reference's allowance)
ERROR_ALLOWANCE = 1

Chips = int | float


def chip_value(amount: Fraction | int) -> Chips:
    """An exact chip amount as JSON-ready number: an int when whole (3:2 pays halves)."""
    amount = Fraction(amount)
    return int(amount) if amount.denominator == 1 else float(amount)


def blind_pay(variant: str) -> dict[str, Chips]:
    return dict(_BLIND_PAY[variant])


_BLIND_PAY = {
    variant: {name: chip_value(ratio) for name, ratio in table.items()}
    for variant, table in PAY_TABLES.items()
}


@dataclass(frozen=True)
class Settlement:
    """What each bet of a finished round returned, as net chip changes."""

    ante: Fraction
    blind: Fraction
    play: Fraction

    @property
    def net(self) -> Fraction:
        return self.ante + self.blind + self.play


def settle(
    variant: str, ante: int, play_bet: int, player: list[str], dealer: list[str], board: list[str]
) -> tuple[Settlement, dict[str, Any]]:
    """Settle a round that reached the showdown (the seat did not fold)."""
    mine = hands.value(player + board)
    theirs = hands.value(dealer + board)
    dealer_category = hands.category(theirs)
    qualifies = dealer_category != hands.HIGH_CARD
    # smaller values are stronger hands
    outcome = (theirs > mine) - (theirs < mine)  # 1 won, 0 tie, -1 lost
    if outcome < 0:
        ante_net = Fraction(-ante) if qualifies else Fraction(0)
        settlement = Settlement(ante_net, Fraction(-ante), Fraction(-play_bet))
    elif outcome == 0:
        settlement = Settlement(Fraction(0), Fraction(0), Fraction(0))
    else:
        ratio = PAY_TABLES[variant].get(hands.category(mine), Fraction(0))
        ante_net = Fraction(ante) if qualifies else Fraction(0)
        settlement = Settlement(ante_net, ante * ratio, Fraction(play_bet))
    facts = {
        "player_hand": hands.category(mine),
        "dealer_hand": dealer_category,
        "dealer_qualifies": qualifies,
        "winner": {1: "player", 0: "tie", -1: "dealer"}[outcome],
    }
    return settlement, facts


def _copied(entry: dict[str, Any]) -> dict[str, Any]:
    """A hand history entry a bot may change without changing the engine's (its values are
    plain values, lists of cards or dicts of chips)."""
    return {k: v.copy() if isinstance(v, list | dict) else v for k, v in entry.items()}


@dataclass
class UthState(GameState):
    game: ClassVar[str] = "uth"
    min_seats: ClassVar[int] = 1
    max_seats: ClassVar[int] = 1

    chips: Fraction = field(default=Fraction(0), init=False)
    round_no: int = field(default=0, init=False)
    phase: str = field(default=PRE_FLOP, init=False)
    player: list[str] = field(default_factory=list, init=False)
    dealer: list[str] = field(default_factory=list, init=False)
    board: list[str] = field(default_factory=list, init=False)
    play_bet: int = field(default=0, init=False)  # chips
    taken: list[str] = field(default_factory=list, init=False)  # this round's actions
    rounds: list[dict[str, Any]] = field(default_factory=list, init=False)
    outcome: str | None = field(default=None, init=False)  # won | lost | fault
    #: the round a fault ended the session in, dealt but never settled: ``round``, ``bets``
    #: and ``net``, all its bets lost (:meth:`_forfeit`)
    cut_short: dict[str, Any] | None = field(default=None, init=False)
    reason: str = field(default="", init=False)
    error_count: int = field(default=0, init=False)
    last_error: str | None = field(default=None, init=False)
    _just_refused: bool = field(default=False, init=False, repr=False)
    _chance: Chance | None = field(default=None, init=False, repr=False)

    @classmethod
    def default_config(cls) -> dict[str, Any]:
        return {"variant": "default", "chips": 1000, "ante": 25, "max_rounds": 1000}

    # ---- dealing ------------------------------------------------------------------------
    def start(self, chance: Chance) -> None:
        variant = self.config.get("variant")
        if variant not in PAY_TABLES:
            raise ValueError(f"unknown variant {variant!r} (known: {', '.join(PAY_TABLES)})")
        for key in ("chips", "ante", "max_rounds"):
            value = self.config.get(key)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"config {key!r} must be a positive whole number, not {value!r}")
        self._chance = chance
        self.chips = Fraction(self.config["chips"])
        self._new_round()

    def _new_round(self) -> None:
        assert self._chance is not None
        self.round_no += 1
        order = self._chance.shuffle(f"round-{self.round_no}", DECK)
        self.player, self.dealer, self.board = order[0:2], order[2:4], order[4:9]
        self.chips -= 2 * self.ante
        self.play_bet = 0
        self.taken = []
        self.phase = PRE_FLOP

    @property
    def ante(self) -> int:
        return self.config["ante"]

    @property
    def variant(self) -> str:
        return self.config["variant"]

    # ---- the runner's questions ---------------------------------------------------------
    def legal(self) -> list[str]:
        if self.phase == PRE_FLOP:
            return [BET_4X, CHECK]
        if self.phase == FLOP:
            return [SKIP] if self.play_bet else [BET_2X, CHECK]
        if self.phase == RIVER:
            return [SKIP] if self.play_bet else [BET_1X, FOLD]
        return []

    def visible_board(self) -> list[str]:
        return {PRE_FLOP: [], FLOP: self.board[:3]}.get(self.phase, list(self.board))

    def pending(self) -> list[int]:
        return [] if self.phase == OVER else [0]

    def prompt(self, seat: int) -> Prompt:
        if self.phase == OVER:
            raise IllegalAction("the session is over")
        return Prompt("act", self.observation())

    def observation(self) -> dict[str, Any]:
        """What the seat sees now: the ``obs`` of the bot contract."""
        return {
            "phase": self.phase,
            "hole": list(self.player),
            "board": self.visible_board(),
            "chips": chip_value(self.chips),
            "round": self.round_no,
            "legal": [actions.text(a) for a in self.legal()],
            "max_rounds": self.config["max_rounds"],
            "ante": self.ante,
            "bets": {"ante": self.ante, "blind": self.ante, "play": self.play_bet},
            "blind_pay": blind_pay(self.variant),
            "error": self.last_error,
            # the previous round as it was settled (the hand history's entry) and as the seat
            # may see it (:meth:`seen_round`: a person at the table is shown the same), so
            # that a bot can tell what TextArena's text tells: the dealer's cards (after a
            # fold too, as TextArena shows them), the hands, each bet
            "last_round": _copied(self.seen_round(self.rounds[-1], 0)) if self.rounds else None,
        }

    def verify(self, seat: int, action: Any) -> None:
        if self.phase == OVER:
            raise IllegalAction("the session is over")
        if seat != 0:
            raise IllegalAction(f"there is no seat {seat}")
        actions.parse(action, self.legal())

    def _apply(self, seat: int, action: Any) -> None:
        move = actions.parse(action, self.legal())
        # The reference's allowance: an accepted action after another accepted one restores
        # it; the first accepted action after a refusal does not yet.
        if not self._just_refused:
            self.error_count = 0
        self._just_refused = False
        self.last_error = None
        self.taken.append(move)
        if move in MULTIPLES:
            self.play_bet = MULTIPLES[move] * self.ante
            self.chips -= self.play_bet
        if self.phase == PRE_FLOP:
            self.phase = FLOP
        elif self.phase == FLOP:
            self.phase = RIVER
        else:
            self._showdown(folded=move == FOLD)

    def _showdown(self, folded: bool) -> None:
        if folded:
            settlement = Settlement(Fraction(-self.ante), Fraction(-self.ante), Fraction(0))
            facts: dict[str, Any] = {"folded": True}
        else:
            settlement, facts = settle(
                self.variant, self.ante, self.play_bet, self.player, self.dealer, self.board
            )
            facts["folded"] = False
        # The bets were taken from the chips when placed; give back stakes and winnings.
        self.chips += 2 * self.ante + self.play_bet + settlement.net
        self.rounds.append(
            {
                "round": self.round_no,
                "player": list(self.player),
                "dealer": list(self.dealer),
                "board": list(self.board),
                "actions": [actions.text(a) for a in self.taken],
                "bets": {"ante": self.ante, "blind": self.ante, "play": self.play_bet},
                **facts,
                "results": {
                    "ante": chip_value(settlement.ante),
                    "blind": chip_value(settlement.blind),
                    "play": chip_value(settlement.play),
                },
                "net": chip_value(settlement.net),
                "chips": chip_value(self.chips),
            }
        )
        if self.chips <= 0:
            self._end("lost", f"out of chips after round {self.round_no}")
        elif self.round_no >= self.config["max_rounds"]:
            self._end(
                "won", f"completed {self.round_no} rounds with {chip_value(self.chips)} chips"
            )
        else:
            self._new_round()

    def _end(self, outcome: str, reason: str) -> None:
        self.phase = OVER
        self.outcome = outcome
        self.reason = reason

    # ---- refusals and faults ------------------------------------------------------------
    def reject(self, seat: int, action: Any, reason: str) -> Fault | None:
        """A refused action may be answered again, once: a second refusal before two
        accepted actions in a row ends the session, as in the reference."""
        if self.error_count < ERROR_ALLOWANCE:
            self.error_count += 1
            self._just_refused = True
            self.last_error = reason
            kept = _kept_answer(action)
            self.log.append({"type": "rejected", "seat": seat, "action": kept, "reason": reason})
            return None
        return Fault("invalid", f"a second refused action: {reason}")

    def _forfeit(self, faults: dict[int, Fault]) -> None:
        if self.phase == OVER:
            return
        fault = faults[0]
        # A round is dealt from the start of a session to its end, its ante and blind (and
        # any play bet) already taken: a fault loses them all, as the worst showdown would,
        # so that faulting never does better than playing the round out. A session
        # forfeited at its start loses its first round's ante and blind.
        self.cut_short = {
            "round": self.round_no,
            "bets": {"ante": self.ante, "blind": self.ante, "play": self.play_bet},
            "net": -(2 * self.ante + self.play_bet),
        }
        self._end("fault", f"{fault.kind}: {fault.reason}")

    # ---- outcome ------------------------------------------------------------------------
    def is_over(self) -> bool:
        return self.phase == OVER

    # ---- what may be seen of it ---------------------------------------------------------
    # The dealer turns its cards over for everyone only at a showdown: the seed, which deals
    # every round again, and the recorded shuffles stay secret, and so do the cards of a
    # folded round, but for the seat that folded it.
    seed_is_public: ClassVar[bool] = False

    @staticmethod
    def seen_round(done: dict[str, Any], seat: int | None) -> dict[str, Any]:
        """A settled round (of ``rounds``) as ``seat`` (None: anyone) may see it: a folded
        round without its cards but for the seat, which is shown the dealer's cards after
        the round as TextArena shows them (a bot's ``last_round`` and a person's table show
        the same)."""
        if not done.get("folded") or seat == 0:
            return done
        return done | {"dealer": None, "player": None}

    def result(self) -> dict[str, Any]:
        net = chip_value(self.chips - self.config["chips"])
        # each round's net, the one a fault cut short too: they add up to the session's net
        nets = [r["net"] for r in self.rounds]
        if self.cut_short is not None:
            nets.append(self.cut_short["net"])
        return {
            "scores": [net],
            "chips": chip_value(self.chips),
            "outcome": self.outcome,
            "survived": self.outcome == "won",
            "reason": self.reason,
            "rounds_played": len(nets),
            "nets": nets,
            "faults": {str(s): f.as_dict() for s, f in self.faults.items()},
        }


#: the characters of a refused answer a record keeps (a replay shows 80 of them)
KEPT_ANSWER = 200


def _kept_answer(action: Any) -> Any:
    """A refused answer as the record keeps it: whole where short, else its text cut to
    :data:`KEPT_ANSWER` characters (a bot answering 60 KB every third call padded each
    record with them, up to its 1 MiB output cap)."""
    if isinstance(action, str):
        return shorten(action, KEPT_ANSWER)
    text = json.dumps(action, ensure_ascii=False)
    return action if len(text) <= KEPT_ANSWER else shorten(text, KEPT_ANSWER)
