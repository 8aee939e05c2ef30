"""``manage.py solve GAME``: solve a game with CFR / CFR+ (the games whose spec has a solver).

A game's own options (``SolverSpec.options``) are flags here, and what ``--out`` writes is the
game's ``SolverSpec.export``: this command names no game."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from games.solver.cfr import ALGORITHMS, Solver
from games.solver.export import ALGORITHM_NAMES, result_document, strategy_table, write_json
from games.solver.tree import TreeError, build
from games.solver_games import (
    GameChoiceError,
    canonical,
    make_game,
    options_by_name,
    solvers,
    titles,
)

#: the command's own options (a game's option may not take one of these names)
OWN = ("game", "algorithm", "iterations", "json", "out", "no_progress")


def exporters() -> dict[str, str]:
    """Slug -> what ``--out`` writes, for the games that export."""
    return {
        slug: solver.export_help or "write the strategy"
        for slug, solver in solvers().items()
        if solver.export is not None
    }


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
        exports = exporters()
        if exports:
            parser.add_argument(
                "--out",
                type=Path,
                metavar="DIR",
                help="; ".join(f"{slug}: {text}" for slug, text in exports.items()),
            )
        self._add_game_options(parser)
        parser.add_argument("--no-progress", action="store_true", help="no progress bar")

    def _add_game_options(self, parser: CommandParser) -> None:
        """One flag per option of the solvable games (a flag several games take is added
        once; they must agree on how it reads)."""
        for name, declared in options_by_name().items():
            first = declared[0][1]
            if name in OWN or first.flag.lstrip("-").replace("-", "_") in OWN:
                raise CommandError(
                    f"{declared[0][0]}: a game's option may not be named like the command's "
                    f"own {first.flag}"
                )
            differ = [
                slug
                for slug, option in declared
                if (option.flag, option.parse, option.metavar)
                != (first.flag, first.parse, first.metavar)
            ]
            if differ:
                raise CommandError(
                    f"{first.flag} reads differently for {declared[0][0]} and {', '.join(differ)}"
                )
            parser.add_argument(
                first.flag,
                dest=name,
                type=first.parse,
                metavar=first.metavar,
                help="; ".join(
                    f"{slug}: {option.help}"
                    + ("" if option.default is None else f" (default {option.default})")
                    for slug, option in declared
                ),
            )

    def handle(self, *args: Any, **opts: Any) -> None:
        algorithm = opts["algorithm"].lower()
        if algorithm not in ALGORITHMS:
            raise CommandError(
                f"unknown algorithm {opts['algorithm']!r}: choose {', '.join(ALGORITHMS)}"
            )
        iterations = opts["iterations"]
        if iterations < 1:
            raise CommandError(f"--iterations must be at least 1 (got {iterations})")
        options = {name: opts.get(name) for name in options_by_name()}
        try:
            slug = canonical(opts["game"])
            game = make_game(slug, **options)
        except GameChoiceError as exc:
            raise CommandError(str(exc)) from None
        solver_spec = solvers()[slug]
        out_dir = opts.get("out")
        if out_dir is not None and solver_spec.export is None:
            exporting = [titles()[g] for g in exporters()]
            raise CommandError(
                f"--out writes {' and '.join(exporting)} strategies: use --json for this game"
            )

        err = Console(stderr=True)
        stream = getattr(self.stdout, "_out", sys.stdout)
        out = Console(file=stream, width=None if stream.isatty() else 100)
        heading = game.title
        settings = game.settings()
        named = [o.plain(settings[o.name]) for o in solver_spec.options if o.name in settings]
        if named:
            heading += f" ({', '.join(named)})"
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
        if out_dir is not None:
            assert solver_spec.export is not None
            started = time.perf_counter()
            count = solver_spec.export(
                out_dir,
                game,
                strategy_table(tree, solver.average_strategy()),
                ALGORITHM_NAMES[algorithm],
                solver.iterations,
            )
            err.print(
                f"{count} strategy files written under {out_dir} "
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
