"""The RPS Poker engine: draft phase, main phase, scoring, faults."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from games.engine.chance import Chance
from games.engine.game import Fault, GameState, IllegalAction, Prompt, one_fault
from games.rps_poker.cards import DRAFT_STEPS, FULL_DECK, GAMES, HAND_SIZE, beats

A, B = 0, 1


def _index(answer: Any, size: int) -> int:
    # bool is an int in Python; a bot answering True has not given an index.
    if type(answer) is not int and (not isinstance(answer, int) or isinstance(answer, bool)):
        raise IllegalAction(f"expected an index 0-{size - 1}, got {answer!r}")
    if not 0 <= answer < size:
        raise IllegalAction(f"index {answer} is out of range 0-{size - 1}")
    return answer


@dataclass
class RpsPokerState(GameState):
    game: ClassVar[str] = "rps-poker"
    independent_moves: ClassVar[bool] = True

    phase: str = field(default="draft", init=False)
    full_deck: list[str] = field(default_factory=list, init=False)
    step: int = field(default=0, init=False)  # draft step 0-4, then game number 0-9
    offers: list[list[str]] = field(default_factory=lambda: [[], []], init=False)
    decks: list[list[str]] = field(default_factory=lambda: [[], []], init=False)
    hands: list[list[str]] = field(default_factory=lambda: [[], []], init=False)
    remaining: list[str] = field(default_factory=list, init=False)
    base: str | None = field(default=None, init=False)
    chosen: dict[int, int] = field(default_factory=dict, init=False)
    scores: list[int] = field(default_factory=lambda: [0, 0], init=False)
    games: list[dict[str, Any]] = field(default_factory=list, init=False)
    #: each draft step done: the card each seat kept and the card it passed on, by seat
    drafts: list[dict[str, list[str]]] = field(default_factory=list, init=False)
    forfeited: int = field(default=0, init=False)
    _chance: Chance | None = field(default=None, init=False, repr=False)

    # ---- dealing ------------------------------------------------------------------------
    def start(self, chance: Chance) -> None:
        self._chance = chance
        self.full_deck = chance.shuffle("full-deck", FULL_DECK)
        self._offer()

    def _offer(self) -> None:
        top = 4 * self.step
        self.offers = [self.full_deck[top : top + 2], self.full_deck[top + 2 : top + 4]]

    def _start_main(self) -> None:
        assert self._chance is not None
        self.phase = "main"
        self.step = 0
        self.offers = [[], []]
        self.remaining = self._chance.shuffle("remaining", self.full_deck[4 * DRAFT_STEPS :])
        for seat in (A, B):
            self.decks[seat] = self._chance.shuffle(f"deck-{seat}", self.decks[seat])
            self.hands[seat] = [self.decks[seat].pop(0) for _ in range(HAND_SIZE)]
        self.full_deck = []
        self.base = self.remaining.pop(0)

    # ---- the runner's questions ---------------------------------------------------------
    def pending(self) -> list[int]:
        if self.phase == "over":
            return []
        chosen = self.chosen  # (asked several times a turn: no comprehension)
        if not chosen:
            return [A, B]
        if len(chosen) == 1:
            return [B] if A in chosen else [A]
        return []

    def prompt(self, seat: int) -> Prompt:
        if self.phase == "draft":
            return Prompt("draft_pick", {"cards": list(self.offers[seat]), "step": self.step})
        if self.phase == "main":
            return Prompt(
                "main_play", {"hand": list(self.hands[seat]), "base": self.base, "game": self.step}
            )
        raise IllegalAction("the match is over")

    def verify(self, seat: int, action: Any) -> None:
        if self.phase == "draft":
            _index(action, len(self.offers[seat]))
        elif self.phase == "main":
            _index(action, len(self.hands[seat]))
        else:
            raise IllegalAction("the match is over")
        if seat in self.chosen:
            raise IllegalAction(f"seat {seat} has already chosen")

    def _apply(self, seat: int, action: Any) -> None:
        self.chosen[seat] = action
        if len(self.chosen) == 2:
            if self.phase == "draft":
                self._resolve_draft()
            else:
                self._resolve_game()
            self.chosen = {}

    def _resolve_draft(self) -> None:
        step: dict[str, list[str]] = {"kept": [], "passed": []}
        for seat in (A, B):
            offer = self.offers[seat]
            picked, passed = offer[self.chosen[seat]], offer[1 - self.chosen[seat]]
            self.decks[seat].append(picked)
            self.decks[1 - seat].append(passed)
            self.notify(1 - seat, "draft_receive", {"card": passed})
            step["kept"].append(picked)
            step["passed"].append(passed)
        self.drafts.append(step)
        self.step += 1
        if self.step < DRAFT_STEPS:
            self._offer()
        else:
            self._start_main()

    def _resolve_game(self) -> None:
        assert self.base is not None
        played = [self.hands[seat].pop(self.chosen[seat]) for seat in (A, B)]
        winner = A if beats(played[A], played[B], self.base) else B
        self.scores[winner] += 1
        self.games.append({"base": self.base, "played": played, "winner": winner})
        for seat in (A, B):
            self.notify(seat, "main_postprocess", {"card": played[1 - seat]})
            if self.decks[seat]:
                self.hands[seat].append(self.decks[seat].pop(0))
        self.step += 1
        if self.step < GAMES:
            self.base = self.remaining.pop(0)
        else:
            self.base = None
            self.phase = "over"

    def _forfeit(self, faults: dict[int, Fault]) -> None:
        if self.phase == "over":
            return  # every game was played: the points stand
        left = GAMES - len(self.games)
        if len(faults) == 1:
            (loser,) = faults
            self.scores[1 - loser] += left
            self.forfeited = left
        # Both faulted at the same moment: nobody is credited with the unplayed games.
        self.phase = "over"
        self.chosen = {}

    # ---- outcome ------------------------------------------------------------------------
    def is_over(self) -> bool:
        return self.phase == "over"

    def result(self) -> dict[str, Any]:
        a, b = self.scores
        return {
            "scores": list(self.scores),
            "winner": None if a == b else (A if a > b else B),
            "games": list(self.games),
            "forfeited_games": self.forfeited,
            "faults": {str(s): f.as_dict() for s, f in self.faults.items()},
        }

    @classmethod
    def fault_words(cls, result: dict[str, Any], names: Sequence[str]) -> str:
        count, faulted = result.get("forfeited_games"), one_fault(result)
        if not isinstance(count, int) or count < 1 or faulted is None:
            return ""
        games = "unplayed game" if count == 1 else f"{count} unplayed games"
        return f"the {games} went to {names[1 - faulted]}"

    def locations(self) -> dict[str, list[str]]:
        """Where every card is now (for checks that no card is lost or duplicated)."""
        undealt = self.full_deck[4 * self.step + 4 :] if self.full_deck else []
        return {
            "undealt": undealt,
            "offers": [c for offer in self.offers for c in offer],
            "decks": self.decks[A] + self.decks[B],
            "hands": self.hands[A] + self.hands[B],
            "remaining": self.remaining + ([self.base] if self.base else []),
            "played": [c for g in self.games for c in g["played"]],
            "bases_used": [g["base"] for g in self.games],
        }
