"""``manage.py replay --game uth FILE.json [--json OUT]``: replay a hand history.

Reports every round's cards, actions, bets and net chip change, then the total. A history
that cannot be replayed (a duplicate card, a wrong number of cards, an illegal action) is
refused with the round and the reason.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.uth import hands
from games.uth.history import HistoryError, replay

REPLAYERS = {"uth": replay}


class Command(BaseCommand):
    help = "Replay a hand history and report each round's bets and net chip change."
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--game", required=True, choices=sorted(REPLAYERS))
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
        try:
            report = REPLAYERS[opts["game"]](history)
        except HistoryError as exc:
            raise CommandError(f"{path}: {exc}") from None
        for line in report_lines(report):
            self.stdout.write(line)
        if opts["json"]:
            opts["json"].parent.mkdir(parents=True, exist_ok=True)
            opts["json"].write_text(json.dumps(report, indent=2) + "\n")


def _signed(value: float | int) -> str:
    return f"{value:+g}"


def report_lines(report: dict[str, Any]) -> list[str]:
    lines = [f"Ultimate Texas Hold'em, {report['variant']} pay table"]
    for r in report["rounds"]:
        bets = r["bets"]
        lines.append(
            f"round {r['round']}: player {' '.join(r['player'])}, dealer {' '.join(r['dealer'])}"
            f", board {' '.join(r['board'])}; actions {' '.join(r['actions'])}"
        )
        lines.append(f"  bets: ante {bets['ante']}, blind {bets['blind']}, play {bets['play']}")
        if r["folded"]:
            lines.append("  folded")
        else:
            lines.append(
                f"  player {hands.LABELS[r['player_hand']]}, dealer "
                f"{hands.LABELS[r['dealer_hand']]}"
                f"{'' if r['dealer_qualifies'] else ' (does not qualify)'}: {r['winner']} wins"
                if r["winner"] != "tie"
                else f"  player {hands.LABELS[r['player_hand']]}, dealer "
                f"{hands.LABELS[r['dealer_hand']]}: a tie"
            )
        results = r["results"]
        lines.append(
            f"  ante {_signed(results['ante'])}, blind {_signed(results['blind'])}, play "
            f"{_signed(results['play'])}: net {_signed(r['net'])}, chips {r['chips']:g}"
        )
    lines.append(f"total: {_signed(report['total'])} over {len(report['rounds'])} rounds")
    return lines
