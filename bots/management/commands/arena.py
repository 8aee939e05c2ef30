"""``manage.py arena``: a local round-robin tournament for bot authors. No database needed."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from bots.arena import Arena, ArenaError
from games.registry import game_slugs, get_game


class Command(BaseCommand):
    help = (
        "Play a round-robin tournament between bot files and built-in bots. "
        "BOT is a path to a bot file or builtin:NAME."
    )
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--game", required=True, choices=game_slugs())
        parser.add_argument("bots", nargs="+", metavar="BOT")
        parser.add_argument(
            "--rounds",
            type=int,
            default=100,
            help="rounds; in each, every pair of bots plays once (default 100)",
        )
        parser.add_argument(
            "--seed", type=int, default=None, help="tournament seed (default: random, printed)"
        )
        parser.add_argument(
            "--json", type=Path, metavar="PATH", help="write machine-readable results here"
        )
        parser.add_argument(
            "--logs",
            type=Path,
            metavar="DIR",
            help="write every match record and each bot's stderr here",
        )
        parser.add_argument("--no-progress", action="store_true", help="no progress bar")

    def handle(self, *args, **opts) -> None:
        game = get_game(opts["game"])
        rounds = opts["rounds"]
        if rounds < 1:
            raise CommandError("--rounds must be at least 1")
        seed = opts["seed"] if opts["seed"] is not None else random.SystemRandom().randrange(2**31)
        err = Console(stderr=True)
        stream = getattr(self.stdout, "_out", sys.stdout)
        out = Console(file=stream, width=None if stream.isatty() else 120)
        try:
            arena = Arena(game, opts["bots"], logs=opts["logs"])
        except ArenaError as exc:
            raise CommandError(str(exc)) from None
        with arena:
            total = arena.count(rounds)
            err.print(
                f"{game.title}: {len(arena.entrants)} bots, {rounds} rounds, "
                f"{total} matches, seed {seed}"
            )
            progress = Progress(
                TextColumn("[bold]{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeRemainingColumn(),
                console=err,
                transient=True,
                disable=opts["no_progress"] or not err.is_terminal,
            )
            with progress:
                task = progress.add_task("matches", total=total)
                summary = arena.run(
                    rounds, seed, on_match=lambda n, _o: progress.update(task, completed=n)
                )
        self._print_table(out, game.title, arena.format, summary)
        if opts["json"]:
            opts["json"].parent.mkdir(parents=True, exist_ok=True)
            opts["json"].write_text(json.dumps(summary, indent=2) + "\n")
            err.print(f"results written to {opts['json']}")
        if opts["logs"]:
            err.print(f"match records and bot logs in {opts['logs']}")

    def _print_table(self, out: Console, title: str, fmt, summary: dict) -> None:
        table = Table(
            title=f"{title}: {summary['matches']} matches in {summary['elapsed_s']:.1f} s"
            f" (seed {summary['seed']})",
            caption=None if fmt.higher_is_better else f"lower {fmt.score_label} is better",
        )
        table.add_column("rank", justify="right")
        table.add_column("bot")
        columns = fmt.columns()
        for header, _ in columns:
            table.add_column(header, justify="right")
        for rank, bot in enumerate(summary["bots"], 1):
            table.add_row(str(rank), bot["name"], *(show(bot) for _, show in columns))
        out.print(table)
