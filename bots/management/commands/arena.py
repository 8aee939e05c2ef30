"""``manage.py arena``: a local round-robin tournament for bot authors. No database needed."""

from __future__ import annotations

import json
import os
import random
import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table
from rich.text import Text

from bots.arena import Arena, ArenaError
from bots.arenaconfig import ConfigError, apply_config
from games.engine import untrusted
from games.registry import game_slugs, games, get_game


class Command(BaseCommand):
    help = (
        "Play a round-robin tournament between bot files and built-in bots. "
        "BOT is a path to a bot file (.py or .js) or builtin:NAME. Bot files run in the "
        "sandbox unless --no-sandbox is given."
    )
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--game", choices=game_slugs(), help="the game (or from --config)")
        parser.add_argument("bots", nargs="*", metavar="BOT")
        parser.add_argument(
            "--games", type=int, metavar="N", help="Last Card: games at tables of 4 (default 100)"
        )
        parser.add_argument(
            "--fill", metavar="BOT", help="fill a table short of bots with copies of this bot"
        )
        parser.add_argument(
            "--config",
            type=Path,
            metavar="JSON",
            help='the original kit\'s file: {"game": ..., "ai_dirs": [...], "ai": [...], '
            '"num_games": N}',
        )
        parser.add_argument(
            "--rounds",
            type=int,
            default=100,
            help="rounds; in each, every pair of bots plays once (default 100)",
        )
        parser.add_argument(
            "--sessions",
            type=int,
            default=None,
            help="Ultimate Texas Hold'em (instead of --rounds): sessions each bot plays, "
            "every bot on the same deals (default 10)",
        )
        parser.add_argument(
            "--rounds-per-session",
            type=int,
            default=None,
            help="Ultimate Texas Hold'em: rounds in a session (default 1000)",
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
        parser.add_argument(
            "--jobs",
            type=int,
            default=None,
            metavar="N",
            help="play matches in N processes at once (default: one per core); the results "
            "are the same whatever N",
        )
        parser.add_argument("--no-progress", action="store_true", help="no progress bar")
        parser.add_argument(
            "--no-sandbox",
            action="store_true",
            help="run bot files as plain child processes, outside the sandbox "
            "(only for debugging your own bots)",
        )

    def handle(self, *args, **opts) -> None:
        try:
            notes = apply_config(opts) if opts["config"] else []
        except ConfigError as exc:
            raise CommandError(str(exc)) from None
        if not opts["game"] or not opts["bots"]:
            raise CommandError("name the --game and the BOTs (or give a --config file)")
        game = get_game(opts["game"])
        unit = getattr(game.tournament, "count_label", "rounds")
        if opts["games"] is not None and unit != "games":
            raise CommandError(f"{game.slug} counts --rounds, not --games")
        rounds = opts["rounds"] if opts["games"] is None else opts["games"]
        if rounds < 1:
            raise CommandError(f"--{unit} must be at least 1")
        if opts["fill"] and game.tournament is not None:
            opts["bots"] += [opts["fill"]] * (game.tournament.min_bots - len(opts["bots"]))
        config: dict = {}
        if game.session_rounds:  # a match is a session of rounds (UTH)
            rounds = 10 if opts["sessions"] is None else opts["sessions"]
            per_session = opts["rounds_per_session"]
            config["max_rounds"] = game.session_rounds if per_session is None else per_session
            if rounds < 1 or config["max_rounds"] < 1:
                raise CommandError("--sessions and --rounds-per-session must be at least 1")
        elif opts["sessions"] is not None or opts["rounds_per_session"] is not None:
            sessions = ", ".join(g.slug for g in games() if g.session_rounds)
            raise CommandError(f"--sessions and --rounds-per-session are for --game {sessions}")
        jobs = opts["jobs"] if opts["jobs"] is not None else len(os.sched_getaffinity(0))
        if jobs < 1:
            raise CommandError("--jobs must be at least 1")
        seed = opts["seed"] if opts["seed"] is not None else random.SystemRandom().randrange(2**31)
        err = Console(stderr=True)
        for note in notes:
            err.print(note)
        stream = getattr(self.stdout, "_out", sys.stdout)
        out = Console(file=stream, width=None if stream.isatty() else 120)
        try:
            arena = Arena(
                game,
                opts["bots"],
                logs=opts["logs"],
                sandbox=not opts["no_sandbox"],
                config=config,
            )
        except ArenaError as exc:
            raise CommandError(str(exc)) from None
        with arena:
            total = arena.count(rounds)
            err.print(
                f"{game.title}: {len(arena.entrants)} bots, {rounds} {unit}, "
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
                    rounds,
                    seed,
                    on_match=lambda n, _o: progress.update(task, completed=n),
                    jobs=jobs,
                )
        self._print_table(out, game.title, arena.format, summary)
        if opts["json"]:
            opts["json"].parent.mkdir(parents=True, exist_ok=True)
            opts["json"].write_text(json.dumps(summary, indent=2) + "\n")
            err.print(f"results written to {opts['json']}")
        if opts["logs"]:
            err.print(f"match records and bot logs in {opts['logs']}")
        _print_faults(err, summary)

    def _print_table(self, out: Console, title: str, fmt, summary: dict) -> None:
        table = Table(
            title=f"{title}: {summary['matches']} matches in {summary['elapsed_s']:.1f} s"
            f" (seed {summary['seed']})",
            caption=None if fmt.higher_is_better else f"lower {fmt.score_label} is better",
        )
        table.add_column("rank", justify="right")
        table.add_column("bot", no_wrap=True)
        columns = fmt.columns()
        for column in columns:
            table.add_column(column.title, justify="right")
        for rank, bot in enumerate(summary["bots"], 1):
            name = untrusted.printable(bot["name"]) + (" (faulty)" if bot.get("faulty") else "")
            table.add_row(str(rank), Text(name), *(column.show(bot) for column in columns))
        out.print(table)


def _print_faults(err: Console, summary: dict) -> None:
    """One line per bot and kind of fault it made: how many, and the first one's reason
    (which names the call and what was wrong with the answer), its match and where that
    match's record and the bot's stderr log are, or how to keep them."""
    for bot in summary["bots"]:
        details = bot.get("fault_details") or {}
        for kind, note in details.items():
            faulty = " (faulted in most of its matches)" if bot.get("faulty") else ""
            times = "once" if note["count"] == 1 else f"{note['count']} times"
            line = (
                f"{bot['name']}{faulty}: {kind} {times} in {bot['matches']} matches; first in "
                f"match {note['first_match']}: {note['reason']}"
            )
            if note["match_file"]:
                line += f" (match record {note['match_file']}"
                line += f", stderr log {note['stderr_log']})" if note["stderr_log"] else ")"
            else:
                line += " (--logs DIR keeps every match record and each bot's stderr log)"
            # a bot's name and reasons are its own text: shown, never interpreted, and kept
            # on one line whatever the terminal's width
            err.print(Text(untrusted.printable(line)), soft_wrap=True)
