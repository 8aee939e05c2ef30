"""``manage.py replay --game GAME FILE.json [--json OUT]``: replay a hand history of the
game's original system (a game whose spec has ``hand_history``: Ultimate Texas Hold'em).

Reports every round's cards, actions, bets and result, then the total. A history that cannot
be replayed (a duplicate card, a wrong number of cards, an illegal action) is refused with the
round and the reason.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.registry import games, get_game


def replayable() -> list[str]:
    return [spec.slug for spec in games() if spec.hand_history is not None]


class Command(BaseCommand):
    help = "Replay a hand history and report each round's bets and net chip change."
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--game", required=True, choices=replayable())
        parser.add_argument("file", type=Path, metavar="FILE.json")
        parser.add_argument(
            "--json", type=Path, metavar="OUT", help="also write the report as JSON here"
        )

    def handle(self, *args: Any, **opts: Any) -> None:
        path: Path = opts["file"]
        try:
            history = json.loads(path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise CommandError(f"{path}: {exc.strerror or exc}") from None
        except json.JSONDecodeError as exc:
            raise CommandError(f"{path}: not JSON ({exc})") from None
        replayer = get_game(opts["game"]).hand_history
        assert replayer is not None
        try:
            report = replayer.replay(history)
        except ValueError as exc:
            raise CommandError(f"{path}: {exc}") from None
        for line in replayer.lines(report):
            self.stdout.write(line)
        if opts["json"]:
            opts["json"].parent.mkdir(parents=True, exist_ok=True)
            opts["json"].write_text(json.dumps(report, indent=2) + "\n")
