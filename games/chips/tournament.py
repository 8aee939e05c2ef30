"""Tournaments of the two-player chip games (Kuhn poker, Leduc hold'em, Blackjack++).

Every round, every pair of bots plays one match of many hands (seats alternate between
rounds, and within a match every hand). A bot's score is its mean chips won per hand over
all its matches, with a 95% interval from the per-match results (a bot may adapt to its
opponent within a match, so the match, not the hand, is the independent unit).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from games.engine.runner import MatchOutcome
from games.engine.tournament import (
    Column,
    PairsRoundRobin,
    Standing,
    faults_column,
    interval_column,
    mean_interval,
    mean_sd_se,
    number,
    record_column,
)


class ChipsRoundRobin(PairsRoundRobin):
    score_label = "chips/hand"
    #: what a hand is called in this game's tables
    unit = "hand"

    def tally_scores(self, seated: Sequence[Standing], outcome: MatchOutcome) -> None:
        result = outcome.result
        scores = result["scores"]
        hands = max(int(result.get("hands", 0)) + int(result.get("forfeited_hands", 0)), 1)
        for seat, standing in enumerate(seated):
            mine, theirs = scores[seat], scores[1 - seat]
            totals = standing.extra
            per_hand = mine / hands
            totals["chips"] = totals.get("chips", 0.0) + mine
            totals["hands"] = totals.get("hands", 0) + hands
            totals["sum"] = totals.get("sum", 0.0) + per_hand
            totals["sum_sq"] = totals.get("sum_sq", 0.0) + per_hand * per_hand
            standing.games += hands
            if mine > theirs:
                standing.wins += 1
            elif mine < theirs:
                standing.losses += 1
            else:
                standing.draws += 1
            standing.score = totals["chips"] / totals["hands"]

    def bot_json(self, standing: Standing) -> dict[str, Any]:
        totals = standing.extra
        mean, low, high = chips_interval(totals, standing.matches)
        return standing.common_json() | {
            "score": round(mean, 6),
            "chips": round(totals.get("chips", 0.0), 4),
            "hands": totals.get("hands", 0),
            "chips_per_hand": round(mean, 6),
            # None until two matches are played (one match gives no spread), and while
            # every match scored the same (no range to bound a hand's chips by)
            "chips_per_hand_ci95": None if low is None else [round(low, 6), round(high, 6)],
        }

    def head_to_head_json(self, standing: Standing) -> dict[str, Any]:
        return {
            other: {"chips": round(won, 4), "opponent_chips": round(lost, 4)}
            for other, (won, lost) in standing.head_to_head.items()
        }

    def columns(self) -> list[Column]:
        return [
            interval_column(
                f"{self.score_label} (95% CI)", "chips_per_hand", "chips_per_hand_ci95"
            ),
            number(self.score_label.split("/")[0], "chips", "{:+g}"),
            number(f"{self.unit}s", "hands", "{}"),
            record_column(),
            faults_column(),
        ]


class DealsRoundRobin(ChipsRoundRobin):
    """Blackjack++: the same, counted in deals and points."""

    score_label = "points/deal"
    unit = "deal"


def chips_interval(
    totals: dict[str, Any], matches: int
) -> tuple[float, float | None, float | None]:
    """Mean chips per hand, and a 95% interval over matches (``mean_interval``: Student's
    t; None with fewer than two matches, or while every match scored the same)."""
    hands = totals.get("hands", 0)
    if not hands or not matches:
        return 0.0, None, None
    mean = totals["chips"] / hands
    if matches < 2:
        return mean, None, None
    _, sd, _ = mean_sd_se(totals["sum"], totals["sum_sq"], matches)
    found = mean_interval(mean, sd, matches)
    return (mean, None, None) if found is None else (mean, *found)
