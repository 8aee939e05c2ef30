"""Ultimate Texas Hold'em tournaments in the duplicate format.

Luck dominates a single session, so every bot plays the *same* seeded sessions: session s
of every bot uses the same seed, hence the same cards in every round it reaches. Bots are
ranked by mean net chips per round (over every round they played) with a 95% confidence
interval, shown next to the sessions they survived (completed with chips left).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from games.engine.runner import MatchOutcome
from games.engine.tournament import (
    NO_INTERVAL,
    Column,
    Format,
    Standing,
    Statistics,
    Table,
    derive_seed,
    faults_column,
    mean_interval,
    mean_sd_se,
    no_interval,
    number,
)


class Duplicate(Format):
    min_bots = 1
    #: what the arena's count of rounds means here (printed by `manage.py arena`)
    count_label = "sessions"
    score_label = "net chips/round"
    #: alone against the dealer, on the same deals: ranked by the chips, not by a rating
    ranked_by_rating = False
    #: rounds below which a bot's mean is no estimate to rank by
    MIN_ROUNDS = 30

    def schedule(self, entrants: int, rounds: int, seed: int) -> Iterator[Table]:
        """``rounds`` is the number of sessions; every entrant plays each with one seed."""
        for session in range(rounds):
            deal_seed = derive_seed(seed, "uth-session", session)
            for i in range(entrants):
                yield Table(round=session, seats=(i,), seed=deal_seed)

    def count(self, entrants: int, rounds: int) -> int:
        return entrants * rounds

    def tally_scores(self, seated: Sequence[Standing], outcome: MatchOutcome) -> None:
        (standing,) = seated
        result = outcome.result
        nets = [float(n) for n in result["nets"]]
        totals = standing.extra
        totals["rounds"] = totals.get("rounds", 0) + len(nets)
        totals["sum"] = totals.get("sum", 0.0) + sum(nets)
        totals["sum_sq"] = totals.get("sum_sq", 0.0) + sum(n * n for n in nets)
        totals["survived"] = totals.get("survived", 0) + bool(result["survived"])
        totals["chips"] = totals.get("chips", 0.0) + float(result["chips"])
        standing.games += len(nets)
        if result["survived"]:
            standing.wins += 1
        else:
            standing.losses += 1
        standing.score = mean_and_interval(totals)[0]

    def bot_json(self, standing: Standing) -> dict[str, Any]:
        totals = standing.extra
        mean, low, high, sd = mean_and_interval(totals)
        return standing.common_json() | {
            "score": round(mean, 4),
            "mean_net_per_round": round(mean, 4),
            # None before a second round, and while every round netted the same
            "mean_net_ci95": None if low is None else [round(low, 4), round(high, 4)],
            "sd_per_round": round(sd, 4),
            "rounds_played": totals.get("rounds", 0),
            "sessions": standing.matches,
            "sessions_survived": totals.get("survived", 0),
            "mean_final_chips": round(totals.get("chips", 0.0) / standing.matches, 2)
            if standing.matches
            else None,
        }

    def interval(self, bot: dict[str, Any]) -> tuple[float, float] | None:
        if bot.get("rounds_played", 0) < self.MIN_ROUNDS or no_interval(bot["mean_net_ci95"]):
            return None
        low, high = bot["mean_net_ci95"]
        return low, high

    def columns(self) -> list[Column]:
        def score(bot: dict[str, Any]) -> str:
            return f"{bot['mean_net_per_round']:+.2f} ({interval(bot)})"

        return [
            Column("net chips/round (95% CI)", score, lambda b: b["mean_net_per_round"]),
            Column(
                "sessions survived",
                lambda b: f"{b['sessions_survived']}/{b['sessions']}",
                lambda b: b["sessions_survived"],
            ),
            number("rounds", "rounds_played", "{:,}"),
            faults_column(),
        ]

    def statistics(self) -> Statistics:
        final = Column(
            "mean final chips",
            lambda b: "-" if b["mean_final_chips"] is None else f"{b['mean_final_chips']:,.2f}",
            lambda b: b["mean_final_chips"],
        )
        return Statistics(
            [
                number("rounds", "rounds_played", "{:,}"),
                # (signed, as the ranking shows it: a net is a gain or a loss)
                number("mean net chips/round", "mean_net_per_round", "{:+.2f}"),
                Column("95% interval", interval, interval_low),
                number("SD/round", "sd_per_round"),
                number("sessions", "sessions", "{:,}"),
                number("survived", "sessions_survived", "{:,}"),
                final,
            ],
            "Net chips per round over every round played; the interval is a 95% one.",
        )


def interval(bot: dict[str, Any]) -> str:
    """A bot's 95% interval as a cell's text, or that there is none yet."""
    if no_interval(bot["mean_net_ci95"]):
        return NO_INTERVAL
    low, high = bot["mean_net_ci95"]
    return f"{low:+.2f} to {high:+.2f}"


def interval_low(bot: dict[str, Any]) -> float | None:
    return None if no_interval(bot["mean_net_ci95"]) else bot["mean_net_ci95"][0]


def mean_and_interval(
    totals: dict[str, Any],
) -> tuple[float, float | None, float | None, float]:
    """Mean net per round, its 95% interval (``mean_interval``: Student's t; None, None
    before a second round and while every round netted the same) and the per-round SD."""
    n = totals.get("rounds", 0)
    if n == 0:
        return 0.0, None, None, 0.0
    mean, sd, _ = mean_sd_se(totals["sum"], totals["sum_sq"], n)
    found = mean_interval(mean, sd, n)
    return (mean, None, None, sd) if found is None else (mean, *found, sd)
