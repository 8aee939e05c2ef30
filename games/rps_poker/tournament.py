"""RPS Poker tournaments, as in the original challenge: every round, every pair of bots
plays one match (seats alternate between rounds); a bot's score is its total of games won."""

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
    number,
    record_column,
    wilson_interval,
)


class RoundRobin(PairsRoundRobin):
    score_label = "score (games won)"

    def tally_scores(self, seated: Sequence[Standing], outcome: MatchOutcome) -> None:
        scores = outcome.result["scores"]
        for seat, standing in enumerate(seated):
            mine, theirs = scores[seat], scores[1 - seat]
            standing.score += mine
            standing.games += sum(scores)
            if mine > theirs:
                standing.wins += 1
            elif mine < theirs:
                standing.losses += 1
            else:
                standing.draws += 1

    def bot_json(self, standing: Standing) -> dict[str, Any]:
        low, high = wilson_interval(standing.score, standing.games)
        rate = standing.score / standing.games if standing.games else 0.0
        return standing.common_json() | {
            "win_rate": round(rate, 6),
            "win_rate_ci95": [round(low, 6), round(high, 6)],
        }

    def head_to_head_json(self, standing: Standing) -> dict[str, Any]:
        return {
            other: {"won": won, "lost": lost}
            for other, (won, lost) in standing.head_to_head.items()
        }

    def columns(self) -> list[Column]:
        def rate(bot: dict[str, Any]) -> str:
            low, high = bot["win_rate_ci95"]
            return f"{100 * bot['win_rate']:.1f}% ({100 * low:.1f}-{100 * high:.1f})"

        return [
            number(self.score_label, "score", "{}"),
            # a share of games, not of matches (those are W-D-L)
            Column("games won % (95% CI)", rate, lambda b: b["win_rate"]),
            record_column(),
            faults_column(),
        ]

    def statistics(self) -> Statistics:
        def interval(bot: dict[str, Any]) -> str:
            low, high = bot["win_rate_ci95"]
            return f"{100 * low:.1f}% to {100 * high:.1f}%"

        return Statistics(
            [
                # every match's ten, played or forfeited by a fault: never "played"
                number("games decided", "games", "{:,}"),
                number("games won", "score", "{:,}"),
                Column(
                    "games won %",
                    lambda b: f"{100 * b['win_rate']:.1f}%",
                    lambda b: b["win_rate"],
                ),
                Column("95% interval", interval, lambda b: b["win_rate_ci95"][0]),
                record_column(),
            ],
            "Each match decides ten games: those played and, after a fault, those left "
            "unplayed, which the rules give to the opponent (so games decided and games won "
            "count them). Games won % is the games won of those decided. Its 95% interval is "
            "Wilson's, which counts every game as independent; the games of a match are not, "
            "and a fault hands over up to ten at once, so the true uncertainty is wider.",
        )
