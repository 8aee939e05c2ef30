"""Tournament formats: who plays whom on which deal, and how results add up.

A format is pure logic shared by the command-line arena and the tournament worker: it
schedules tables (which entrants sit in which seats, with which seed) and tallies each
match outcome into per-bot standings. Each game brings its own format (RPS Poker: every pair
plays every round, score = games won).
"""

from __future__ import annotations

import hashlib
import math
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from statistics import NormalDist
from typing import Any

from games.engine.runner import MatchOutcome


@dataclass(frozen=True)
class Table:
    round: int
    seats: tuple[int, ...]  # entrant index in each seat
    seed: int


@dataclass
class Standing:
    """One bot's running totals in a tournament."""

    name: str
    source: str
    score: float = 0
    games: int = 0
    matches: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    faults: int = 0
    fault_kinds: Counter[str] = field(default_factory=Counter)
    think_s: float = 0.0
    calls: int = 0
    #: opponent name -> [this bot's points, the opponent's points] in their matches
    head_to_head: dict[str, list[float]] = field(default_factory=dict)
    #: format-specific totals
    extra: dict[str, Any] = field(default_factory=dict)

    def common_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "source": self.source,
            "score": self.score,
            "games": self.games,
            "wins": self.wins,
            "faults": self.faults,
            "matches": self.matches,
            "draws": self.draws,
            "losses": self.losses,
            "fault_kinds": dict(self.fault_kinds),
            "mean_call_ms": round(1000 * self.think_s / self.calls, 3) if self.calls else None,
        }

    def stable_json(self) -> dict[str, Any]:
        """The keys the arena's ``--json`` promises for every game (README), where a game's
        format has no figure of its own under them: the share of matches won with its 95%
        Wilson interval, and per opponent the scores of both in the matches they shared
        (a game's own ``bot_json`` overrides them with its own meaning)."""
        low, high = wilson_interval(self.wins, self.matches)
        return {
            "win_rate": round(self.wins / self.matches, 6) if self.matches else 0.0,
            "win_rate_ci95": [round(low, 6), round(high, 6)],
            "head_to_head": {
                other: {"score": round(mine, 4), "opponent_score": round(theirs, 4)}
                for other, (mine, theirs) in self.head_to_head.items()
            },
        }


Value = float | int | str | None


@dataclass(frozen=True)
class Column:
    """A column of a game's own numbers (leaderboards, the arena's table, statistics): its
    title, the text of a bot's cell, and the value the cell stands for (what a table sorts
    by; None: no number). Both come from the bot's JSON entry (``Format.bot_json``), so no
    page reads a number back out of the text."""

    title: str
    show: Callable[[dict[str, Any]], str]
    value: Callable[[dict[str, Any]], Value] | None = None

    def cell(self, bot: dict[str, Any]) -> dict[str, Any]:
        """``{"text": ..., "value": ...}`` of one bot (the value the text's when unset)."""
        text = self.show(bot)
        return {"text": text, "value": self.value(bot) if self.value else text}


def number(title: str, key: str, shown: str = "{:.2f}") -> Column:
    """A column showing the number ``bot[key]`` with the format ``shown``."""
    return Column(title, lambda b: shown.format(b[key]), lambda b: b[key])


def interval_column(title: str, key: str, interval_key: str, shown: str = "{:+.3f}") -> Column:
    """A mean ``bot[key]`` with its 95% interval ``bot[interval_key]``, both shown with the
    format ``shown``; where there is no interval yet (None, or one of no width stored
    before :func:`mean_interval`), the mean and "(too few matches)"."""

    def text(bot: dict[str, Any]) -> str:
        mean = shown.format(bot[key])
        if no_interval(bot.get(interval_key)):
            return f"{mean} ({NO_INTERVAL})"
        low, high = (shown.format(v) for v in bot[interval_key])
        return f"{mean} ({low} to {high})"

    return Column(title, text, lambda b: b[key])


def record_column() -> Column:
    """Matches won, drawn and lost (ordered by wins, then fewest losses)."""
    return Column(
        "matches W-D-L",
        lambda b: f"{b['wins']}-{b['draws']}-{b['losses']}",
        lambda b: b["wins"] - b["losses"] / 1000,
    )


def faults_column() -> Column:
    return Column("faults", fault_text, lambda b: b["faults"])


@dataclass(frozen=True)
class Statistics:
    """A game's statistics table (the leaderboard page's second table): its columns and a
    note on what they count."""

    columns: list[Column]
    note: str


def derive_seed(seed: int, *parts: object) -> int:
    """A per-match seed derived from the tournament seed: stable across runs and machines."""
    text = ":".join(str(p) for p in (seed, *parts))
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 1


def mean_sd_se(total: float, squares: float, n: int) -> tuple[float, float, float]:
    """Mean, sample standard deviation and standard error of ``n`` values, from their sum
    and their sum of squares (so running totals are enough). With one value the spread is
    unknown: standard deviation 0, standard error infinite."""
    mean = total / n
    if n < 2:
        return mean, 0.0, math.inf
    sd = math.sqrt(max(squares - n * mean * mean, 0.0) / (n - 1))
    return mean, sd, sd / math.sqrt(n)


#: the normal quantile of a two-sided 95% interval (1.96)
Z95 = NormalDist().inv_cdf(0.975)

#: Student's t quantile of a two-sided 95% interval for 1 to 29 degrees of freedom (above,
#: :func:`t95`'s expansion is within 1e-7 of it)
T95 = (
    12.706205, 4.302653, 3.182446, 2.776445, 2.570582, 2.446912, 2.364624,
    2.306004, 2.262157, 2.228139, 2.200985, 2.178813, 2.160369, 2.144787,
    2.131450, 2.119905, 2.109816, 2.100922, 2.093024, 2.085963, 2.079614,
    2.073873, 2.068658, 2.063899, 2.059539, 2.055529, 2.051831, 2.048407,
    2.045230,
)  # fmt: skip


def t95(df: int) -> float:
    """Student's t quantile of a two-sided 95% interval with ``df`` degrees of freedom: 12.71
    for 2 values, 4.30 for 3, 2.26 for 10, toward the normal's 1.96 (the table above; from
    30 on, the Cornish-Fisher expansion around the normal quantile)."""
    if df < 1:
        return math.inf
    if df <= len(T95):
        return T95[df - 1]
    z = Z95
    return (
        z
        + (z**3 + z) / (4 * df)
        + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)
        + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * df**3)
        + (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / (92160 * df**4)
    )


def mean_interval(
    mean: float, sd: float, n: int, *, low: float = -math.inf, high: float = math.inf
) -> tuple[float, float] | None:
    """The 95% interval of the mean of ``n`` independent values (matches, games, rounds)
    whose sample standard deviation is ``sd``, cut to ``[low, high]``, the values the
    statistic can take (a symmetric interval of a mean near a bound reaches past it: Last
    Card's points taken "5.17 (-1.36 to 11.69)", when no game takes fewer than 0 points).

    - Fewer than two values: None (one value has no spread to measure).
    - Student's t with ``n - 1`` degrees of freedom, not the normal's 1.96: with 3 matches
      the standard error is estimated so roughly that 1.96 of them cover far less than 95%
      (t: 4.30).
    - No spread observed (every value the same, as after a few matches that all scored
      +1): the values cannot say how wide the interval is, and ``mean +- t * 0`` would claim
      certainty. Where the statistic's range is known, the interval is the one of the
      widest spread a mean in that range can have (every value at one end or the other):
      the Wilson interval of the mean's place in the range as a share of ``n``, so 3 matches
      of +1 in -1..+1 give +1.000 (-0.123 to +1.000), as 3 wins out of 3 would. Where it is
      not known, None: too few matches for an interval yet.
    """
    if n < 2:
        return None
    # the same values, up to the rounding of a sum of squares (about 1e-8 of the mean)
    if sd <= 1e-6 * max(1.0, abs(mean)):
        if not (math.isfinite(low) and math.isfinite(high)) or high <= low:
            return None
        share = min(max((mean - low) / (high - low), 0.0), 1.0)
        first, last = wilson_interval(share * n, n)
        return low + first * (high - low), low + last * (high - low)
    half = t95(n - 1) * sd / math.sqrt(n)
    return max(low, mean - half), min(high, mean + half)


def no_interval(interval: Sequence[float] | None) -> bool:
    """Whether a stored interval says nothing: missing, or of no width (stored before
    :func:`mean_interval` widened an interval of values that were all the same)."""
    return interval is None or interval[0] == interval[1]


#: what a cell shows in place of an interval there is none of yet (see :func:`mean_interval`)
NO_INTERVAL = "too few matches"


def wilson_interval(successes: float, trials: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval of a proportion."""
    if trials == 0:
        return 0.0, 1.0
    p = successes / trials
    denom = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def fault_text(bot: dict[str, Any]) -> str:
    text = str(bot["faults"])
    if bot["fault_kinds"]:
        text += " (" + ", ".join(f"{k} {v}" for k, v in bot["fault_kinds"].items()) + ")"
    return text


class Format(ABC):
    """How a game's tournament is scheduled and scored."""

    min_bots = 2
    #: the printed name of ``score`` in tables
    score_label = "score"
    higher_is_better = True
    #: how the site ranks the game's bots: by their rating (bots that play each other), or
    #: by ``score`` itself (a game played alone against a fixed dealer, where the score is
    #: an estimate on the same deals: see :meth:`interval`)
    ranked_by_rating = True

    @abstractmethod
    def schedule(self, entrants: int, rounds: int, seed: int) -> Iterator[Table]: ...

    def count(self, entrants: int, rounds: int) -> int:
        return sum(1 for _ in self.schedule(entrants, rounds, 0))

    def tally(self, seated: Sequence[Standing], outcome: MatchOutcome) -> None:
        """Add one match to the standings of the bots seated in it (seat order)."""
        scores = outcome.result["scores"]
        for seat, standing in enumerate(seated):
            standing.matches += 1
            fault = outcome.faults.get(seat)
            if fault is not None:
                standing.faults += 1
                standing.fault_kinds[fault.kind] += 1
            stats = outcome.stats[seat]
            standing.think_s += stats.think_s
            standing.calls += stats.calls
            for other_seat, other in enumerate(seated):
                if other is not standing:
                    h2h = standing.head_to_head.setdefault(other.name, [0, 0])
                    h2h[0] += scores[seat]
                    h2h[1] += scores[other_seat]
        self.tally_scores(seated, outcome)

    @abstractmethod
    def tally_scores(self, seated: Sequence[Standing], outcome: MatchOutcome) -> None:
        """The game's own part of :meth:`tally`."""

    def bot_json(self, standing: Standing) -> dict[str, Any]:
        """The JSON entry of a bot: the common keys plus the format's own. Not its results
        against each opponent (:meth:`head_to_head_json`), which grow with the bots: the
        arena's ``--json`` adds them, a leaderboard row (which stores this) does not."""
        return standing.common_json()

    def head_to_head_json(self, standing: Standing) -> dict[str, Any]:
        """Per opponent, the two bots' scores in their matches together, as the game names
        them (the arena's ``head_to_head``): by default ``score`` and ``opponent_score``."""
        return standing.stable_json()["head_to_head"]

    def interval(self, bot: dict[str, Any]) -> tuple[float, float] | None:
        """The 95% interval of a bot's ``score`` (None: no estimate to speak of yet); a
        ranking by score is provisional where neighbours' intervals overlap."""
        return None

    def rank(self, bots: list[dict[str, Any]]) -> list[dict[str, Any]]:
        sign = -1 if self.higher_is_better else 1
        return sorted(bots, key=lambda b: (sign * b["score"], b["faults"], b["name"]))

    @abstractmethod
    def columns(self) -> list[Column]:
        """Leaderboard columns after rank and name."""

    def board_columns(self) -> list[Column]:
        """The columns of the site's leaderboard table, after the rating and the matches: by
        default every leaderboard column (:meth:`columns`); a game with too many for a
        desktop's width leaves some to its statistics table, shown under it."""
        return self.columns()

    def statistics(self) -> Statistics:
        """The game's statistics table: by default its leaderboard columns."""
        return Statistics(
            self.columns(), "The game's own numbers, as the arena command prints them."
        )


def pairs_apart(entrants: int) -> list[tuple[int, int]]:
    """Every pair of entrants (i < j) once, in an order where two pairs in a row share no
    entrant wherever that can be (from 4 entrants on): the circle method's rounds, one after
    the other. A bot that works after a match (the JavaScript host makes its next bot then:
    bots/languages) does it while others play."""
    if entrants < 2:
        return []
    ring = list(range(entrants)) + ([None] if entrants % 2 else [])
    size = len(ring)
    pairs: list[tuple[int, int]] = []
    last: tuple[int, int] | None = None
    for _ in range(size - 1):
        matching = [
            (min(a, b), max(a, b))
            for a, b in ((ring[k], ring[size - 1 - k]) for k in range(size // 2))
            if a is not None and b is not None
        ]
        if last is not None and matching and set(matching[0]) & set(last):
            matching.reverse()  # its other end may share nothing with the last pair
        pairs += matching
        last = pairs[-1] if pairs else None
        ring.insert(1, ring.pop())  # the first stays, the others turn
    return pairs


class PairsRoundRobin(Format):
    """Two-player games: in every round each pair of entrants plays one table (its own seed),
    seats swapped from one round to the next."""

    def schedule(self, entrants: int, rounds: int, seed: int) -> Iterator[Table]:
        pairs = pairs_apart(entrants)
        for r in range(rounds):
            for i, j in pairs:
                seats = (i, j) if r % 2 == 0 else (j, i)
                yield Table(round=r, seats=seats, seed=derive_seed(seed, r, i, j))

    def count(self, entrants: int, rounds: int) -> int:
        return rounds * entrants * (entrants - 1) // 2
