"""``manage.py standings``: where bots stand, from the command line (bots.competition.status): each
game's ranking, and per bot its newest version's status (waiting for validation, rejected
and why, its placement matches), rank, rating or score, matches, faults and latest fault."""

from __future__ import annotations

import json
from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import CommandError, CommandParser

from bots.competition.status import BotStatus, bot_status
from bots.models import Bot, LeaderboardRow
from games.engine import untrusted
from games.engine.terminal import console_width, wrapped
from games.management.database import DatabaseCommand
from games.registry import GameSpec, add_game_argument, get_game


class Command(DatabaseCommand):
    help = (
        "Show each game's ranking and where bots stand: their versions' validation, placement, "
        "rank, rating, matches and faults."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        add_game_argument(parser, "one game: {games} (default: all)")
        parser.add_argument("--user", help="only this user's bots, with their faults")
        parser.add_argument("--bot", metavar="NAME", help="only the bots of this name")
        parser.add_argument("--json", type=Path, metavar="PATH", help="also write it as JSON")

    def handle(self, *args, **opts) -> None:
        bots = Bot.objects.select_related("owner").order_by("game", "pk")
        if opts["game"]:
            bots = bots.filter(game=opts["game"])
        if opts["user"]:
            bots = bots.filter(owner__username=opts["user"])
        if opts["bot"]:
            bots = bots.filter(name=opts["bot"])
        statuses = [bot_status(bot) for bot in bots]
        if not statuses and opts["user"] and not _is_user(opts["user"]):
            # (a mistyped name: uploading a bot would not help)
            raise CommandError(f"no user {opts['user']!r}: check the spelling of --user")
        if not statuses:
            raise CommandError(f"no bots {_which(opts)}: `manage.py upload_bot` uploads one")
        width = console_width(self.stdout)
        detailed = bool(opts["user"] or opts["bot"])
        for slug in dict.fromkeys(s.game for s in statuses):
            mine = [s for s in statuses if s.game == slug]
            ranked = LeaderboardRow.objects.filter(game=slug, rank__gt=0).count()
            self.stdout.write("")
            for line in game_lines(get_game(slug), mine, width, detailed, ranked):
                self.stdout.write(line)
        if opts["json"]:
            opts["json"].parent.mkdir(parents=True, exist_ok=True)
            data = [s.as_dict() for s in statuses]
            opts["json"].write_text(json.dumps(data, indent=2) + "\n")


def _is_user(username: str) -> bool:
    return get_user_model().objects.filter(username=username).exists()


def _which(opts: dict) -> str:
    parts = [f"of {opts['user']!r}"] if opts["user"] else []
    parts += [f"named {opts['bot']!r}"] if opts["bot"] else []
    parts += [f"in {opts['game']}"] if opts["game"] else []
    return " ".join(parts) or "yet"


def game_lines(
    game: GameSpec, statuses: list[BotStatus], width: int, detailed: bool, in_game: int
) -> list[str]:
    """A game's ranked bots among ``statuses`` as a table (rank, bot, what it is ranked by,
    matches, faults), then the others with their status; with ``detailed`` (some of the
    game's bots chosen), every chosen bot's status, placement and latest fault under the
    table too. ``in_game``: how many bots the game ranks, the chosen or not. Bots' names and
    reasons are their authors' text: shown, never interpreted."""
    ranked = sorted((s for s in statuses if s.rank is not None), key=lambda s: s.rank or 0)
    lines = [game.title]
    if ranked:
        measure = ranked[0].measure_title or "rating"
        names = [untrusted.printable(s.bot) for s in ranked]
        name_w = max(3, *(len(n) for n in names))
        measure_w = max(len(measure), *(len(s.measure) for s in ranked))
        rank_w = max(4, *(len(f"{s.rank}{'?' if s.provisional else ''}") for s in ranked))
        lines.append(
            f"{'rank':>{rank_w}}  {'bot':<{name_w}}  {measure:>{measure_w}}  matches  faults"
        )
        for status, name in zip(ranked, names, strict=True):
            rank = f"{status.rank}{'?' if status.provisional else ''}"
            lines.append(
                f"{rank:>{rank_w}}  {name:<{name_w}}  {status.measure:>{measure_w}}  "
                f"{status.matches:>7}  {status.faults:>6}"
            )
        if any(s.provisional for s in ranked):
            lines.append("(? a provisional rank: not settled by enough matches yet)")
    elif in_game:
        bots = f"{in_game} bot{'s' if in_game != 1 else ''}"
        lines += _wrapped(
            f"none of these bots is ranked; the game ranks {bots} "
            f"(manage.py standings --game {game.slug})",
            width,
        )
    else:
        lines.append("no bot ranked yet")
    for status in statuses:
        if status.rank is not None and not detailed:
            continue
        lines += _wrapped(f"{status.bot}: {status.detail}", width)
        placement = status.placement.text if status.placement else ""
        if detailed and placement and placement not in status.detail:  # (said once)
            lines += _wrapped(f"placement matches: {placement}", width, "  ")
        if detailed and status.last_fault:
            lines += _wrapped(f"latest fault: {status.last_fault}", width, "  ")
    return lines


def _wrapped(text: str, width: int, indent: str = "") -> list[str]:
    """``text`` (an author's: shown, never interpreted) wrapped between words to ``width``
    columns under ``indent``, as ``arena`` and ``upload_bot`` wrap theirs: each of its lines
    on its own, a compiler's quote of the code and the caret under it kept as they are."""
    said = wrapped(untrusted.printable(text), max(width, 40) - len(indent), keep_indented=True)
    return [indent + line for line in said.splitlines()]
