"""``manage.py replay FILE.json [--game GAME] [--steps] [--json OUT]``: replay a match record
of any game, or a hand history of a game's original system.

A match record is what the arena writes (``--logs DIR/matches/*.json``), the site's
**Download** (``/matches/<n>/record.json``) or the API's match (``/api/matches/<n>/``, whose
``record`` is used): it is replayed through the game's engine and must reach the result it
records (``games/records.py``). A hand history (a game whose spec has ``hand_history``, like
Ultimate Texas Hold'em's rounds of cards and actions) is replayed by the game's own
replayer, which reports every round's bets and result. The game is the one the file names
(its ``"game"``), or ``--game``; a file that names another game than ``--game`` is refused.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import CommandError, CommandParser

from games import records
from games.engine.spec import GameSpec
from games.engine.terminal import console_width, wrapped
from games.management.wrapped import WrappedErrorCommand
from games.registry import add_game_argument, game_slugs, get_game


class Command(WrappedErrorCommand):
    help = (
        "Replay a match record (the arena's --logs files, the site's record.json or API match)"
        " of any game, or a game's hand history, and report the result."
    )
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", type=Path, metavar="FILE.json")
        add_game_argument(
            parser, "the game, if the file does not say (a match record does): {games}"
        )
        parser.add_argument(
            "--steps", action="store_true", help="a match record: list every step and its log"
        )
        parser.add_argument(
            "--json", type=Path, metavar="OUT", help="also write the report as JSON here"
        )

    def handle(self, *args: Any, **opts: Any) -> None:
        path: Path = opts["file"]
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise CommandError(f"{path}: {exc.strerror or exc}") from None
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise CommandError(f"{path}: not JSON ({exc})") from None
        record = records.find_record(data)
        spec = self._game(path, record if record is not None else data, opts["game"])
        try:
            if record is not None:
                report = records.replay(record, spec)
                lines = records.report_lines(report, steps=opts["steps"])
            elif spec.hand_history is not None:
                report = spec.hand_history.replay(data)
                lines = spec.hand_history.lines(report)
            else:
                raise CommandError(
                    f"{path}: not a match record (no 'events' list); the arena writes its"
                    " records under --logs DIR/matches/, the site as a match's record.json"
                )
        except ValueError as exc:
            raise CommandError(f"{path}: {exc}") from None
        # wrapped between words to the terminal (a step's sentence is longer than a line)
        self.stdout.write(wrapped("\n".join(lines), console_width(self.stdout)))
        if opts["json"]:
            opts["json"].parent.mkdir(parents=True, exist_ok=True)
            opts["json"].write_text(json.dumps(report, indent=2) + "\n")

    @staticmethod
    def _game(path: Path, data: Any, asked: str | None) -> GameSpec:
        """The game the file names, or the one asked for; the two must agree."""
        named = data.get("game") if isinstance(data, dict) else None
        if isinstance(named, str):
            try:
                found = get_game(named)
            except (KeyError, TypeError):
                known = ", ".join(game_slugs())
                raise CommandError(f"{path}: unknown game {named!r} (known: {known})") from None
            if asked is not None and asked != found.slug:
                raise CommandError(f"{path}: this is a record of {named!r}, not {asked!r}")
            return found
        if asked is None:
            known = ", ".join(game_slugs())
            raise CommandError(f"{path}: the file names no game: give --game (one of {known})")
        return get_game(asked)
