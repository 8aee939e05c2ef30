"""``manage.py solve GAME``: solve a game with CFR / CFR+ (the games whose spec has a solver).

A game's own options (``SolverSpec.options``) are flags here, what ``--out`` writes is the
game's ``SolverSpec.export``, and how ``--bot`` finds a deal's table in the bot it writes is
the game's ``SolverSpec.bot``: this command names no game."""

from __future__ import annotations

import sys
import time
from itertools import product
from pathlib import Path
from typing import Any

from django.core.management.base import CommandError, CommandParser
from rich.console import Console
from rich.table import Table

from games.engine import interrupts
from games.engine.progress import progress_bar
from games.engine.spec import SolverOption, SolverSpec
from games.engine.terminal import console_width, wrapped
from games.management.wrapped import WrappedErrorCommand
from games.solver.botfile import DIGITS, BotFile, render, written_here
from games.solver.cfr import ALGORITHMS
from games.solver.export import ALGORITHM_NAMES, result_document, strategy_table, write_json
from games.solver.game import Game
from games.solver.public import AnySolver, solver_for
from games.solver.tree import TreeError
from games.solver_games import (
    GameChoiceError,
    canonical,
    make_game,
    options_by_name,
    solvers,
    titles,
)

#: the command's own options (a game's option may not take one of these names)
OWN = (
    "game",
    "algorithm",
    "iterations",
    "json",
    "out",
    "bot",
    "bot_digits",
    "every",
    "values",
    "target",
    "history_tree",
    "no_progress",
)

#: with --target, the exploitability is also measured every this many iterations
TARGET_EVERY = 10


def exporters() -> dict[str, str]:
    """Slug -> what ``--out`` writes, for the games that export."""
    return {
        slug: solver.export_help or "write the strategy"
        for slug, solver in solvers().items()
        if solver.export is not None
    }


class Command(WrappedErrorCommand):
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
            "--target",
            type=float,
            metavar="EPS",
            help="stop once the exploitability is at most EPS (measured every "
            f"{TARGET_EVERY} iterations); --iterations is then the most it runs",
        )
        parser.add_argument(
            "--history-tree",
            action="store_true",
            help="solve on the tree of every history even where the game has a public tree "
            "(the same result, slower: what the public tree is checked against)",
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
        parser.add_argument(
            "--bot",
            type=Path,
            metavar="PATH",
            help="write a standalone bot file (standard library only) that plays the solved "
            "strategy from a table embedded in it: it runs in the sandbox and can be uploaded",
        )
        parser.add_argument(
            "--bot-digits",
            type=int,
            default=DIGITS,
            metavar="D",
            help=f"the bot's probabilities are rounded to D digits (1-6, default {DIGITS}); "
            "fewer make a smaller file",
        )
        parser.add_argument(
            "--every",
            metavar="OPTION",
            help="with --bot: solve once for every value of the game's OPTION (each "
            "combination of its parts) and embed them all, one table per value",
        )
        parser.add_argument(
            "--values",
            nargs="+",
            metavar="V",
            help="with --every: only these values of the OPTION (as its flag takes them)",
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
        #: where the solve is, for the line said if it is stopped (Ctrl-C, a SIGTERM)
        self._at = "before the solve began"
        self._written: list[str] = []
        with interrupts.interruptible():
            try:
                self._solve(opts)
            except KeyboardInterrupt as exc:
                written = ", ".join(self._written)
                wrote = f"written: {written}" if written else "nothing was written"
                line = f"interrupted {self._at}; {wrote}"
                interrupts.stop(wrapped(line, console_width(self.stderr)), exc, self.stderr)

    def _trained(self, done: int, of: int) -> None:
        """``done`` of ``of`` iterations trained (for the line said if it is stopped)."""
        self._at = f"after {done} of {of} iterations"

    def _wrote(self, what: str) -> None:
        """``what`` (a file, a folder) is written (said if the command is stopped after)."""
        self._written.append(what)

    def _solve(self, opts: dict[str, Any]) -> None:
        algorithm = opts["algorithm"].lower()
        if algorithm not in ALGORITHMS:
            raise CommandError(
                f"unknown algorithm {opts['algorithm']!r}: choose {', '.join(ALGORITHMS)}"
            )
        iterations = opts["iterations"]
        if iterations < 1:
            raise CommandError(f"--iterations must be at least 1 (got {iterations})")
        target = opts.get("target")
        if target is not None and not target > 0:
            raise CommandError(f"--target must be more than 0 (got {target})")
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

        every = self._check_bot_options(slug, solver_spec, opts)

        err = Console(stderr=True)
        if every is not None:
            self._write_every(err, slug, solver_spec, every, options, algorithm, iterations, opts)
            return
        stream = getattr(self.stdout, "_out", sys.stdout)
        # as wide as the other commands' lines: the terminal, else COLUMNS, else 80
        out = Console(file=stream, width=None if stream.isatty() else console_width(stream))
        heading = game.title
        settings = game.settings()
        named = [o.plain(settings[o.name]) for o in solver_spec.options if o.name in settings]
        if named:
            heading += f" ({', '.join(named)})"
        history_tree = opts.get("history_tree", False)
        self._at = "while building the game tree"
        try:
            if opts["no_progress"] or not err.is_terminal:
                solver = solver_for(game, algorithm, history_tree)
            else:
                with err.status(f"{heading}: building the game tree"):
                    solver = solver_for(game, algorithm, history_tree)
        except TreeError as exc:
            raise CommandError(str(exc)) from None
        tree = solver.tree
        progress = progress_bar(err, opts["no_progress"])
        self._trained(0, iterations)

        def trained(done: int) -> None:
            progress.update(task, completed=done)
            self._trained(done, iterations)

        with progress:
            task = progress.add_task(ALGORITHM_NAMES[algorithm], total=iterations)
            solver.train(
                iterations,
                progress=trained,
                target=target,
                every=None if target is None else TARGET_EVERY,
            )
        solved = self._at = f"after the solve ({solver.iterations} iterations)"
        document = result_document(game, solver, infosets=opts["json"] is not None)
        self._print(out, heading, document)
        if opts["json"] is not None:
            write_json(opts["json"], document)
            self._wrote(str(opts["json"]))
            err.print(f"strategy written to {opts['json']}")
        if out_dir is not None:
            assert solver_spec.export is not None
            self._at = f"{solved}, while writing {out_dir} (part of it may be there)"
            started = time.perf_counter()
            count = solver_spec.export(
                out_dir,
                game,
                strategy_table(tree, solver.average_strategy()),
                ALGORITHM_NAMES[algorithm],
                solver.iterations,
            )
            self._wrote(str(out_dir))
            self._at = solved
            err.print(
                f"{count} strategy files written under {out_dir} "
                f"in {time.perf_counter() - started:.1f} s"
            )
        if opts["bot"] is not None:
            started = time.perf_counter()
            key, table = self._table(solver_spec, game, solver)
            written = self._write_bot(
                opts["bot"], slug, solver_spec, {key: table}, algorithm, iterations, opts
            )
            self._say(self._bot_line(opts["bot"], written, time.perf_counter() - started))

    def _say(self, text: str) -> None:
        """A line of the command's own on stdout, wrapped between words to the terminal."""
        self.stdout.write(wrapped(text, console_width(self.stdout)))

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
        for n, (name, value) in enumerate(doc["expected"].items()):  # a seat a line
            table.add_row("" if n else "expected", f"{name} {value:.6f}")
        table.add_row(
            "tree",
            f"{size['histories']:,} histories ({size['decision_nodes']:,} decision, "
            f"{size['chance_nodes']:,} chance, {size['terminals']:,} terminal)",
        )
        table.add_row("", f"{size['infosets']:,} information sets")
        table.add_row("", f"{size['stored_nodes']:,} nodes stored")
        table.add_row("build time", f"{doc['build_seconds']:.3f} s")
        per = doc["train_seconds"] / max(doc["iterations"], 1) * 1000
        table.add_row("training time", f"{doc['train_seconds']:.3f} s ({per:.3f} ms per iteration)")
        table.add_row("exploitability", f"{doc['exploitability']:.3g}")
        out.print(table)

    # ---- --bot: a standalone bot that plays the solved strategy ------------------------------
    def _check_bot_options(
        self, slug: str, solver_spec: SolverSpec, opts: dict[str, Any]
    ) -> SolverOption | None:
        """Refuse the ``--bot`` options that do not apply; the option ``--every`` sweeps."""
        digits = opts["bot_digits"]
        if opts["bot"] is None:
            if opts["every"] is not None:
                raise CommandError("--every solves for a bot: give --bot PATH too")
            if digits != DIGITS:
                raise CommandError("--bot-digits rounds the --bot file: give --bot PATH too")
            return None
        if solver_spec.bot is None:
            raise CommandError(f"{slug} has no solved bot to write: --bot is not for it")
        refuse_to_overwrite(opts["bot"])
        if not 1 <= digits <= 6:
            raise CommandError(f"--bot-digits must be 1 to 6 (got {digits})")
        if opts["every"] is None:
            if opts["values"] is not None:
                raise CommandError("--values picks values of --every OPTION: give --every too")
            return None
        wanted = opts["every"].strip().lstrip("-").replace("-", "_")
        sweepable = [o for o in solver_spec.options if o.choices]
        for option in sweepable:
            if option.name == wanted:
                if opts.get(option.name) is not None:
                    raise CommandError(
                        f"--every {option.flag.lstrip('-')} solves every value: "
                        f"leave out {option.flag}"
                    )
                if opts["json"] is not None or opts.get("out") is not None:
                    raise CommandError("--every writes only the --bot file: leave out --json/--out")
                return option
        names = ", ".join(o.flag.lstrip("-") for o in sweepable)
        raise CommandError(
            f"--every {opts['every']}: "
            + (f"{slug} can sweep {names}" if names else f"{slug} has no option to sweep")
        )

    @staticmethod
    def _table(
        solver_spec: SolverSpec, game: Game, solver: AnySolver
    ) -> tuple[str, dict[str, dict[str, float]]]:
        assert solver_spec.bot is not None
        key = solver_spec.bot.table_key(game.settings())
        return key, strategy_table(solver.tree, solver.average_strategy())

    def _write_every(
        self,
        err: Console,
        slug: str,
        solver_spec: SolverSpec,
        option: SolverOption,
        options: dict[str, Any],
        algorithm: str,
        iterations: int,
        opts: dict[str, Any],
    ) -> None:
        """Solve once per value of ``option`` and write one bot holding every table."""
        values = chosen_values(option, opts["values"])
        started = time.perf_counter()
        tables: dict[str, dict[str, dict[str, float]]] = {}
        worst = 0.0
        ran: list[int] = []  # the iterations each solve ran (fewer with --target)
        progress = progress_bar(err, opts["no_progress"])
        with progress:
            task = progress.add_task(f"{option.label.lower()}: every value", total=len(values))
            for value in values:
                self._at = f"after {len(ran)} of {len(values)} solves"
                try:
                    game = make_game(slug, **{**options, option.name: option.parse(value)})
                    solver = solver_for(game, algorithm, opts.get("history_tree", False))
                except (GameChoiceError, TreeError) as exc:
                    raise CommandError(str(exc)) from None
                target = opts.get("target")
                solver.train(
                    iterations, target=target, every=None if target is None else TARGET_EVERY
                )
                worst = max(worst, solver.exploitability())
                ran.append(solver.iterations)
                key, table = self._table(solver_spec, game, solver)
                tables[key] = table
                progress.advance(task)
            self._at = f"after {len(values)} solves"
        written = self._write_bot(
            opts["bot"], slug, solver_spec, tables, algorithm, iterations, opts
        )
        each = (
            f"{ran[0]} iterations each"
            if min(ran) == max(ran)
            else (
                f"{min(ran)} to {max(ran)} iterations (each stopped at exploitability "
                f"{opts['target']:g} or {iterations})"
            )
        )
        which = "every value" if opts["values"] is None else f"{len(values)} values"
        self._say(
            f"{len(values)} solves ({option.label.lower()}: {which}), "
            f"{ALGORITHM_NAMES[algorithm]}, {each}; the worst exploitability {worst:.3g}"
        )
        self._say(self._bot_line(opts["bot"], written, time.perf_counter() - started))

    def _write_bot(
        self,
        path: Path,
        slug: str,
        solver_spec: SolverSpec,
        tables: dict[str, dict[str, dict[str, float]]],
        algorithm: str,
        iterations: int,
        opts: dict[str, Any],
    ) -> BotFile:
        """Render the bot, refuse it over the bot-file limit (saying by how much and what
        makes it smaller), check that it is a bot file an upload takes, and write it."""
        assert solver_spec.bot is not None
        given = [
            f"{o.flag} {opts[o.name]}" for o in solver_spec.options if opts.get(o.name) is not None
        ]
        if opts["every"] is not None:
            given.append(f"--every {opts['every']}")
        if opts["values"] is not None:
            given.append("--values " + " ".join(opts["values"]))
        if opts.get("target") is not None:
            given.append(f"--target {opts['target']:g}")
        digits = opts["bot_digits"]

        def rendered(digits: int) -> BotFile:
            """The file with ``digits``, as that command would write it (it names itself)."""
            command = " ".join(
                [slug, f"--algorithm {algorithm}", f"--iterations {iterations}", *given]
                + ([f"--bot-digits {digits}"] if digits != DIGITS else [])
                + [f"--bot {path.name}"]
            )
            return render(
                tables,
                solver_spec.bot,
                title=titles()[slug],
                what=f"the {ALGORITHM_NAMES[algorithm]} average strategy solved by this project",
                command=command,
                name=path.stem,
                digits=digits,
            )

        written = rendered(digits)
        limit = bot_file_limit()
        if written.size > limit:
            said = (
                f"the bot would be {written.size:,} bytes ({tables_text(written)}); the limit "
                f"for a bot file is {limit:,} bytes"
            )
            # the most digits that fit, if any do: a rounding that cannot bring the file
            # under the limit is not advised (1.79 MB at 3 digits was 1.73 MB at 1)
            fewest = written
            for fewer in range(digits - 1, 0, -1):
                fewest = rendered(fewer)
                if fewest.size <= limit:
                    raise CommandError(
                        f"{said}: round the probabilities to fewer digits (--bot-digits {fewer})"
                    )
            if digits > 1:
                said += f", and {fewest.size:,} bytes with --bot-digits 1"
            if len(tables) > 1:
                raise CommandError(f"{said}: solve fewer settings (--values)")
            smaller = "solve a smaller setting" if solver_spec.options else "it cannot be written"
            raise CommandError(f"{said}: {smaller}")
        check_bot_code(written.text)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(written.text, encoding="utf-8")
        self._wrote(str(path))
        return written

    @staticmethod
    def _bot_line(path: Path, written: BotFile, seconds: float) -> str:
        return (
            f"bot written to {path}: {written.size:,} bytes ({tables_text(written)}), "
            f"in {seconds:.1f} s"
        )


def tables_text(written: BotFile) -> str:
    """``1 table, 12 information sets``."""
    tables = "1 table" if written.tables == 1 else f"{written.tables:,} tables"
    return f"{tables}, {written.infosets:,} information sets"


def sweep_values(option: SolverOption) -> list[str]:
    """Every value of ``option`` as the command line writes it: each of its choices, or for
    an option in parts, each combination of the parts' choices."""
    choices = [str(value) for value, _ in option.choices]
    if not option.parts:
        return choices
    return [option.join(combo) for combo in product(choices, repeat=len(option.parts))]


def chosen_values(option: SolverOption, chosen: list[str] | None) -> list[str]:
    """The values ``--every`` solves: every one (:func:`sweep_values`), or those ``--values``
    names, in the option's order; CommandError for a value it does not take."""
    values = sweep_values(option)
    if chosen is None:
        return values
    wanted = [value.strip().upper() for value in chosen]
    unknown = [value for value in wanted if value not in {v.upper() for v in values}]
    if unknown:
        raise CommandError(
            f"--values {' '.join(unknown)}: not a value of {option.flag} "
            f"({', '.join(values[:12])}{', ...' if len(values) > 12 else ''})"
        )
    return [value for value in values if value.upper() in wanted]


def refuse_to_overwrite(path: Path) -> None:
    """A file at ``path`` that this command did not write may be the author's own bot: it is
    kept (before anything is solved), and the error says so."""
    if path.is_dir():
        raise CommandError(f"--bot {path}: a folder; give the path of a .py file")
    if not path.exists():
        return
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        text = ""
    if not written_here(text):
        raise CommandError(
            f"--bot {path}: the file exists and was not written by manage.py solve --bot; "
            "it is left as it is: give another path, or remove it first"
        )


def bot_file_limit() -> int:
    """The most bytes a bot file may have: what an upload takes, and what the sandbox loads."""
    from bots.competition.uploads import max_code_bytes
    from bots.sandbox import MAX_BOT_BYTES

    return min(max_code_bytes(), MAX_BOT_BYTES)


def check_bot_code(text: str) -> None:
    """The checks an upload makes of a bot file's text, and that it compiles."""
    from bots.competition.uploads import UploadError, check_code

    try:
        check_code(text.encode("utf-8"))
        compile(text, "<bot>", "exec")
    except (UploadError, SyntaxError) as exc:  # a fault of this command, not of the author
        raise CommandError(f"the written bot is not a valid bot file: {exc}") from None
