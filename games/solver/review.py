"""The solver reviews a match: for each decision of one seat, the equilibrium strategy at its
information set, the value of each action, and what the action taken lost.

The value of an action ``a`` at an information set ``I`` of player ``p`` is its counterfactual
value under a strategy profile ``sigma`` (the solved, average strategy): the expected payoff
to ``p`` of taking ``a`` at ``I`` and then both players following ``sigma``, averaged over the
histories of ``I`` weighted by how likely chance and the *other* player make each of them
(``p``'s own reach is the same for every history of ``I``, by perfect recall, so it cancels).
These are the numbers CFR's regrets are made of; here they are divided by the information
set's counterfactual reach so that they read as an expected payoff, in the game's units.

An information set the other player's equilibrium never leads to (reach 0: e.g. Kuhn's
player 1 holding the king after a bet, if player 0 never bets the queen) still has values
here, its histories weighted by chance alone; :attr:`InfosetValues.by_chance` says so.

Everything is computed once for the whole tree (:func:`action_values`, two passes over the
depths: :meth:`FlatTree.forward` and :meth:`FlatTree.backward`), so a review of a thousand
decisions is a thousand look-ups. A game says which decisions a match record holds by a
function of its own (``SolverSpec.review_moves``, a list of :class:`Move`); this module names no
game.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from games.engine.played_for import actions_played_for
from games.engine.table import FAULT_WORDS
from games.engine.written import listed
from games.solver.tree import FlatTree

#: values closer than this are equal (the best action is any of them; nothing is lost)
TIE = 1e-9
#: a decision is a mistake when it loses more than this against the best action, in the
#: units of the game's score (chips, points): smaller losses are too small to matter in
#: play, and a solve of finitely many iterations values the actions it mixes between a
#: little apart (a few thousandths in Leduc hold'em) where the exact equilibrium has them
#: equal. A solve whose exploitability is larger raises it to that (:attr:`Row.threshold`).
MISTAKE = 0.01
#: an action the solved strategy plays at least this often at an information set is part of
#: its mix, as the review's words say it ("calls 55% of the time"; less often: "under 1%").
#: How often it is played never decides a verdict: the values do (:attr:`Row.verdict`)
SUPPORT = 0.01
#: a probability below this is what a solve of finitely many iterations leaves of an action
#: the equilibrium never plays (CFR+ leaves 1e-7 on folding the king to a bet in Kuhn poker):
#: the review's words call it never played, and its table 0%
NEGLIGIBLE = 1e-3
#: an information set the other player's equilibrium leads to less often than this, as a
#: share of the deals that could lead there, is one the solve has not settled
#: (:attr:`InfosetValues.rare`); so is one the player's own equilibrium leads to less often
#: than this (:attr:`InfosetValues.own_unreached`)
RARE = 1e-3


@dataclass(frozen=True)
class Move:
    """One decision of a match record, as the game reads it."""

    #: the hand (deal, round) it was in, counted from 0 in the record, and its words
    hand: int
    seat: int
    #: the deciding player's information set key in the solver's game; None when the record
    #: keeps that seat's cards secret from whoever asks (a folded poker hand, for the public)
    key: str | None
    #: the action taken, as the solver's game labels it
    taken: str
    #: what happened so far, in words, for the page (the game's own wording)
    situation: str = ""
    #: the replay's chapter of the hand (``games.replays.chapters``: "Hand 3"), to link to it
    chapter: str = ""
    #: the solver options (``SolverSpec.options``: name, value) this decision's game needs;
    #: a decision is reviewed with a solve of these options only
    options: tuple[tuple[str, Any], ...] = ()
    #: the table played it for the seat, whose turn timer ran out (the record's
    #: ``played_for``, games/engine/played_for.py): no decision of the player's, not reviewed
    played_for: bool = False
    #: the actions before it in the hand (counted from 0, as its betting lists them) that
    #: the table played for a seat whose turn timer ran out: its words say "the table
    #: checked for you" of them
    defaulted: tuple[int, ...] = ()
    #: a decision of the hand a fault cut short (no finished hand of the record holds its
    #: cards: not reviewed): how that hand ended, from the deciding seat's side ("the
    #: opponent raised an error"); "" for a decision of a finished hand
    cut_short: str = ""


@dataclass(frozen=True)
class Verb:
    """An action in words at one information set: ``Verb("checked", "checks", "checking")``
    (Kuhn's ``p`` is a check where no bet is faced, a fold where one is)."""

    past: str
    present: str
    gerund: str


@dataclass(frozen=True)
class Words:
    """A decision in words, from the deciding seat's side, addressed to it as "you" (the
    review puts it in the third person for anyone else): what it held, what it had seen,
    and each action of its information set (``SolverSpec.review_words``)."""

    #: what the seat held: "the jack", "13 (a 7 down, a 6 up)"
    held: str
    #: what it had seen: "first to act", "after you checked and the opponent bet"
    seen: str
    #: each action of the information set
    verbs: dict[str, Verb]
    #: the unit of the values: "chips", "points"
    unit: str = "chips"
    #: what the game calls the round a decision is in: "hand", "deal"
    round: str = "hand"


@dataclass(frozen=True)
class InfosetValues:
    key: str
    player: int
    actions: tuple[str, ...]
    #: the equilibrium's probability of each action
    strategy: dict[str, float]
    #: the counterfactual value of each action for the player who decides
    values: dict[str, float]
    #: the equilibrium's value of the information set: the strategy's mean of ``values``
    value: float
    #: how likely chance and the other player's equilibrium lead here (summed over the
    #: histories of the information set)
    reach: float
    #: the other player's equilibrium never leads here: histories weighted by chance alone
    by_chance: bool
    #: how likely chance alone leads here (the histories' chance reach, summed)
    chance_reach: float = 0.0
    #: how likely the player's own equilibrium leads here (its actions on the way: the same
    #: for every history of the information set, by perfect recall)
    own_reach: float = 1.0

    @property
    def rare(self) -> bool:
        """Whether the other player's equilibrium (almost) never leads here: less than
        :data:`RARE` of the deals that could. A solve has hardly trained such an
        information set, so its mix there means little (an unreached one keeps the uniform
        strategy it started from); the values still say which action is better."""
        return self.by_chance or self.reach < RARE * self.chance_reach

    @property
    def own_unreached(self) -> bool:
        """Whether the player's own equilibrium (almost) never leads here (less often than
        :data:`RARE`: it would have acted otherwise on the way). CFR's average strategy then
        keeps whatever mix it had when the player stopped coming here, which is no settled
        play of anyone's; the values still say which action is better."""
        return self.own_reach < RARE

    @property
    def unsettled(self) -> bool:
        """Whether the solve's mix here means little (:attr:`rare` or
        :attr:`own_unreached`): only the values count."""
        return self.rare or self.own_unreached

    @property
    def best(self) -> float:
        return max(self.values.values())

    @property
    def best_actions(self) -> tuple[str, ...]:
        top = self.best
        return tuple(a for a in self.actions if self.values[a] >= top - TIE)

    def lost(self, action: str) -> float:
        """What ``action`` loses against the best action here (0 for a best one)."""
        gap = self.best - self.values[action]
        return gap if gap > TIE else 0.0


@dataclass
class ActionValues:
    """The values of every action of every information set of a tree under one profile
    (plain arrays and lists: it can be kept, say in a cache, without the tree)."""

    keys: list[str]
    actions: list[tuple[str, ...]]
    players: np.ndarray
    #: (n_infosets, max_actions): counterfactual values, and the strategy
    q: np.ndarray
    sigma: np.ndarray
    reach: np.ndarray
    by_chance: np.ndarray
    #: each information set's reach by chance alone
    reach_chance: np.ndarray
    #: each information set's reach by its own player's strategy alone
    own_reach: np.ndarray
    #: how far the profile may be from an equilibrium (a solve's exploitability): a loss no
    #: larger is within the solve's precision, not a mistake (:attr:`Review.mistakes`)
    precision: float = 0.0
    index: dict[str, int] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.index = {key: i for i, key in enumerate(self.keys)}

    def __contains__(self, key: str) -> bool:
        return key in self.index

    def at(self, key: str) -> InfosetValues:
        """The information set ``key``; KeyError if the tree has no such key."""
        i = self.index[key]
        actions = self.actions[i]
        n = len(actions)
        strategy = dict(zip(actions, self.sigma[i, :n].tolist(), strict=True))
        values = dict(zip(actions, self.q[i, :n].tolist(), strict=True))
        return InfosetValues(
            key=key,
            player=int(self.players[i]),
            actions=actions,
            strategy=strategy,
            values=values,
            value=float(np.dot(self.sigma[i, :n], self.q[i, :n])),
            reach=float(self.reach[i]),
            by_chance=bool(self.by_chance[i]),
            chance_reach=float(self.reach_chance[i]),
            own_reach=float(self.own_reach[i]),
        )


#: the most passes :func:`settled` makes to settle a player's play where their own strategy
#: never goes (each pass settles at least one more decision from the end of a hand: Leduc
#: hold'em's review solve needs 2 a player)
SETTLE_PASSES = 32


def action_values(tree: FlatTree, sigma: np.ndarray) -> ActionValues:
    """The counterfactual value of every action of every information set under ``sigma``
    (see the module's docstring), from the acting player's side, each player playing on
    sensibly where their own ``sigma`` never goes (:func:`settled`)."""
    sigma = np.array(sigma, dtype=np.float64)
    solved = _values(tree, sigma)
    for player in (0, 1):
        rows = solved.players == player
        if not np.any(rows & (solved.own_reach < RARE)):
            continue
        mine = _values(tree, settled(tree, sigma, player, solved))
        solved.q[rows] = mine.q[rows]
    return solved


def settled(
    tree: FlatTree, sigma: np.ndarray, player: int, first: ActionValues | None = None
) -> np.ndarray:
    """``sigma`` with ``player``'s strategy replaced, at every information set their own
    strategy reaches less often than :data:`RARE` (:attr:`InfosetValues.own_unreached`), by
    the best action there, the other player's strategy kept.

    A solve's average strategy keeps, where a player's own strategy stopped going, whatever
    mix it had then: no play of anyone's, and one that can lose chips (Leduc's solve calls a
    re-raise there with a king that the board's pair beats, 4 chips worse than folding).
    The value of an action that leads there (betting that king) is then what the action is
    worth with the player going on sensibly, and the bad call is charged to the call alone,
    not again to the bet before it. A best action's value depends only on the play after
    it, so each pass settles one more decision from the end: the passes stop when nothing
    changes (the other player's reach of each information set, which weighs its values, is
    not changed by ``player``'s play)."""
    values = first if first is not None else _values(tree, sigma)
    rows = np.flatnonzero((values.players == player) & (values.own_reach < RARE))
    sigma = np.array(sigma, dtype=np.float64)
    legal = tree.legal[rows]
    chosen = None
    for _ in range(SETTLE_PASSES):
        best = np.argmax(np.where(legal, values.q[rows], -np.inf), axis=1)
        if chosen is not None and np.array_equal(best, chosen):
            break
        chosen = best
        sigma[rows] = 0.0
        sigma[rows, best] = 1.0
        values = _values(tree, sigma)
    return sigma


def _values(tree: FlatTree, sigma: np.ndarray) -> ActionValues:
    """:func:`action_values` of ``sigma`` as it is."""
    width = tree.max_actions
    size = tree.n_infosets * width
    value0 = tree.backward(tree.edge_weights(sigma), tree.payoff)  # player 0's, every node
    own = tree.forward(tree.edge_factors(sigma))  # each player's own reach of every node
    total = np.zeros(size)
    total_chance = np.zeros(size)
    reach = np.zeros(tree.n_infosets)
    reach_chance = np.zeros(tree.n_infosets)
    own_reach = np.zeros(tree.n_infosets)
    for player in (0, 1):
        sign = 1.0 if player == 0 else -1.0
        kids = tree.chosen_by[player]
        parents = tree.chosen_parent[player]
        slots = tree.chosen_slot[player]
        chance = tree.chosen_parent_chance[player]
        payoff = sign * value0[kids]
        weight = own[1 - player, parents] * chance
        total += np.bincount(slots, weights=weight * payoff, minlength=size)
        total_chance += np.bincount(slots, weights=chance * payoff, minlength=size)
        nodes = tree.decision_nodes[player]
        infosets = tree.decision_infosets[player]
        node_chance = tree.chance_reach[nodes]
        reach += np.bincount(
            infosets, weights=own[1 - player, nodes] * node_chance, minlength=tree.n_infosets
        )
        reach_chance += np.bincount(infosets, weights=node_chance, minlength=tree.n_infosets)
        # (every node of an information set has the same own reach: the largest is it)
        np.maximum.at(own_reach, infosets, own[player, nodes])
    by_chance = reach <= 0.0
    denominator = np.where(by_chance, reach_chance, reach)[:, None]
    numerator = np.where(
        by_chance[:, None], total_chance.reshape(-1, width), total.reshape(-1, width)
    )
    with np.errstate(invalid="ignore", divide="ignore"):
        q = np.where(tree.legal, numerator / denominator, 0.0)
    return ActionValues(
        list(tree.infoset_keys),
        list(tree.infoset_actions),
        tree.infoset_player.copy(),
        q,
        np.array(sigma, dtype=np.float64),
        reach,
        by_chance,
        reach_chance,
        own_reach,
    )


# ----------------------------------------------------------------------------- the review
Options = tuple[tuple[str, Any], ...]


@dataclass(frozen=True)
class Row:
    """One decision of the reviewed seat, and what the solver says of it."""

    move: Move
    #: the information set's values; None when the decision is not reviewed (``reason``)
    infoset: InfosetValues | None = None
    reason: str = ""
    #: a loss up to this is no mistake: :data:`MISTAKE`, or the solve's exploitability if
    #: that is larger
    threshold: float = MISTAKE

    @property
    def reviewed(self) -> bool:
        return self.infoset is not None

    @property
    def taken_value(self) -> float | None:
        return self.infoset.values[self.move.taken] if self.infoset else None

    @property
    def best_value(self) -> float | None:
        return self.infoset.best if self.infoset else None

    @property
    def lost(self) -> float | None:
        """What the action lost against the best one, as the solve values them."""
        return self.infoset.lost(self.move.taken) if self.infoset else None

    @property
    def share(self) -> float | None:
        """How often the solved strategy takes the action taken here."""
        return self.infoset.strategy[self.move.taken] if self.infoset else None

    @property
    def in_mix(self) -> bool:
        """Whether the solved strategy plays the action taken (:data:`SUPPORT`) as part of
        its mix: where it has settled, and within the threshold of the best. Its words say
        so ("the solved strategy calls 55% of the time here"); its verdict is the loss's
        (:attr:`verdict`)."""
        infoset = self.infoset
        return (
            infoset is not None
            and not infoset.unsettled
            and infoset.strategy[self.move.taken] >= SUPPORT
            and (self.lost or 0.0) <= self.threshold
        )

    @property
    def leftover(self) -> bool:
        """Whether the solved strategy plays the action taken (:data:`SUPPORT`), where it has
        settled, though it loses more than the threshold: a leftover of a solve of too few
        iterations (Blackjack++'s 200 left standing 1% of the time on a 15, 0.02 points worse
        than hitting), no part of an equilibrium's mix."""
        infoset = self.infoset
        return (
            infoset is not None
            and not infoset.unsettled
            and infoset.strategy[self.move.taken] >= SUPPORT
            and not self.in_mix
        )

    @property
    def verdict(self) -> str:
        """By the loss alone, as the review shows it (to :data:`PLACES` decimals), however
        often the solved strategy plays the action: ``"fine"``, no measurable loss (the best
        action, or one worth as much to the places shown); ``"small"``, a measurable loss no
        larger than the threshold; ``"mistake"``, a larger one; ``""``, not reviewed. So no
        action is judged worse than one that loses more, and none that loses a measurable
        amount is said to lose nothing (a solve of finitely many iterations values the
        actions an equilibrium mixes a little apart: a Blackjack++ hit it plays 6% of the
        time, 0.0046 points below standing, is close, not fine)."""
        if self.infoset is None:
            return ""
        lost = self.lost or 0.0
        if lost > self.threshold:
            return "mistake"
        return "small" if measurable(lost) else "fine"

    @property
    def charged(self) -> float | None:
        """The loss the review counts: none for a fine decision (no loss the places shown
        can tell), the solve's for the others."""
        if self.infoset is None:
            return None
        return 0.0 if self.verdict == "fine" else self.lost

    @property
    def best_actions(self) -> list[str]:
        """The best actions, as every part of the review names them: those worth as much as
        the best to the places shown (:func:`best_of`), the one taken first if it is one."""
        return best_of(self.infoset, self.move.taken) if self.infoset else []


@dataclass(frozen=True)
class Review:
    seat: int
    rows: tuple[Row, ...]

    def is_mistake(self, row: Row) -> bool:
        return row.verdict == "mistake"

    @property
    def reviewed(self) -> list[Row]:
        return [row for row in self.rows if row.reviewed]

    @property
    def threshold(self) -> float:
        """The largest loss that is no mistake, over the reviewed decisions."""
        return max((row.threshold for row in self.reviewed), default=MISTAKE)

    @property
    def total_lost(self) -> float:
        """What the mistakes lost, together: the sum of their losses as their rows state
        them (:func:`as_stated`), so that the rows add up to it."""
        return _added(row.lost for row in self.rows if self.is_mistake(row))

    @property
    def small_lost(self) -> float:
        """What the decisions too close to the best to be mistakes lost, together: the sum
        of their losses as their rows state them (:func:`as_stated`)."""
        return _added(row.lost for row in self.rows if row.verdict == "small")

    @property
    def mistakes(self) -> int:
        """Decisions that lost more than their threshold."""
        return sum(1 for row in self.rows if self.is_mistake(row))

    @property
    def fine(self) -> int:
        return sum(1 for row in self.rows if row.verdict == "fine")


def needs_values(move: Move) -> bool:
    """Whether reviewing ``move`` reads a solve: not a decision whose cards are hidden, nor a
    move the table played for the seat, nor one of a hand a fault cut short (none of them is
    reviewed)."""
    return move.key is not None and not move.played_for and not move.cut_short


def review(
    moves: list[Move],
    solved: dict[Options, ActionValues],
    seat: int,
    waiting: Any = None,
) -> Review:
    """The review of ``seat``'s decisions among ``moves``, each with the values of the solve
    of its own options (``solved``: options -> values). A decision whose key is hidden,
    whose solve is not there (``waiting(options)`` says why: it is being solved), unknown
    to the solve, or whose action is not one of the information set's, is kept with the
    reason it is not reviewed."""
    rows = [_row(move, solved, waiting) for move in moves if move.seat == seat]
    return Review(seat, tuple(rows))


def _row(move: Move, solved: dict[Options, ActionValues], waiting) -> Row:
    if move.played_for:  # no decision of the player's
        why = "Time ran out: the table played this move by default, so it is not reviewed."
        return Row(move, reason=why)
    if move.cut_short:
        round_word = (move.chapter.split() or ["hand"])[0].lower()
        why = f"This {round_word} ended when {move.cut_short}, so it is not reviewed."
        return Row(move, reason=why)
    if move.key is None:
        return Row(move, reason="The cards of this hand are not shown to you.")
    values = solved.get(move.options)
    if values is None:
        reason = waiting(move.options) if waiting else "Not solved yet."
        return Row(move, reason=reason)
    if move.key not in values:
        return Row(move, reason=f"The solved game has no information set {move.key!r}.")
    infoset = values.at(move.key)
    if move.taken not in infoset.values:
        return Row(move, reason=f"{move.taken!r} is not an action the solved game offers here.")
    return Row(move, infoset, threshold=max(MISTAKE, values.precision))


# ------------------------------------------------------------- a hand a fault cut short
def ended_by(record: dict[str, Any], seat: int) -> str:
    """How the match of ``record`` ended early, from ``seat``'s side: "the opponent raised an
    error", "you ran out of time"; "the match was stopped" when no one seat faulted."""
    result = record.get("result")
    faults = result.get("faults") if isinstance(result, dict) else None
    if not isinstance(faults, dict) or len(faults) != 1:
        return "the match was stopped"
    ((faulted, fault),) = faults.items()
    kind = fault.get("kind") if isinstance(fault, dict) else None
    who = "you" if str(faulted) == str(seat) else "the opponent"
    return f"{who} {FAULT_WORDS.get(kind, 'stopped playing')}"  # (as a table's end says it)


def cut_short_moves(
    record: dict[str, Any],
    finished: int,
    hand: int,
    chapter: str,
    said: Callable[[list[Any], list[int], int, tuple[int, ...]], tuple[str, str]],
) -> list[Move]:
    """The decisions of the hand a fault cut short: the record's action events after the
    ``finished`` actions of its finished hands (``hand`` of them), none reviewed, each with
    how the hand ended (:attr:`Move.cut_short`). ``said(actions, positions, i, defaulted)``:
    the ``i``-th in words, as :func:`decided` takes them (the table's verb, what came
    before: ``("checked", "first to act")``), from the hand's actions, the position of the
    seat that made each (position 0 acts first) and those before it the table played for a
    seat whose time ran out."""
    events = record.get("events")
    actions = [
        event
        for event in (events if isinstance(events, list) else [])
        if isinstance(event, dict) and event.get("type") == "action"
    ][finished:]
    if not actions or actions[0].get("seat") not in (0, 1):
        return []
    played_for = actions_played_for(record)
    first = actions[0]["seat"]
    seats = [event.get("seat") for event in actions]
    positions = [(seat - first) % 2 if seat in (0, 1) else 0 for seat in seats]
    codes = [event.get("action") for event in actions]
    by_table = [played_for.get(finished + i) == seat for i, seat in enumerate(seats)]
    moves = []
    for i, seat in enumerate(seats):
        if seat not in (0, 1):
            continue
        defaulted = tuple(j for j in range(i) if by_table[j])
        done, seen = said(codes, positions, i, defaulted)
        moves.append(
            Move(
                hand=hand,
                seat=seat,
                key=None,
                taken=str(codes[i]),
                situation=decided(done, seen, by_table[i]),
                chapter=chapter,
                played_for=by_table[i],
                defaulted=defaulted,
                cut_short=ended_by(record, seat),
            )
        )
    return moves


# --------------------------------------------------------------------------- in words
def percent(p: float) -> str:
    """A probability as a person reads it: ``78%``; 0% and 100% only within a solve's
    leftover of them (:data:`NEGLIGIBLE`), and ``under 1%`` for the rest of what the review
    counts out of the mix (:data:`SUPPORT`), where rounding would show 1% or 0%."""
    if p < NEGLIGIBLE:
        return "0%"
    if p < SUPPORT:
        return "under 1%"
    n = round(100 * p)
    if n >= 100 and p < 1 - NEGLIGIBLE:
        n = 99
    return f"{n}%"


#: the decimal places the review shows values and losses to: its table, its sentences and
#: its totals alike (:func:`amount`)
PLACES = 4


def fixed(value: float, places: int = PLACES) -> str:
    """``value`` to ``places`` decimals, never "-0.0000"."""
    text = f"{value:.{places}f}"
    return text[1:] if text.startswith("-") and not text.strip("-0.") else text


def as_stated(loss: float) -> float:
    """A loss as the review states it (:func:`amount`): rounded to :data:`PLACES` decimals.
    A total of several is the sum of these (:attr:`Review.total_lost`), not the rounded sum
    of the exact losses, which can differ from what the rows add up to in the last place."""
    return float(fixed(loss))


def _added(losses: Iterable[float | None]) -> float:
    """The sum of ``losses`` as the review states each (:func:`as_stated`), to the places
    shown (no float's leftover digits)."""
    return round(sum(as_stated(loss or 0.0) for loss in losses), PLACES)


def measurable(loss: float) -> bool:
    """Whether a loss shows to :data:`PLACES` decimals (as 0.0001 or more, not 0.0000)."""
    return fixed(loss) != fixed(0.0)


def shown_values(taken: float, best: float, charged: float | None) -> tuple[str, str]:
    """The values of the action taken and of the best, as a review's row shows them beside
    the loss it charges (:attr:`Row.charged`): the best to :data:`PLACES` decimals, and the
    action taken as the best less the loss as shown. Each rounded alone, two values 0.00002
    apart could read 4.5144 and 4.5145 beside "no measurable loss", and two 0.00006 apart
    4.5145 and 4.5145 beside a loss of 0.0001; so shown, they differ by the loss the row
    states, and neither is off by more than the last place."""
    best_text = fixed(best)
    if not charged or not measurable(charged):
        return best_text, best_text
    return fixed(round(best, PLACES) - round(charged, PLACES)), best_text


def amount(loss: float, unit: str = "") -> str:
    """A loss, or the losses of several decisions together, as every part of the review says
    it (the sentence, the table's row, the totals above it): to :data:`PLACES` decimals,
    ``0.0123 chips``; one too small to show there (0.0000) is ``no measurable loss (under
    0.0001 chips)``, never a 0 that reads as none at all nor a coarser "under 0.001"."""
    unit = f" {unit}" if unit else ""
    if measurable(loss):
        return f"{fixed(loss)}{unit}"
    return f"no measurable loss (under {fixed(10.0**-PLACES)}{unit})"


def mix_words(infoset: InfosetValues, verbs: dict[str, Verb]) -> str:
    """What the solved strategy does at ``infoset``: ``always calls``, ``checks 67% of the
    time and bets 33%``."""
    played = sorted(
        ((p, a) for a, p in infoset.strategy.items() if p >= SUPPORT), key=lambda x: -x[0]
    )
    if not played:
        return "has no preference"
    if len(played) == 1 or played[0][0] >= 1 - SUPPORT / 2:
        return f"{_always(played[0][0])} {verbs[played[0][1]].present}"
    first, *rest = played
    words = [f"{verbs[first[1]].present} {percent(first[0])} of the time"]
    words += [f"{verbs[a].present} {percent(p)}" for p, a in rest]
    return listed(words)


def _always(share: float) -> str:
    """How often an action the solved strategy plays (nearly) alone is played, in words that
    agree with its percentage: "always" where the others are a solve's leftover
    (:data:`NEGLIGIBLE`), else "almost always" (99%, the others under 1%)."""
    return "always" if share >= 1 - NEGLIGIBLE else "almost always"


def sentence(row: Row, words: Words, subject: str = "You") -> str:
    """The decision of ``row`` in one sentence: what was held, seen and done, what the
    solved strategy does there and what it cost: "You checked with the jack, first to act;
    the solved strategy checks 78% of the time here: no loss." ``subject`` names the seat
    ("You", or its name, whose "you"s become "they")."""
    infoset = row.infoset
    assert infoset is not None
    taken = words.verbs[row.move.taken]
    seen = words.seen if subject == "You" else _third_person(words.seen)
    held = words.held if subject == "You" else _third_person(words.held)
    head = f"{subject} {taken.past} with {held}, {seen}"
    share = infoset.strategy[row.move.taken]
    lost = row.lost or 0.0
    # another action worth as much as the one taken, to the places shown: a tie, which the
    # sentence never calls a preference of the solve's, though its strategy plays the other
    rival = None if measurable(lost) else _tied_with(infoset, row.move.taken)
    tied = rival is not None
    # every best action, as one (equal values are no preference of one over the other)
    tops = best_of(infoset, row.move.taken)
    best = _listed([words.verbs[a].gerund for a in tops], "or")
    places = f"to {PLACES} decimal places"
    if tied:
        values = f"{taken.gerund} is worth as much as {words.verbs[rival].gerund}, {places}"
    else:
        are = "are" if len(tops) > 1 else "is"
        values = f"{_listed([words.verbs[a].gerund for a in tops], 'and')} {are} best"
    if infoset.rare:
        never = "never" if infoset.by_chance else "almost never"
        solved = (
            f"the solved strategy, in the opponent's seat, would {never} have led here, so "
            f"it has no practised play here; judged on the values alone, {values}"
        )
    elif infoset.own_unreached:
        never = "not" if infoset.own_reach <= 0.0 else "almost never"
        solved = (
            f"the solved strategy would {never} have got here (it plays otherwise earlier "
            f"in the {words.round}), so it has no practised play here; judged on the values "
            f"alone, {values}"
        )
    elif row.leftover:
        solved = (
            f"the solved strategy still {taken.present} {percent(share)} of the time here, "
            f"a leftover of its training that it values below {best}"
        )
    elif row.in_mix and share >= 1 - SUPPORT / 2:
        solved = f"the solved strategy {_always(share)} {taken.present} here"
    elif row.in_mix:
        solved = f"the solved strategy {taken.present} {percent(share)} of the time here"
    elif tied:
        # what the strategy plays, as its table says it, but no "never" of a tie
        seldom = f", {taken.present} under 1% of the time" if share >= NEGLIGIBLE else ""
        solved = (
            f"{taken.gerund} is worth as much here as {words.verbs[rival].gerund}, {places} "
            f"(the solved strategy {mix_words(infoset, words.verbs)}{seldom})"
        )
    else:
        mix = mix_words(infoset, words.verbs)
        rarely = (
            f"{taken.present} under 1% of the time"
            if share >= NEGLIGIBLE
            else f"never {taken.present}"
        )
        solved = f"the solved strategy {mix} here, {rarely}"
    if row.verdict == "fine":
        # (a loss of under 0.0001 is said as such: "no loss" is for none at all)
        cost = amount(lost, words.unit) if lost else "no loss"
    elif row.verdict == "small" and row.in_mix:
        # an action the solved strategy mixes in: an equilibrium mixes only between actions
        # worth the same, so the gap is the solve's (finitely many iterations), not a loss of
        # the game's; the verdict is still the values' (close)
        solved += ", and an equilibrium mixes only between actions worth the same"
        cost = (
            f"the solve's values, from finitely many iterations, put {taken.gerund} below "
            f"{best} by {amount(lost, words.unit)}, {less_than_a_mistake(row)}"
        )
    elif row.verdict == "small":
        cost = (
            f"it loses {amount(lost, words.unit)} on average against {best}, "
            f"{less_than_a_mistake(row)}"
        )
    else:
        cost = f"a mistake that costs {amount(lost, words.unit)} on average against {best}"
    return f"{head}; {solved}: {cost}."


def less_than_a_mistake(row: Row) -> str:
    """What keeps a close decision's loss from being a mistake: "less than the 0.01 that
    makes a mistake"."""
    return f"less than the {row.threshold:.3g} that makes a mistake"


def best_of(infoset: InfosetValues, taken: str) -> list[str]:
    """The best actions at ``infoset``: those worth as much as the best to the places the
    review shows, ``taken`` first if it is one, then the one the solved strategy plays
    most."""
    top = infoset.best
    tops = [a for a in infoset.actions if not measurable(top - infoset.values[a])]
    return sorted(tops, key=lambda a: (a != taken, -infoset.strategy[a]))


def _listed(words: list[str], joint: str) -> str:
    """``["folding", "calling"]``, "or" -> "folding or calling"."""
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + f" {joint} " + words[-1]


def _tied_with(infoset: InfosetValues, taken: str) -> str | None:
    """The action worth as much as ``taken`` to the places the review shows (the best such,
    then the one the solved strategy plays most), if any."""
    mine = infoset.values[taken]
    close = [
        a for a in infoset.actions if a != taken and not measurable(abs(infoset.values[a] - mine))
    ]
    if not close:
        return None
    return max(close, key=lambda a: (infoset.values[a], infoset.strategy[a]))


def decided(done: str, seen: str, played_for: bool = False) -> str:
    """A decision standing alone, for a row not reviewed (``Move.situation``): "You folded,
    after the opponent bet"; "The table checked for you, first to act" of a move the table
    played for the seat (``Move.played_for``)."""
    who = f"The table {done} for you" if played_for else f"You {done}"
    return f"{who}, {seen}"


def _third_person(text: str) -> str:
    text = re.sub(r"\bfor you\b", "for them", text)
    swaps = {"you": "they", "your": "their", "You": "They", "Your": "Their"}
    return " ".join(swaps.get(word, word) for word in text.split(" "))


#: the deciding seat's "you" and "your" in a decision's words (``Words``, ``Move.situation``)
_YOU = re.compile(r"\b([Yy]ou)(r?)\b")


def said_of(text: str, subject: str = "You") -> str:
    """A decision's words standing alone (``Move.situation``: "after you checked and the
    opponent bet") for the seat ``subject`` names: as they are for "You", else with its name
    for "you" ("after ann checked and the opponent bet"). A "they" would name no one there,
    and a "you" beside rows that name the player reads as the person looking at the page."""
    if subject == "You":
        return text
    return _YOU.sub(lambda found: subject + ("'s" if found.group(2) else ""), text)
