"""Blackjack++ written again, from the spec alone, as an OpenSpiel Python game: an oracle.

The solver's Blackjack++ (games/blackjack_pp/tree.py) is the code under test, so nothing of
its logic is used here: this module reads ``shared/specs/blackjack-pp.md`` and plays it with
OpenSpiel's own game interface (``pyspiel.Game`` / ``pyspiel.State``), so that OpenSpiel's
algorithms (best response, exploitability, expected game score, CFR+) can check our solver's
results on a game our solver did not build. The one thing shared is the solver's information
set key format (``PD:H``, docs/solver.md), which :func:`solver_key` writes so that a solved
strategy can be copied into an OpenSpiel policy.

Written differently on purpose:

- The deck is 13 ranks, each drawn with probability 1/13 (``deck="ranks"``): a jack, a queen
  and a king are different chance outcomes that a player sees as such. (The solver deals 10
  card values with a ten-valued card at 4/13.) ``deck="values"`` deals values instead, for a
  tree as small as the solver's.
- A hand's total tries every way of counting its aces (1 or 11) and keeps the best one that
  does not bust.
- The dealer's final total is worked out in exact fractions by following its draws card by
  card (``dealer="expected"``: a terminal pays the exact expectation), or the dealer really
  draws, card by card, as chance nodes of the game (``dealer="drawn"``: a terminal pays the
  realized points), which OpenSpiel's own tree walk then averages.
- Places are handed out by sorting the three hands; tied hands split the points of the
  places they take.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from fractions import Fraction
from functools import cache

import numpy as np
import pyspiel

GAME_NAME = "python_blackjack_pp_oracle"
RANKS = "A23456789TJQK"
STAND, HIT = 0, 1
ACTION_LETTERS = {STAND: "s", HIT: "h"}
PLACE_POINTS = (Fraction(2), Fraction(1), Fraction(0))


def rank_value(rank: str) -> int:
    """What a card counts before the ace rule: an ace 1, a face card 10."""
    return 1 if rank == "A" else 10 if rank in "TJQK" else int(rank)


def hand_total(values: list[int] | tuple[int, ...]) -> int:
    """The best total of a hand: every ace counted as 1 or 11, the highest count that does
    not go over 21, or the lowest count if all of them do."""
    aces = sum(1 for v in values if v == 1)
    others = sum(v for v in values if v != 1)
    counts = {others + sum(choice) for choice in itertools.product((1, 11), repeat=aces)}
    fitting = [c for c in counts if c <= 21]
    return max(fitting) if fitting else min(counts)


def placings(totals: tuple[int, int, int]) -> tuple[Fraction, Fraction, Fraction]:
    """Points of player 0, player 1 and the dealer for three final totals.

    Every hand that did not bust ranks above every bust hand; otherwise the higher total
    ranks higher (bust hands too, the spec ranks them by total). The places earn 2, 1 and
    0; hands that tie share out the points of the places they fill between them.
    """

    def strength(t: int) -> tuple[int, int]:
        return (0 if t > 21 else 1, t)

    order = sorted(range(3), key=lambda seat: strength(totals[seat]), reverse=True)
    points = [Fraction(0)] * 3
    place = 0
    for _, group in itertools.groupby(order, key=lambda seat: strength(totals[seat])):
        seats = list(group)
        share = sum(PLACE_POINTS[place : place + len(seats)], Fraction(0)) / len(seats)
        for seat in seats:
            points[seat] = share
        place += len(seats)
    return points[0], points[1], points[2]


def deck(mode: str) -> list[tuple[str, Fraction]]:
    """The chance outcomes of one draw from the infinite deck: (card name, probability)."""
    if mode == "ranks":
        return [(rank, Fraction(1, 13)) for rank in RANKS]
    if mode == "values":
        return [(rank, Fraction(4 if rank == "T" else 1, 13)) for rank in RANKS[:10]]
    raise ValueError(f"deck must be 'ranks' or 'values', not {mode!r}")


@cache
def dealer_outcomes(up: str) -> dict[int, Fraction]:
    """The dealer's final total and its exact probability: it turns its down card and draws
    until its total is 17 or more (so it stands on a soft 17). Follows every sequence of
    cards one by one; ranks are drawn with probability 1/13 each."""
    out: dict[int, Fraction] = {}
    pending: list[tuple[tuple[int, ...], Fraction]] = [((rank_value(up),), Fraction(1))]
    while pending:
        cards, p = pending.pop()
        if len(cards) >= 2 and hand_total(cards) >= 17:
            out[hand_total(cards)] = out.get(hand_total(cards), Fraction(0)) + p
            continue
        for rank in RANKS:
            pending.append(((*cards, rank_value(rank)), p / 13))
    return out


@cache
def expected_points(t0: int, t1: int, dealer_up: str) -> tuple[Fraction, Fraction, Fraction]:
    """Each seat's expected points when the players end on totals ``t0`` and ``t1``."""
    sums = [Fraction(0)] * 3
    for d, p in dealer_outcomes(dealer_up).items():
        for seat, pts in enumerate(placings((t0, t1, d))):
            sums[seat] += p * pts
    return sums[0], sums[1], sums[2]


def value_name(rank: str) -> str:
    """A rank as the solver's keys write it: ``T`` for every ten-valued card."""
    return "T" if rank in "TJQK" else rank


@dataclass(frozen=True)
class Rules:
    """A game's settings, shared by all its states (OpenSpiel deep-copies a state's
    attributes on every clone: this one is copied as itself)."""

    up: tuple[str, str, str]
    max_hits: int
    dealer: str
    outcomes: tuple[tuple[str, Fraction], ...]
    probabilities: tuple[tuple[int, float], ...]

    def __deepcopy__(self, memo: dict) -> Rules:
        return self


class BlackjackState(pyspiel.State):
    """A deal: both down cards, then the players' turns, then (``dealer="drawn"``) the
    dealer's cards. Every attribute but the rules is a string, a number or a flag, so that
    cloning a state (which OpenSpiel does for every child) stays cheap."""

    def __init__(self, game: BlackjackGame) -> None:
        super().__init__(game)
        self.rules: Rules = game.rules
        self.hand0 = self.rules.up[0]  # rank letters, the up card first, then the down card
        self.hand1 = self.rules.up[1]
        self.hits0 = self.hits1 = 0
        self.done0 = self.done1 = False
        self.turn = 0
        self.drawing = -1  # the player whose hit card is being drawn
        self.dealer = self.rules.up[2]
        self.tokens = ""  # space-separated, e.g. "0hK 1s" (ranks, not values)

    def hand(self, player: int) -> str:
        return self.hand1 if player else self.hand0

    def done(self, player: int) -> bool:
        return self.done1 if player else self.done0

    # --- OpenSpiel's state interface -----------------------------------------------------
    def current_player(self) -> int:
        if len(self.hand1) < 2 or self.drawing >= 0:
            return pyspiel.PlayerId.CHANCE
        if not (self.done0 and self.done1):
            return self.turn if not self.done(self.turn) else 1 - self.turn
        if self.rules.dealer == "drawn" and not self.dealer_finished():
            return pyspiel.PlayerId.CHANCE
        return pyspiel.PlayerId.TERMINAL

    def is_terminal(self) -> bool:
        return self.current_player() == pyspiel.PlayerId.TERMINAL

    def _legal_actions(self, player: int) -> list[int]:
        return [STAND, HIT]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return list(self.rules.probabilities)

    def _apply_action(self, action: int) -> None:
        if self.is_chance_node():
            card = self.rules.outcomes[action][0]
            if len(self.hand0) < 2:
                self.hand0 += card
            elif len(self.hand1) < 2:
                self.hand1 += card
            elif self.drawing >= 0:
                self.draw_hit(card)
            else:
                self.dealer += card
            return
        player = self.current_player()
        if action == HIT:
            self.drawing = player
        else:
            self.finish(player)
            self.add_token(f"{player}s")
            self.turn = 1 - player

    def draw_hit(self, card: str) -> None:
        player, self.drawing = self.drawing, -1
        if player:
            self.hand1 += card
            self.hits1 += 1
        else:
            self.hand0 += card
            self.hits0 += 1
        self.add_token(f"{player}h{card}")
        hits = self.hits1 if player else self.hits0
        if self.total(player) > 21 or hits == self.rules.max_hits:
            self.finish(player)
        self.turn = 1 - player

    def finish(self, player: int) -> None:
        if player:
            self.done1 = True
        else:
            self.done0 = True

    def add_token(self, token: str) -> None:
        self.tokens = f"{self.tokens} {token}" if self.tokens else token

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return self.rules.outcomes[action][0]
        return "hit" if action == HIT else "stand"

    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0, 0.0]
        pts = self.points()
        return [float(pts[0] - pts[1]), float(pts[1] - pts[0])]

    def __str__(self) -> str:
        return f"{self.hand0[1:2]}{self.hand1[1:2]}|{self.tokens}|{self.dealer}"

    # --- the rules --------------------------------------------------------------------------
    def total(self, player: int) -> int:
        return hand_total([rank_value(r) for r in self.hand(player)])

    def dealer_finished(self) -> bool:
        cards = [rank_value(r) for r in self.dealer]
        return len(cards) >= 2 and hand_total(cards) >= 17

    def points(self) -> tuple[Fraction, Fraction, Fraction]:
        """Each seat's points: realized when the dealer drew, else expected over its draws."""
        t0, t1 = self.total(0), self.total(1)
        if self.rules.dealer == "drawn":
            return placings((t0, t1, hand_total([rank_value(r) for r in self.dealer])))
        return expected_points(t0, t1, self.rules.up[2])

    def information(self, player: int) -> str:
        """What ``player`` knows: its seat, its down card and every action and hit card."""
        down = self.hand(player)[1:2] or "?"
        return f"p{player} down {down} | {self.tokens}"


class BlackjackObserver:
    """OpenSpiel's observer for the information state (perfect recall): the string is
    :meth:`BlackjackState.information`; the tensor is only the player."""

    def __init__(self, iig_obs_type, params) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported: {params}")
        self.tensor = np.zeros(2, np.float32)
        self.dict = {"player": self.tensor}

    def set_from(self, state: BlackjackState, player: int) -> None:
        self.tensor.fill(0)
        self.tensor[player] = 1

    def string_from(self, state: BlackjackState, player: int) -> str:
        return state.information(player)


GAME_TYPE = pyspiel.GameType(
    short_name=GAME_NAME,
    long_name="Blackjack++ (test oracle, from the spec)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=2,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=False,
    provides_observation_string=False,
    provides_observation_tensor=False,
    parameter_specification={"up": "6,6,2", "max_hits": 1, "deck": "ranks", "dealer": "expected"},
)


class BlackjackGame(pyspiel.Game):
    """Parameters: ``up`` (ranks of player 0's, player 1's and the dealer's up cards, e.g.
    ``"6,6,2"`` or ``"K,T,A"``), ``max_hits``, ``deck`` (``ranks`` or ``values``) and
    ``dealer`` (``expected`` or ``drawn``)."""

    def __init__(self, params: dict | None = None) -> None:
        params = {**GAME_TYPE.parameter_specification, **(params or {})}
        up = [("T" if c == "10" else c) for c in str(params["up"]).upper().split(",")]
        if len(up) != 3 or any(c not in RANKS for c in up):
            raise ValueError(f"up cards must be three ranks like 6,6,2 (got {params['up']!r})")
        if params["dealer"] not in ("expected", "drawn"):
            raise ValueError(f"dealer must be 'expected' or 'drawn', not {params['dealer']!r}")
        outcomes = tuple(deck(params["deck"]))
        self.rules = Rules(
            up=(up[0], up[1], up[2]),
            max_hits=int(params["max_hits"]),
            dealer=params["dealer"],
            outcomes=outcomes,
            probabilities=tuple((i, float(p)) for i, (_, p) in enumerate(outcomes)),
        )
        hits = self.rules.max_hits
        info = pyspiel.GameInfo(
            num_distinct_actions=2,
            max_chance_outcomes=len(RANKS),
            num_players=2,
            min_utility=-2.0,
            max_utility=2.0,
            utility_sum=0.0,
            # two deals, then per player a stand or `hits` hits each with its card, then the
            # dealer's down card and its draws (at most 9 more cards reach 17)
            max_game_length=2 + 2 * (2 * hits + 1) + 10,
        )
        super().__init__(GAME_TYPE, info, params)

    def new_initial_state(self) -> BlackjackState:
        return BlackjackState(self)

    def make_py_observer(self, iig_obs_type=None, params=None) -> BlackjackObserver:
        return BlackjackObserver(iig_obs_type, params)


pyspiel.register_game(GAME_TYPE, BlackjackGame)


def solver_key(information: str) -> str:
    """The solver's information set key (docs/solver.md, "Blackjack++ keys") for one of the
    oracle's information state strings: ``"p1 down K | 0h5 1s"`` -> ``"1T:0h5,1s"`` (the
    player, its down card and the history, ten-valued cards written ``T``)."""
    head, _, history = information.partition(" | ")
    player, _, down = head.removeprefix("p").partition(" down ")
    tokens = [
        token[:-1] + value_name(token[-1]) if token[1] == "h" else token
        for token in history.split()
    ]
    return f"{player}{value_name(down)}:{','.join(tokens)}"


def efg_game(game: pyspiel.Game) -> tuple[pyspiel.Game, dict[str, str]]:
    """The whole game tree written in Gambit's ``.efg`` format and loaded back with
    ``pyspiel.load_efg_game``: the same game, held in OpenSpiel's C++, so that its C++
    algorithms run at C++ speed (on the Python game they call back into Python for every
    state: CFR+ takes seconds per iteration). Also returns, for each of the oracle's
    information state strings, the EFG game's (``"<player>-<player>-<number>-<name>"``).

    Each information set is named by the oracle's information state string. (OpenSpiel's
    own exporter, ``open_spiel.python.algorithms.gambit``, leaves the names out and builds
    its text by appending to one string, which takes 15 s on a 15,000-state tree; this
    writer is linear.)
    """
    lines = [f'EFG 2 R "{game}" {{ "Player 0" "Player 1" }}']
    numbers: list[dict[str, int]] = [{}, {}]
    counts = {"chance": 0, "terminal": 0}

    def node(state: pyspiel.State) -> None:
        if state.is_terminal():
            counts["terminal"] += 1
            payoffs = " ".join(repr(x) for x in state.returns())
            lines.append(f't "" {counts["terminal"]} "" {{ {payoffs} }}')
            return
        if state.is_chance_node():
            counts["chance"] += 1
            outcomes = " ".join(
                f'"{state.action_to_string(pyspiel.PlayerId.CHANCE, a)}" {p!r}'
                for a, p in state.chance_outcomes()
            )
            lines.append(f'c "" {counts["chance"]} "" {{ {outcomes} }} 0')
        else:
            player = state.current_player()
            info = state.information_state_string()
            number = numbers[player].setdefault(info, len(numbers[player]) + 1)
            actions = " ".join(f'"{state.action_to_string(a)}"' for a in state.legal_actions())
            lines.append(f'p "" {player + 1} {number} "{info}" {{ {actions} }} 0')
        for action in state.legal_actions():
            node(state.child(action))

    node(game.new_initial_state())
    loaded = pyspiel.load_efg_game("\n".join(lines) + "\n")
    names = {
        info: f"{player}-{player}-{number}-{info}"
        for player in (0, 1)
        for info, number in numbers[player].items()
    }
    return loaded, names
