"""Last Card games per second with the built-in bots, and how the heuristic bot fares.

    .venv/bin/python bench/bench_last_card.py [--games N] [--repeat K] [--process-games M]

Plays heuristic against three naive bots at one table (seats rotate every game) through the
arena: in-process, then with every bot in its own child process speaking the JSON-lines
protocol. Prints the best of K in-process runs, one child-process run, and the average
points taken per game of each bot (lower is better) with a 95% confidence interval.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cardsite.settings")

from bots.arena import Arena
from games.engine.tournament import mean_sd_se
from games.registry import get_game

BOTS = ["builtin:heuristic", "builtin:naive", "builtin:naive", "builtin:naive"]


def run(in_process: bool, games: int, seed: int) -> tuple[float, Arena, dict]:
    game = get_game("last-card")
    with Arena(game, BOTS, in_process_builtins=in_process) as arena:
        per_game: dict[str, list[float]] = {e.name: [] for e in arena.entrants}

        def keep(_n: int, outcome) -> None:
            for seat, seat_name in enumerate(outcome.record["seats"]):
                per_game[seat_name["name"]].append(outcome.result["scores"][seat])

        started = time.perf_counter()
        summary = arena.run(games, seed, on_match=keep)
        elapsed = time.perf_counter() - started
    assert summary["matches"] == games
    summary["per_game"] = per_game
    return games / elapsed, arena, summary


def mean_ci(values: list[float]) -> tuple[float, float]:
    mean, _, se = mean_sd_se(sum(values), sum(v * v for v in values), len(values))
    return mean, 1.96 * se


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--process-games", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(
        f"Last Card, heuristic vs 3 x naive, {args.games} games, best of {args.repeat}, "
        f"Python {sys.version.split()[0]}, {os.cpu_count()} cores"
    )
    runs = [run(True, args.games, args.seed) for _ in range(args.repeat)]
    best = max(r[0] for r in runs)
    print(f"in-process:      {best:8.1f} games/s")
    rate, _, _ = run(False, args.process_games, args.seed)
    print(f"child processes: {rate:8.1f} games/s ({args.process_games} games)")
    summary = runs[0][2]
    print(f"\npoints taken per game over {args.games} games (seed {args.seed}), lower is better:")
    for bot in summary["bots"]:
        mean, half = mean_ci(summary["per_game"][bot["name"]])
        print(
            f"  {bot['name']:10s} {mean:6.3f} +- {half:.3f}   won {100 * bot['games_won']:5.1f}%"
            f"   illegal moves/game {bot['illegal_moves']:.3f}"
        )


if __name__ == "__main__":
    main()
