"""Where a live table's CPU goes, without the network: tables of a person against a built-in
bot, played on one event loop by their hosts (games/live/host.py), the person answering each
turn at once with their first action.

    .venv/bin/python bench/bench_table_cpu.py [--tables 100] [--runs 3]
                                              [--game rps-poker] [--bots strong,simple]

For each bot it prints the CPU milliseconds per turn of the person (the host, the runner, the
views and their JSON, and the bot's move), min and median over --runs; the difference between
two bots is the cost of the heavier one's thinking. A last profiled run (cProfile, CPU time)
of the first bot splits a turn between the bot's moves, the views built for the person
(``TableHost._view_message``: the frame, the actions, the cards) and their JSON text. What
the server adds on top (the websocket, Daphne, Channels, the database at a table's start and
end) is measured by bench/bench_tables.py and bench/bench_connections.py.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import json
import os
import pstats
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def setup() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cardsite.settings")
    import django

    django.setup()


async def table(game: str, bot: str, seed: int) -> int:
    """One match of a person who answers every turn at once: the person's turns."""
    from bots.running.playing import Entry
    from games.live.host import SeatPlan, TableHost
    from games.registry import get_game

    spec = get_game(game)
    actions: list[dict] = []
    turns = 0
    host: TableHost | None = None

    def publish(audience: str, text: str) -> None:
        nonlocal actions, turns
        if audience != "seat:0":
            return
        message = json.loads(text)
        if message["type"] == "state":
            actions = message["actions"]
        elif message["type"] == "turn" and actions:
            turns += 1
            choice = actions[0]["value"]
            loop = asyncio.get_running_loop()
            loop.call_soon(host.submit, 0, message["turn"], choice)  # type: ignore[union-attr]

    plans = [SeatPlan("person", "human"), SeatPlan(bot, "bot", Entry(name=bot, builtin=bot))]
    host = TableHost(spec, plans, seed=seed, publish=publish, watched=lambda audience: False)
    await host.run()
    return turns


async def tables(game: str, bot: str, count: int) -> int:
    return sum(await asyncio.gather(*(table(game, bot, seed) for seed in range(count))))


def per_turn(game: str, bot: str, count: int) -> float:
    start = time.process_time()
    turns = asyncio.run(tables(game, bot, count))
    return 1000 * (time.process_time() - start) / turns


def split(game: str, bot: str, count: int) -> dict[str, float]:
    """Shares of the CPU of a profiled run."""
    profile = cProfile.Profile(time.process_time)
    profile.enable()
    asyncio.run(tables(game, bot, count))
    profile.disable()
    stats = pstats.Stats(profile).stats  # type: ignore[attr-defined]
    total = sum(row[2] for row in stats.values())

    def cumulative(path_part: str, function: str) -> float:
        return sum(
            row[3]
            for (path, _line, name), row in stats.items()
            if path_part in path and name == function
        )

    return {
        # an in-process bot is asked in its agent's send (games/engine/agents.py)
        "the bot's moves": cumulative("engine/agents.py", "send"),
        "the views (frame, actions, cards)": cumulative("live/host.py", "_view_message")
        - cumulative("live/host.py", "message_text"),
        "JSON text of every message": cumulative("live/host.py", "message_text"),
        "total": total,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--game", default="rps-poker")
    parser.add_argument("--bots", default="strong,simple")
    args = parser.parse_args()
    setup()
    bots = args.bots.split(",")
    found: dict[str, list[float]] = {bot: [] for bot in bots}
    for _ in range(args.runs):
        for bot in bots:
            found[bot].append(per_turn(args.game, bot, args.tables))
    print(f"{args.game}: {args.tables} tables, a person answering at once against builtin:BOT")
    for bot, values in found.items():
        print(f"  builtin:{bot:<10} CPU per turn: min {min(values):.2f} ms, "
              f"median {statistics.median(values):.2f} ms")  # fmt: skip
    shares = split(args.game, bots[0], args.tables)
    total = shares.pop("total")
    print(f"profiled (builtin:{bots[0]}), share of the CPU:")
    for what, seconds in shares.items():
        print(f"  {what:<36} {100 * seconds / total:5.1f}%")


if __name__ == "__main__":
    main()
