"""Last Card tournaments, as in the original kit: games at tables of four, scored by the
average penalty points taken per game (lower is better), with the kit's statistics.

With four bots every game seats all of them and the seats rotate. With more, games come in
rounds of one game per bot: each round shuffles the bots into a circle and seats every run
of four neighbours once, so each bot plays four games a round, once in each seat. The games
asked for are rounded up to whole rounds, so that every bot plays equally often.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from games.engine.runner import MatchOutcome
from games.engine.tournament import (
    Column,
    Format,
    Standing,
    Statistics,
    Table,
    derive_seed,
    faults_column,
    interval_column,
    mean_interval,
    mean_sd_se,
    number,
)
from games.last_card.rules import STATISTICS

TABLE = 4
#: games won, a share of the games played (``games_won`` is its mean: 0 or 1 a game)
GAMES_WON = "{:.0%}"


class Tables(Format):
    min_bots = TABLE
    score_label = "points taken"
    higher_is_better = False
    #: the arena counts this format in games (``--games``), not rounds
    count_label = "games"
    #: tables seat more than a pair: the arena's ``--fill`` makes up the missing bots
    fills_seats = True
    too_few_hint = (
        f" (Last Card tables seat {TABLE}): name more bots or fill the table with "
        "--fill builtin:naive"
    )

    def __init__(self) -> None:
        #: per game, for the logs: (game id, seat names, result)
        self.games: list[tuple[int, list[str], dict[str, Any]]] = []

    def rounds(self, entrants: int, games: int) -> int:
        return -(-games // entrants)

    def count(self, entrants: int, games: int) -> int:
        return games if entrants == TABLE else self.rounds(entrants, games) * entrants

    def schedule(self, entrants: int, games: int, seed: int) -> Iterator[Table]:
        if entrants < TABLE:
            raise ValueError(f"Last Card tables need {TABLE} bots, got {entrants}")
        total = self.count(entrants, games)
        for r in range(self.rounds(entrants, games)):
            circle = list(range(entrants))
            random.Random(derive_seed(seed, "circle", r)).shuffle(circle)
            for g in range(entrants):
                number = r * entrants + g
                if number >= total:
                    return
                seats = tuple(circle[(g + i) % entrants] for i in range(TABLE))
                yield Table(round=r, seats=seats, seed=derive_seed(seed, number))

    def tally_scores(self, seated: Sequence[Standing], outcome: MatchOutcome) -> None:
        result = outcome.result
        for seat, standing in enumerate(seated):
            stats = result["stats"][seat]
            totals = standing.extra.setdefault("totals", dict.fromkeys(STATISTICS, 0))
            for key in STATISTICS:
                totals[key] += stats[key]
            points = stats["points_taken"]
            spread = standing.extra.setdefault("points", [0, 0.0, 0.0])  # n, sum, squares
            spread[0] += 1
            spread[1] += points
            spread[2] += points * points
            standing.games += 1
            if result["winner"] == seat:
                standing.wins += 1
            elif result["winner"] is None:
                standing.draws += 1
            else:
                standing.losses += 1
            standing.score = round(totals["points_taken"] / standing.games, 6)

    def bot_json(self, standing: Standing) -> dict[str, Any]:
        totals = standing.extra.get("totals", dict.fromkeys(STATISTICS, 0))
        games = standing.games or 1
        return (
            standing.common_json()
            | {key: round(totals[key] / games, 6) for key in STATISTICS}
            | {"points_taken_ci95": points_interval(standing)}
        )

    def columns(self) -> list[Column]:
        """The kit's statistics: the share of games won, and the others averaged per game,
        each header saying which (the logs and the JSON spell them out)."""

        return [
            interval_column(
                "points taken per game (95% CI)", "score", "points_taken_ci95", "{:.2f}"
            ),
            number("games won", "games_won", GAMES_WON),
            number("passes per game", "pass_moves"),
            number("cards played per game", "cards_played"),
            number("illegal moves per game", "illegal_moves"),
            number("times punished per game", "times_punished"),
            number("punishment cards per game", "punishment_taken"),
            number("hand points per game", "hand_value_pts"),
            number("last card points per game", "last_card_pts"),
            faults_column(),
        ]

    def board_columns(self) -> list[Column]:
        """The points taken, the games won and the faults: the kit's other statistics are
        in the statistics table under the leaderboard (all of them did not fit a desktop)."""
        score, won, *_, faults = self.columns()
        return [score, won, faults]

    def statistics(self) -> Statistics:
        """The kit's statistics under its own names, averaged per game."""
        named = [
            ("pass moves", "pass_moves"),
            ("cards played", "cards_played"),
            ("illegal moves", "illegal_moves"),
            ("times punished", "times_punished"),
            ("punishment taken", "punishment_taken"),
            ("games won", "games_won"),
            ("hand value pts", "hand_value_pts"),
            ("last card pts", "last_card_pts"),
            ("points taken", "points_taken"),
        ]
        return Statistics(
            [
                number("games", "games", "{:,}"),
                *(number(t, k, GAMES_WON if k == "games_won" else "{:.2f}") for t, k in named),
            ],
            "Games won as a share of the games played, the others averages per game played; "
            "the lowest points taken wins.",
        )

    # ---- logs (called by the arena with --logs) -----------------------------------------
    def log_match(self, folder: Path, number: int, outcome: MatchOutcome) -> None:
        from games.last_card.logs import write_game

        names = [seat["name"] for seat in outcome.record["seats"]]
        self.games.append((number, names, outcome.result))
        write_game(folder, number, names, outcome.state)

    def write_logs(self, folder: Path, summary: dict[str, Any]) -> None:
        from games.last_card.logs import write_tournament

        write_tournament(folder, summary, self.games)


def points_interval(standing: Standing) -> list[float] | None:
    """The 95% interval of a bot's mean points taken per game (``mean_interval``: Student's
    t over its games, each dealt afresh), from 0 up: no game takes fewer points. None before
    its second game, and while every game took the same points (nothing bounds them above)."""
    n, total, squares = standing.extra.get("points", (0, 0.0, 0.0))
    if n < 2:
        return None
    mean, sd, _ = mean_sd_se(total, squares, n)
    found = mean_interval(mean, sd, n, low=0.0)
    return None if found is None else [round(v, 6) for v in found]
