"""``manage.py arena``: a local round-robin tournament for bot authors. No database needed.

It needs no Django either: ``manage.py arena`` runs :func:`main` without Django's set-up,
command classes or settings machinery (the sandbox reads the project's settings module
itself: bots.running.settings), which saves every run their imports; ``call_command("arena")``
runs the same through the Django command that wraps it (bots/management/commands/arena.py).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import re
import sys
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from rich.cells import cell_len
from rich.console import Console
from rich.table import Table
from rich.text import Text

from bots.arena import Arena, ArenaError, MatchEnd, busy_jobs, shown
from bots.arena.config import ConfigError, apply_config
from bots.languages import spoken, suffix_list
from bots.running import cpus
from bots.running.process import MAX_LANES, PlatformError
from bots.running.which_game import file_for_another_game
from games.engine import interrupts, untrusted
from games.engine.options import OptionError, add_option_argument, parse_options
from games.engine.progress import counter, progress_bar
from games.engine.spec import GameSpec
from games.engine.table import plural
from games.engine.terminal import (
    HelpOnDemand,
    console_width,
    plain_width,
    stream_width,
    wrapped,
)
from games.engine.tournament import Column, Format
from games.registry import add_game_argument, game_slugs, games, get_game

if TYPE_CHECKING:
    from games.engine.runner import MatchOutcome

#: matches a job plays at once where its bots' hosts can (bots.running.lanes)
DEFAULT_LANES = 16

#: the options of Django's own that only its command runner takes: given one of these,
#: ``manage.py arena`` runs the command through Django (see manage.py)
DJANGO_OPTIONS = (
    "--settings", "--pythonpath", "--traceback", "--no-color", "--force-color", "--verbosity", "-v",
    "--skip-checks", "--version",
)  # fmt: skip


class UsageError(Exception):
    """What was asked cannot be played: the message says why (the Django command raises it
    as its CommandError; :func:`main` prints it as Django would and exits with 1). It may
    quote what a bot wrote (a compiler's messages on its code, the reason it could not
    start): every character a terminal would act on is shown as its escape
    (``untrusted.printable``, line by line: a compiler's lines stay lines)."""

    def __init__(self, message: str) -> None:
        super().__init__(untrusted.printable(message))


class Interrupted(Exception):
    """The tournament was stopped (Ctrl-C, a SIGTERM: ``cause``), its processes too: ``line``
    says how far it had got and what it left (:func:`interrupted_line`)."""

    def __init__(self, line: str, cause: BaseException) -> None:
        super().__init__(line)
        self.line, self.cause = line, cause


def help_text() -> str:
    return (
        "Play a round-robin tournament between bot files and built-in bots. "
        f"BOT is a path to a bot file ({suffix_list()}) or builtin:NAME. Bot files run in the "
        "sandbox unless --no-sandbox is given. To write one, start from its game's starter "
        "bot, in the game's folder, its name with _ for - (games/last_card/starter.py for "
        "last-card; other languages' starters: the README lists them)."
    )


def builtins_text() -> str:
    """Each game's built-in bots, for BOT's help: ``rps-poker: minimal, simple, strong; kuhn
    and leduc: random, simple, cfr; ...`` (games with the same names share an entry)."""
    by_names: dict[tuple[str, ...], list[str]] = {}
    for game in games():
        by_names.setdefault(tuple(game.builtin_names), []).append(game.slug)
    return "; ".join(
        f"{spoken(slugs, 'and')}: {', '.join(names)}" for names, slugs in by_names.items() if names
    )


class WholeWords:
    """A help formatter's mix-in that wraps lines between words only: textwrap's default
    cuts at hyphens, which split a game's or an option's name over two lines
    ("rps-" / "poker")."""

    _whitespace_matcher: Any

    def _split_lines(self, text: str, width: int) -> list[str]:
        text = self._whitespace_matcher.sub(" ", text).strip()
        return textwrap.wrap(text, width, break_on_hyphens=False)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        text = self._whitespace_matcher.sub(" ", text).strip()
        return textwrap.fill(
            text, width, initial_indent=indent, subsequent_indent=indent, break_on_hyphens=False
        )


class HelpFormatter(WholeWords, argparse.HelpFormatter):
    pass


class BotsArgument(HelpOnDemand):
    """The positional BOTs, stored as given, whose help lists every game's built-in bots.
    The list is read from the games' specs only when the help is shown: loading every
    game's spec would cost each run of the arena about a quarter of a second."""

    def help_text(self) -> str:
        return (
            f"a bot file ({suffix_list()}), or builtin:NAME for one of the game's built-in "
            f"bots ({builtins_text()})"
        )


def main(argv: list[str]) -> None:
    """``manage.py arena ARGS`` (``argv``: the whole command line), without Django."""
    parser = argparse.ArgumentParser(
        prog=f"{Path(argv[0]).name} arena", description=help_text(), formatter_class=HelpFormatter
    )
    add_arguments(parser)
    opts = vars(parser.parse_args(argv[2:]))
    with interrupts.interruptible():
        try:
            play(opts, sys.stdout)
        except UsageError as exc:
            said = wrapped(f"CommandError: {exc}", stream_width(sys.stderr), keep_indented=True)
            sys.stderr.write(said + "\n")
            sys.exit(1)
        except Interrupted as exc:
            interrupts.stop(wrapped(exc.line, stream_width(sys.stderr)), exc.cause)
        except KeyboardInterrupt as exc:  # (before or after the tournament)
            interrupts.stop("interrupted", exc)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_game_argument(parser, "the game: {games} (or from --config)")
    parser.add_argument("bots", nargs="*", metavar="BOT", action=BotsArgument)
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
        default=None,
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
    add_option_argument(parser)
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
        help="write every match record, each bot's stderr and the full leaderboard into "
        "this folder, which must be new or empty",
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=None,
        metavar="N",
        help="play matches in N processes at once (default: one per core), each with its "
        "own bots on a share of the CPUs; the results are the same whatever N",
    )
    parser.add_argument(
        "--lanes",
        type=int,
        default=DEFAULT_LANES,
        metavar="N",
        help=f"let each process play up to N matches at once, each bot's process playing "
        f"them side by side where its language can (default: {DEFAULT_LANES}; 1: one at a "
        "time); the results are the same whatever N",
    )
    parser.add_argument(
        "--no-pin",
        action="store_true",
        help="with --jobs: let every process and its bots run on any CPU",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument(
        "--no-sandbox",
        action="store_true",
        help="run bot files as plain child processes, outside the sandbox "
        "(only for debugging your own bots)",
    )


def play(opts: dict[str, Any], stdout: TextIO) -> None:
    """Play the tournament ``opts`` asks for (the command's options) and print its results
    to ``stdout``. Raises UsageError."""
    try:
        notes = apply_config(opts) if opts["config"] else []
    except ConfigError as exc:
        raise UsageError(str(exc)) from None
    if not opts["game"]:
        raise UsageError(
            f"name the --game ({', '.join(game_slugs())}) and the BOTs, or give a --config file"
        )
    if not opts["bots"]:
        where = f" ({opts['config']} lists none in ai_dirs or ai)" if opts["config"] else ""
        raise UsageError(f"name the BOTs: bot files ({suffix_list()}) or builtin:NAME{where}")
    game = get_game(opts["game"])
    rounds, unit = count_of(game, opts)
    notes += fill_seats(game, opts)
    if game.session_rounds and any(o.startswith("max_rounds=") for o in opts["option"]):
        raise UsageError("--option: the rounds of a session are --rounds-per-session N")
    try:
        config = parse_options(game, opts["option"])
    except OptionError as exc:
        raise UsageError(f"--option: {exc}") from None
    if game.session_rounds:  # a match is a session of rounds (UTH)
        per_session = opts["rounds_per_session"]
        config["max_rounds"] = game.session_rounds if per_session is None else per_session
        if config["max_rounds"] < 1:
            raise UsageError("--rounds-per-session must be at least 1")
    elif opts["rounds_per_session"] is not None:
        sessions = ", ".join(g.slug for g in games() if g.session_rounds)
        raise UsageError(f"--rounds-per-session is for --game {sessions}")
    jobs = opts["jobs"] if opts["jobs"] is not None else len(os.sched_getaffinity(0))
    if jobs < 1:
        raise UsageError("--jobs must be at least 1")
    if not 1 <= opts["lanes"] <= MAX_LANES:
        raise UsageError(f"--lanes must be 1 to {MAX_LANES}")
    if opts["logs"]:
        check_logs_folder(opts["logs"])
    seed = opts["seed"] if opts["seed"] is not None else random.SystemRandom().randrange(2**31)
    err = Console(stderr=True)
    for note in notes:
        say(err, note)
    stream = getattr(stdout, "_out", stdout)  # (a Django command's writer: its stream)
    out = Console(file=stream, width=None if stream.isatty() else console_width(stream))
    if game.tournament is not None and len(opts["bots"]) >= 2:  # (else Arena says why)
        jobs = busy_jobs(game.tournament().count(len(opts["bots"]), rounds), jobs)
    # each job with its own bots on a share of the CPUs (bots.running.cpus): this one's, from
    # before its bots start to their end
    placed = cpus.shares(jobs) if jobs > 1 and not opts["no_pin"] else None
    check_games(game, opts["bots"])
    for source in opts["bots"]:  # a compile takes seconds: said before the silence
        if not source.startswith("builtin:"):
            path = Path(source)
            with contextlib.suppress(OSError):
                sandboxed = not opts["no_sandbox"]
                if compile_pending(game, path.name, path.read_bytes(), sandboxed=sandboxed):
                    say(err, compiling_note(source, sandboxed))
    stopped: KeyboardInterrupt | None = None
    with cpus.pinned(placed[0] if placed else None):
        try:
            arena = Arena(
                game,
                opts["bots"],
                logs=opts["logs"],
                sandbox=not opts["no_sandbox"],
                config=config,
                lanes=opts["lanes"],
                jobs=jobs,
                job_cpus=placed[1:] if placed else None,
            )
        except ArenaError as exc:
            raise UsageError(with_another_game(str(exc), "play")) from None
        except KeyboardInterrupt as exc:  # (its bots closed, its logs as they were)
            raise Interrupted("interrupted before the first match", exc) from None
        with arena:
            total = arena.count(rounds)
            try:
                summary, refusals = _tournament(arena, game, opts, config, rounds, unit, seed, err)
            except KeyboardInterrupt as exc:  # its jobs stopped, its logs kept
                stopped = exc
        if stopped is not None:  # (said once the arena has closed: its logs as it left them)
            line = interrupted_line(arena.ended, total, seed, opts["logs"])
            raise Interrupted(line, stopped)
    for table in leaderboard(game.title, arena.format, summary, out.width, out):
        out.print(table)
    if opts["json"]:
        opts["json"].parent.mkdir(parents=True, exist_ok=True)
        opts["json"].write_text(json.dumps(summary, indent=2) + "\n")
        say(err, f"results written to {shown(str(opts['json']))}")
    if opts["logs"]:
        write_leaderboard(opts["logs"] / "leaderboard.txt", game.title, arena.format, summary)
        say(err, f"match records, bot logs and the full leaderboard in {shown(str(opts['logs']))}")
    _print_faults(err, summary)
    refusals.print(err, summary, opts["logs"], own_logs=hasattr(arena.format, "log_match"))


def _tournament(
    arena: Arena,
    game: GameSpec,
    opts: dict[str, Any],
    config: dict[str, Any],
    rounds: int,
    unit: str,
    seed: int,
    err: Console,
) -> tuple[dict[str, Any], Refusals]:
    """Play the arena's tournament, saying it, with the progress bar and each bot's first
    timeout as matches end; returns its summary and the refusals of its bots' answers.
    Raises UsageError, or KeyboardInterrupt once the arena is stopped."""
    total = arena.count(rounds)
    bots, length = plural(len(arena.entrants), "bot"), plural(rounds, unit[:-1])
    chosen = "".join(f", {k}={v}" for k, v in config.items() if k != "max_rounds")
    say(
        err, f"{game.title}: {bots}, {length}, {plural(total, 'match')}, seed {seed}{shown(chosen)}"
    )
    for note in same_names(arena):
        say(err, note)
    progress = progress_bar(err, opts["no_progress"])
    refusals = Refusals(game)
    timed_out: set[int] = set()
    with progress:
        task = progress.add_task("matches", total=total)
        count = counter(progress, task, total)

        def on_end(ended: int, match: MatchEnd) -> None:  # (as each match ends)
            count(ended)
            if ended < total:
                _say_first_timeouts(err, arena, match, timed_out)

        try:
            summary = arena.run(rounds, seed, on_match=refusals.add, on_end=on_end)
        except PlatformError as exc:  # the machine's, not a bot's: said in a line
            raise UsageError(
                f"this machine could not play the tournament: {exc}. No bot is to "
                "blame for it; run the tournament again"
            ) from None
        except ArenaError as exc:  # a process playing matches failed or died
            raise UsageError(str(exc)) from None
    return summary, refusals


#: the options that count a tournament's length: the format's ``count_label`` says which
#: one its game takes (rounds unless it says otherwise), with its default
COUNTS = {"rounds": 100, "games": 100, "sessions": 10}


def count_of(game: GameSpec, opts: dict[str, Any]) -> tuple[int, str]:
    """How long the tournament is, and in what (``rounds``, ``games``...): the game's
    tournament format names the one option that counts it; any other is refused, naming
    what was given (an option, or a configuration file's key)."""
    unit = _count_label(game)
    for option in COUNTS:
        if option == unit or opts.get(option) is None:
            continue
        given = opts.get(f"{option}_from") or f"--{option}"
        takers = [g.slug for g in games() if _count_label(g) == option]
        raise UsageError(
            f"{game.slug} counts --{unit}, not {given} (--{option} is for --game "
            f"{', '.join(takers)})"
        )
    count = opts.get(unit)
    count = COUNTS.get(unit, 100) if count is None else count
    if count < 1:
        given = opts.get(f"{unit}_from") or f"--{unit}"
        raise UsageError(f"{given} must be at least 1")
    return count, unit


def _count_label(game: GameSpec) -> str:
    return getattr(game.tournament, "count_label", "rounds")


def same_names(arena: Arena) -> list[str]:
    """Which file is which where bots of different files share a name (a game's C++ and Java
    starters both name themselves ``starter``): the table tells them apart only as
    ``starter`` and ``starter#2``. Copies of one bot (``--fill``) need no note."""
    named: dict[str, list[Any]] = {}
    for entrant in arena.entrants:
        named.setdefault(entrant.given_name, []).append(entrant)
    notes = []
    for name, entrants in named.items():
        if len({e.source for e in entrants}) > 1:
            which = ", ".join(f"{shown(e.standing.name)} is {shown(e.source)}" for e in entrants)
            notes.append(f"{len(entrants)} bots are named {shown(name)}: {which}")
    return notes


def fill_seats(game: GameSpec, opts: dict[str, Any]) -> list[str]:
    """Apply ``--fill``: copies of a bot up to the least a table seats, for a format whose
    tables seat more than a pair (``fills_seats``); refused for the others. Returns notes."""
    fill = opts.get("fill")
    if not fill:
        return []
    fmt = game.tournament
    if fmt is None or not getattr(fmt, "fills_seats", False):
        where = ", ".join(g.slug for g in games() if getattr(g.tournament, "fills_seats", False))
        raise UsageError(
            f"--fill is for games played at tables of more than two ({where}); {game.slug} "
            "plays the bots it is given: name each of them"
        )
    missing = fmt.min_bots - len(opts["bots"])
    if missing <= 0:
        return [f"--fill {fill} is not needed: {plural(len(opts['bots']), 'bot')} fill the tables"]
    opts["bots"] = opts["bots"] + [fill] * missing
    return []


def check_logs_folder(folder: Path) -> None:
    """``--logs`` takes a new or empty folder: the files of an earlier run left beside this
    run's would be read as its own (a rerun once left 990 stale game logs without a word)."""
    if folder.exists() and not folder.is_dir():
        raise UsageError(f"--logs {folder}: not a folder")
    if folder.is_dir() and any(folder.iterdir()):
        raise UsageError(
            f"--logs {folder} is not empty (an earlier run's logs?): give a new folder, such "
            "as one named after the run, or empty this one"
        )


#: a width no table reaches (to measure one)
UNLIMITED = 100_000


def leaderboard(
    title: str, fmt: Format, summary: dict, width: int, console: Console
) -> list[Table]:
    """The leaderboard as tables no wider than ``width``: one table if it fits; else with
    headers of words on several lines, rank and bot, then the format's columns, as many as
    fit; the next ones go to a further table under the same rank and bot, so that no number
    is cut (Last Card's table of ten columns did not fit 100 columns). The width a table
    leaves spare takes its headers onto fewer lines (:func:`_fitted_headers`)."""
    whole = fmt.columns()
    if _measure(console, fmt, summary, whole, None) <= width:
        return [_table(fmt, summary, whole, title, caption=True)]

    def narrowest(columns: list[Column]) -> list[str]:
        return [_header_layouts(column, summary)[-1][1] for column in columns]

    groups: list[list[Column]] = []
    for column in whole:
        joined = [*groups[-1], column] if groups else []
        if joined and _measure(console, fmt, summary, joined, narrowest(joined)) <= width:
            groups[-1] = joined
        else:
            groups.append([column])
    tables = []
    for n, group in enumerate(groups):
        spare = width - _measure(console, fmt, summary, group, narrowest(group))
        headers = _fitted_headers([_header_layouts(column, summary) for column in group], spare)
        tables.append(
            _table(fmt, summary, group, title if n == 0 else None, n == len(groups) - 1, headers)
        )
    return tables


#: what holds the words of a header's parentheses together on one line ("(95% CI)"): a space
#: that textwrap never breaks at
_GLUE = "\u00a0"


def _header_layouts(column: Column, summary: dict) -> list[tuple[int, str]]:
    """The ways to write ``column``'s header, each with the width its column then takes (its
    numbers' at least), fewest lines first: on one line, then on more and more lines broken
    between words, never inside parentheses ("score (games won)", then "score" over "(games
    won)"), none narrower than the numbers."""
    title = column.title
    widest = max((cell_len(column.show(bot)) for bot in summary["bots"]), default=1)
    glued = re.sub(r"\([^()]*\)", lambda found: found[0].replace(" ", _GLUE), title)
    layouts: dict[int, tuple[int, str]] = {}
    for width in range(max(widest, 1), cell_len(title) + 1):  # the narrowest of each count
        lines = textwrap.wrap(glued, width, break_long_words=False, break_on_hyphens=False)
        text = "\n".join(lines).replace(_GLUE, " ")
        layouts.setdefault(len(lines), (max(widest, *map(cell_len, lines)), text))
    return [layouts[count] for count in sorted(layouts)] or [(widest, title)]


def _fitted_headers(layouts: list[list[tuple[int, str]]], spare: int) -> list[str]:
    """A header for each column, of its ``layouts`` (:func:`_header_layouts`), within
    ``spare`` columns more than their narrowest: the header of the most lines takes its
    layout of the next fewer lines while the spare width allows, then the next tallest, the
    one that widens its column least first among headers as tall."""
    chosen = [len(choices) - 1 for choices in layouts]

    def lines(n: int) -> int:
        return layouts[n][chosen[n]][1].count("\n")

    def wider(n: int) -> int:
        return layouts[n][chosen[n] - 1][0] - layouts[n][chosen[n]][0]

    kept: set[int] = set()  # (headers the spare width cannot take onto fewer lines)
    while waiting := [n for n, choice in enumerate(chosen) if choice and n not in kept]:
        n = max(waiting, key=lambda n: (lines(n), -wider(n)))
        if wider(n) <= spare:
            spare -= wider(n)
            chosen[n] -= 1
        else:
            kept.add(n)
    return [layouts[n][choice][1] for n, choice in enumerate(chosen)]


def write_leaderboard(path: Path, title: str, fmt: Format, summary: dict) -> None:
    """The whole leaderboard, every column in one table however wide, into a file."""
    table = _table(fmt, summary, fmt.columns(), title, caption=True)
    with path.open("w") as fh:
        console = Console(file=fh, width=UNLIMITED, color_system=None)
        console.width = console.measure(table).maximum
        console.print(table)


def _measure(
    console: Console,
    fmt: Format,
    summary: dict,
    columns: list[Column],
    headers: list[str] | None,
) -> int:
    """The width a table of these columns and ``headers`` takes (their titles: None), every
    cell on one line."""
    table = _table(fmt, summary, columns, None, False, headers)
    return console.measure(table, options=console.options.update_width(UNLIMITED)).maximum


def _table(
    fmt: Format,
    summary: dict,
    columns: list[Column],
    title: str | None,
    caption: bool,
    headers: list[str] | None = None,
) -> Table:
    """The table of ``columns`` under ``headers`` (each on the lines given; by default, the
    columns' titles)."""
    table = Table(
        title=title
        and f"{title}: {plural(summary['matches'], 'match')} in {summary['elapsed_s']:.1f} s"
        f" (seed {summary['seed']})",
        caption=None
        if fmt.higher_is_better or not caption
        else f"lower {fmt.score_label} is better",
    )
    table.add_column("rank", justify="right")
    table.add_column("bot", no_wrap=True)
    for header in headers or [column.title for column in columns]:
        table.add_column(header, justify="right")
    for rank, bot in enumerate(summary["bots"], 1):
        name = shown(bot["name"]) + (" (faulty)" if bot.get("faulty") else "")
        table.add_row(str(rank), Text(name), *(column.show(bot) for column in columns))
    return table


def console_text_width(console: Console) -> int:
    """How wide the messages printed on ``console`` are (see :func:`stream_width`)."""
    return console.width if console.is_terminal else plain_width()


def say(console: Console, text: str) -> None:
    """Print ``text`` (printable already: :func:`shown`) on ``console``, wrapped to its
    width (:func:`wrapped`), above the progress bar while it is shown."""
    console.print(Text(wrapped(text, console_text_width(console))), soft_wrap=True)


def check_games(game: GameSpec, sources: list[str]) -> None:
    """Refuse a bot file that is clearly for another game, naming that game's ``--game``,
    before anything is compiled or started: the upload's check (bots.running.which_game),
    which reads the file's text and never runs it. Raises UsageError."""
    for source in sources:
        if source.startswith("builtin:"):
            continue
        path = Path(source)
        try:
            data = path.read_bytes()
        except OSError:
            continue  # (the arena says what is wrong with it)
        if found := file_for_another_game(path, data, game):
            raise UsageError(f"{shown(source)}: {found.why} {found.advice('arena')}")


def compile_pending(game: GameSpec, name: str, source: bytes, *, sandboxed: bool = True) -> bool:
    """Whether the bot file ``name`` of ``source`` is of a compiled language (C++, Java) and
    has not been compiled on this machine yet: its start will compile it first, seconds of
    silence (bots.sandbox.compiling keeps a program, or the compiler's refusal, by the hash
    of what went in: this looks for either, with the key its launch would use)."""
    from bots.languages import language_of

    try:
        language = language_of(Path(name))
    except Exception:  # noqa: BLE001 - not a bot file: its start says so
        return False
    if not language.compiled:
        return False
    from bots.sandbox import SandboxConfig, compiling, safe_name

    try:
        config = SandboxConfig.from_settings()
        files = language.compile_files(safe_name(Path(name)), source, game)
        script = language.compile_script(sorted(files), config)
        key = compiling._key(language, files, script, config, sandboxed, compiling.LIMITS)
    except Exception:  # noqa: BLE001 - its launch says what is wrong
        return False
    folder = compiling.cache_dir() / language.name
    return not (folder / key).exists() and not (folder / f"{key}.refused").exists()


def compiling_note(path: str, sandboxed: bool = True) -> str:
    """What is said before a bot file is compiled (see :func:`compile_pending`): ``path`` as
    the command was given it, which tells apart two files of one name (Java's, named after
    their class) in different folders."""
    where = " in the sandbox" if sandboxed else ""
    return f"compiling {shown(path)}{where} (once for this code on this machine)..."


#: how a refusal for lacking the game's methods asks whether the file is another game's
#: (bots.running.contract.missing_methods), the games in the parentheses before it
ANOTHER_GAME = re.compile(r"\(([^()]*)\): is it for another game\?")


def with_another_game(text: str, verb: str) -> str:
    """``text`` with what to do with a file refused for lacking the game's methods while it
    has all of another game's, said right after the question that names that game (its last
    in ``text``): "this file defines play (Last Card's method): is it for another game? If
    so, play it with --game last-card."; ``text`` as it is for any other reason."""
    asked = list(ANOTHER_GAME.finditer(text))
    if not asked:
        return text
    found = asked[-1]
    slugs = [g.slug for g in games() if g.title in found.group(1)]
    if not slugs:
        return text
    hint = f" If so, {verb} it with {' or '.join(f'--game {slug}' for slug in slugs)}."
    return text[: found.end()] + hint + text[found.end() :]


def _faulty_note(bot: dict) -> str:
    """How a bot marked faulty in the table faulted: in most of its matches, or in all."""
    if not bot.get("faulty"):
        return ""
    if bot.get("faults", 0) >= bot["matches"]:
        return " (faulted in every match)"
    return " (faulted in most of its matches)"


def _print_faults(err: Console, summary: dict) -> None:
    """A few lines per bot and kind of fault it made: how many, and the first one's reason
    (which names the call and what was wrong with the answer), its match and where that
    match's record and the bot's stderr log are, or how to keep them."""
    for bot in summary["bots"]:
        details = bot.get("fault_details") or {}
        for kind, note in details.items():
            times = "once" if note["count"] == 1 else f"{note['count']} times"
            matches = plural(bot["matches"], "match")
            lines = [
                f"{bot['name']}{_faulty_note(bot)}: {kind} {times} in {matches}",
                f"  first, in match {note['first_match']}: {note['reason']}",
            ]
            if note["match_file"]:
                lines.append(f"  match record: {note['match_file']}")
                if note["stderr_log"]:
                    lines.append(f"  stderr log: {note['stderr_log']}")
            else:
                lines.append("  --logs DIR keeps every match record and each bot's stderr log")
            # a bot's name and reasons are its own text: shown, never interpreted, each line
            # on its own (its own new lines escaped), wrapped under the arena's own words
            say(err, "\n".join(shown(line) for line in lines))


#: the call a timeout's reason names: "no answer to main_play within 1.00 s...", "main_play
#: took 3.01 s, over...", "3 calls in a row over the 1 s per call (main_play took 3.01 s; ...)"
TIMED_OUT_CALL = re.compile(r"^no answer to (.+?) within |(?:^|\()(\w+) took \d")


def _say_first_timeouts(err: Console, arena: Arena, match: MatchEnd, said: set[int]) -> None:
    """Say at once a bot's first timeout (in ``match``, which has just ended, in whichever
    process: the first to end, not the first in the schedule), unless it was ``said``: a
    bot that times out makes each of its matches last its whole time bank, minutes of a
    progress bar that barely moves."""
    for seat, (kind, reason) in match.faults.items():
        entrant = match.seats[seat]
        if kind != "timeout" or entrant in said:
            continue
        said.add(entrant)
        call = TIMED_OUT_CALL.search(reason)
        what = f" ({call.group(1) or call.group(2)})" if call else ""
        name = arena.entrants[entrant].name
        say(
            err,
            shown(f"{name} timed out in match {match.number}{what}; the other matches go on"),
        )


def interrupted_line(ended: int, total: int, seed: int, logs: Path | None) -> str:
    """What is said of a tournament stopped (Ctrl-C) once its arena has closed: how many of
    its matches had ended, its seed (to play it again), and what its ``--logs`` folder holds
    (every match that ended: a match's record is written as it ends; nothing, if none had,
    and the folder is left as it was)."""
    if logs is not None and (logs / "matches").is_dir():  # (a job's last may be untold)
        ended = max(ended, sum(1 for _ in (logs / "matches").glob("*.json")))
    line = f"interrupted after {ended} of {plural(total, 'match')} (seed {seed})"
    if logs is None or not logs.is_dir() or not any(logs.iterdir()):
        return line
    if ended:
        return f"{line}; the logs in {logs} hold the matches played"
    return f"{line}; what the bots wrote is in {logs / 'stderr'}"


class Refusals:
    """The answers the rules refused without a fault, per bot (Last Card: an illegal move
    counts as a pass), taken from each match's record as it is tallied: the table counts
    them, and these lines say why."""

    def __init__(self, game: GameSpec) -> None:
        self.game = game
        #: only a game that refuses answers without a fault has any (its ``illegal_answer``)
        self.on = bool(game.illegal_answer)
        #: bot name -> [refusals, matches with any, first match, first reason]
        self.bots: dict[str, list[Any]] = {}

    def add(self, number: int, outcome: MatchOutcome) -> None:
        if not self.on:
            return
        from games.records import refused

        for seat, entry in enumerate(outcome.record.get("seats", [])):
            reasons = refused(outcome.record, seat)
            if not reasons:
                continue
            name = entry.get("name", "") if isinstance(entry, dict) else str(entry)
            said = self.bots.setdefault(name, [0, 0, number, reasons[0]])
            said[0] += len(reasons)
            said[1] += 1

    def print(self, err: Console, summary: dict, logs: Path | None, own_logs: bool) -> None:
        """A few lines per bot with refused answers: how many, in how many of its matches,
        the first one's reason, and where each one's is kept."""
        unit = {"games": "game", "sessions": "session"}.get(_count_label(self.game), "match")
        rule = f" ({self.game.illegal_answer})"
        for bot in summary["bots"]:
            if bot["name"] not in self.bots:
                continue
            count, matches, first, reason = self.bots[bot["name"]]
            played = plural(bot["matches"], unit)
            lines = [
                f"{bot['name']}: {plural(count, 'illegal move')} in {matches} of its {played}"
                f"{rule}",
                f"  first, in {unit} {first}: {untrusted.one_line(reason)}",
            ]
            if logs is not None and (logs / "readable").is_dir():
                lines.append(f"  each one's reason: in the readable logs, {logs / 'readable'}")
            elif logs is not None:
                lines.append(f"  each one's reason: in the match records, {logs / 'matches'}")
            else:
                kept = "a readable log of every game" if own_logs else "every match record"
                lines.append(f"  --logs DIR keeps each one's reason, in {kept}")
            say(err, "\n".join(shown(line) for line in lines))
