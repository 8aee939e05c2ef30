"""Goofspiel tournaments: every round, every pair of bots plays one match of several deals
(seats alternate between rounds, although the game is symmetric). A bot's score is its mean
return per deal over all its matches (with ``win_loss``, deals won minus deals lost per deal
played), with a 95% interval from the per-match means (a bot may adapt to its opponent
within a match, so the match is the independent unit; ``mean_interval``: Student's t, and
from what a deal can pay where every match scored the same). Beside it: the share of deals won
(with a Wilson interval) and the mean prize-point difference per deal."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from games.engine.runner import MatchOutcome
from games.engine.tournament import (
    Column,
    PairsRoundRobin,
    Standing,
    Statistics,
    faults_column,
    interval_column,
    mean_interval,
    mean_sd_se,
    number,
    record_column,
    wilson_interval,
)
from games.goofspiel.rules import MAX_CARDS, most_returned

#: the most a deal pays under any options (a standing tallied before the bound was kept)
WIDEST = most_returned(MAX_CARDS, "point_difference")


class DealsRoundRobin(PairsRoundRobin):
    score_label = "score/deal"

    def tally_scores(self, seated: Sequence[Standing], outcome: MatchOutcome) -> None:
        result = outcome.result
        scores = result["scores"]
        deals = int(result.get("deals", 0)) + int(result.get("forfeited_deals", 0))
        points = result.get("points", [0, 0])
        won = result.get("deals_won", [0, 0])
        for seat, standing in enumerate(seated):
            mine, theirs = scores[seat], scores[1 - seat]
            totals = standing.extra
            per_deal = mine / deals if deals else 0.0
            # what a deal can pay at most under the options of every match tallied (the
            # widest, should they differ): the score's interval stays within it
            bound = most_returned(
                result.get("num_cards", MAX_CARDS), result.get("returns_type", "")
            )
            kept = totals.get("bound", WIDEST if totals.get("deals") else 0)
            totals["bound"] = max(kept, bound)
            totals["returns"] = totals.get("returns", 0) + mine
            totals["deals"] = totals.get("deals", 0) + deals
            totals["deals_won"] = totals.get("deals_won", 0) + won[seat]
            totals["point_diff"] = totals.get("point_diff", 0) + points[seat] - points[1 - seat]
            totals["sum"] = totals.get("sum", 0.0) + per_deal
            totals["sum_sq"] = totals.get("sum_sq", 0.0) + per_deal * per_deal
            standing.games += deals
            if mine > theirs:
                standing.wins += 1
            elif mine < theirs:
                standing.losses += 1
            else:
                standing.draws += 1
            standing.score = totals["returns"] / totals["deals"] if totals["deals"] else 0.0

    def bot_json(self, standing: Standing) -> dict[str, Any]:
        totals = standing.extra
        deals = totals.get("deals", 0)
        mean = totals.get("returns", 0) / deals if deals else 0.0
        interval = None
        if standing.matches >= 2 and deals:
            _, sd, _ = mean_sd_se(totals["sum"], totals["sum_sq"], standing.matches)
            bound = totals.get("bound", WIDEST)
            found = mean_interval(mean, sd, standing.matches, low=-bound, high=bound)
            interval = None if found is None else [round(v, 6) for v in found]
        won = totals.get("deals_won", 0)
        low, high = wilson_interval(won, deals)
        return standing.common_json() | {
            "score": round(mean, 6),
            "score_per_deal_ci95": interval,
            "deals": deals,
            "deals_won": won,
            "deal_win_rate": round(won / deals, 6) if deals else 0.0,
            "deal_win_rate_ci95": [round(low, 6), round(high, 6)],
            "point_diff_per_deal": round(totals.get("point_diff", 0) / deals, 6) if deals else 0.0,
        }

    def head_to_head_json(self, standing: Standing) -> dict[str, Any]:
        return {
            other: {"score": mine, "opponent_score": theirs}
            for other, (mine, theirs) in standing.head_to_head.items()
        }

    def columns(self) -> list[Column]:
        def rate(bot: dict[str, Any]) -> str:
            low, high = bot["deal_win_rate_ci95"]
            return f"{100 * bot['deal_win_rate']:.1f}% ({100 * low:.1f}-{100 * high:.1f})"

        return [
            interval_column(f"{self.score_label} (95% CI)", "score", "score_per_deal_ci95"),
            Column("deals won (95% CI)", rate, lambda b: b["deal_win_rate"]),
            number("points +/- per deal", "point_diff_per_deal", "{:+.2f}"),
            # played, or forfeited by a fault (``forfeited_deals``): never "played"
            number("deals decided", "deals", "{}"),
            record_column(),
            faults_column(),
        ]

    def statistics(self) -> Statistics:
        return Statistics(
            self.columns(),
            "Deals decided are those played and, after a fault, those left unplayed, which "
            "the rules count as won by the opponent: deals won and the score per deal "
            "include them.",
        )
