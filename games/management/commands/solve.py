"""``manage.py solve GAME``: solve Kuhn poker, Leduc hold'em or Blackjack++ with CFR / CFR+."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from games.blackjack_pp.dump import write_strategy_tree
from games.blackjack_pp.tree import BlackjackPP
from games.solver.cfr import ALGORITHMS, Solver
from games.solver.export import ALGORITHM_NAMES, result_document, strategy_table, write_json
from games.solver.tree import TreeError, build
from games.solver_games import GameChoiceError, make_game, titles


class Command(BaseCommand):
    help = (
        "Solve a game with CFR or CFR+: builds the game tree, trains, and prints the root "
        "payoffs, tree size, build and training time and the exploitability. GAME is one of "
        + ", ".join(titles())
        + "."
    )
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("game", metavar="GAME", help=", ".join(titles()))
        parser.add_argument(
            "--algorithm",
            default="cfr+",
            help=f"{' | '.join(ALGORITHMS)} (default cfr+; dcfr is discounted CFR)",
        )
        parser.add_argument(
            "--iterations", type=int, default=1000, metavar="N", help="default 1000"
        )
        parser.add_argument(
            "--json", type=Path, metavar="PATH", help="write the solved strategy as JSON here"
        )
        parser.add_argument(
            "--out",
            type=Path,
            metavar="DIR",
            help="blackjack-pp: write the strategy as one folder per history",
        )
        parser.add_argument(
            "--up",
            metavar="CARDS",
            help="blackjack-pp: up cards of player 0, player 1 and the dealer (default 6,6,2)",
        )
        parser.add_argument(
            "--max-hits", type=int, metavar="K", help="blackjack-pp: 1, 2 or 3 (default 2)"
        )
        parser.add_argument("--no-progress", action="store_true", help="no progress bar")

    def handle(self, *args: Any, **opts: Any) -> None:
        algorithm = opts["algorithm"].lower()
        if algorithm not in ALGORITHMS:
            raise CommandError(
                f"unknown algorithm {opts['algorithm']!r}: choose {', '.join(ALGORITHMS)}"
            )
        iterations = opts["iterations"]
        if iterations < 1:
            raise CommandError(f"--iterations must be at least 1 (got {iterations})")
        try:
            game = make_game(opts["game"], up=opts["up"], max_hits=opts["max_hits"])
        except GameChoiceError as exc:
            raise CommandError(str(exc)) from None
        if opts["out"] is not None and not isinstance(game, BlackjackPP):
            raise CommandError("--out writes Blackjack++ strategies: use --json for this game")

        err = Console(stderr=True)
        stream = getattr(self.stdout, "_out", sys.stdout)
        out = Console(file=stream, width=None if stream.isatty() else 100)
        heading = game.title
        if isinstance(game, BlackjackPP):
            up = ",".join(str(c) for c in game.settings()["up"])
            heading += f" (up cards {up}, max hits {game.max_hits})"
        try:
            if opts["no_progress"] or not err.is_terminal:
                tree = build(game)
            else:
                with err.status(f"{heading}: building the game tree"):
                    tree = build(game)
        except TreeError as exc:
            raise CommandError(str(exc)) from None
        solver = Solver(tree, algorithm)
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
            task = progress.add_task(ALGORITHM_NAMES[algorithm], total=iterations)
            solver.train(iterations, progress=lambda n: progress.update(task, completed=n))
        document = result_document(game, solver)
        self._print(out, heading, document)
        if opts["json"] is not None:
            write_json(opts["json"], document)
            err.print(f"strategy written to {opts['json']}")
        if opts["out"] is not None:
            started = time.perf_counter()
            assert isinstance(game, BlackjackPP)
            count = write_strategy_tree(
                opts["out"],
                game,
                strategy_table(tree, solver.average_strategy()),
                ALGORITHM_NAMES[algorithm],
                solver.iterations,
            )
            err.print(
                f"{count} strategy files written under {opts['out']} "
                f"in {time.perf_counter() - started:.1f} s"
            )

    def _print(self, out: Console, heading: str, doc: dict[str, Any]) -> None:
        size = doc["tree"]
        table = Table(
            title=f"{heading}: {ALGORITHM_NAMES[doc['algorithm']]}, {doc['iterations']} iterations",
            show_header=False,
        )
        table.add_column(style="bold")
        table.add_column()
        v0, v1 = doc["value"]
        table.add_row("root payoffs", f"player 0 {v0:+.6f}, player 1 {v1:+.6f}")
        if doc["expected"]:
            table.add_row(
                "expected",
                ", ".join(f"{name} {value:.6f}" for name, value in doc["expected"].items()),
            )
        table.add_row(
            "tree",
            f"{size['histories']:,} histories ({size['decision_nodes']:,} decision, "
            f"{size['chance_nodes']:,} chance, {size['terminals']:,} terminal)",
        )
        table.add_row("", f"{size['infosets']:,} information sets")
        table.add_row("build time", f"{doc['build_seconds']:.3f} s")
        per = doc["train_seconds"] / max(doc["iterations"], 1) * 1000
        table.add_row("training time", f"{doc['train_seconds']:.3f} s ({per:.3f} ms per iteration)")
        table.add_row("exploitability", f"{doc['exploitability']:.3g}")
        out.print(table)
