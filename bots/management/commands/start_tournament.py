"""``manage.py start_tournament``: queue a full round robin of a game's active bots."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.management.base import CommandError, CommandParser

from bots.competition import start_round_robin
from bots.management.commands.upload_bot import _quiet_log
from games.engine.options import OptionError, add_option_argument, parse_options
from games.engine.terminal import HelpOnDemand, stream_width, wrapped
from games.management.database import DatabaseCommand
from games.registry import game_slugs, get_game


class GameTime(HelpOnDemand):
    """``--move``/``--bank``: seconds, whose help says the games' own (``part`` of their
    time control), read from the games' specs only when the help is shown (loading every
    game's spec costs each run a third of a second)."""

    def __init__(self, *args: Any, part: str, what: str, **kwargs: Any) -> None:
        self.part, self.what = part, what
        super().__init__(*args, **kwargs)

    def help_text(self) -> str:
        from bots.running.timing import site_time_control
        from games.registry import games

        own = {g.slug: getattr(site_time_control(g), self.part) for g in games()}
        if len(set(own.values())) == 1:
            default = f"the game's, {next(iter(own.values())):g} s"
        else:
            default = "the game's: " + ", ".join(f"{slug} {s:g} s" for slug, s in own.items())
        return f"{self.what} (default: {default})"


class Command(DatabaseCommand):
    help = "Queue a round robin of N rounds between every active bot of a game."

    def add_arguments(self, parser: CommandParser) -> None:
        slugs = game_slugs()
        parser.add_argument(  # (unknown, it is refused in the command's own wrapped words)
            "--game",
            default=slugs[0],
            metavar="GAME",
            help=f"the game: {', '.join(slugs[:-1])} or {slugs[-1]} (default: %(default)s)",
        )
        parser.add_argument(
            "--rounds",
            type=int,
            default=1,
            metavar="N",
            help="rounds of the round robin; in each, every pair (or table) of active bots "
            "plays one deal in each seating (default: %(default)s)",
        )
        parser.add_argument(
            "--seed",
            type=int,
            default=None,
            metavar="S",
            help="the seed of the tournament's deals, to play the same deals again (default: "
            "random); refused if its deals were dealt before",
        )
        parser.add_argument(
            "--name",
            default="",
            help="the tournament's name on the site (default: its game's title, its format "
            'and its number, such as "<game> round robin #26")',
        )
        parser.add_argument(
            "--move",
            type=float,
            default=None,
            metavar="SECONDS",
            action=GameTime,
            part="move",
            what="seconds a bot may take to answer each call",
        )
        parser.add_argument(
            "--bank",
            type=float,
            default=None,
            metavar="SECONDS",
            action=GameTime,
            part="bank",
            what="seconds of time bank per match: what a bot's calls may take beyond --move, "
            "in all",
        )
        add_option_argument(parser)
        seconds = getattr(settings, "WORKER_SECONDS_PER_BOT_PER_TOURNAMENT", 0)
        parser.add_argument(
            "--worker-seconds",
            type=float,
            default=None,
            metavar="SECONDS",
            help="worker time each bot may use in the tournament, 0 for no bound (default: "
            f"{seconds:g}, the site's WORKER_SECONDS_PER_BOT_PER_TOURNAMENT)",
        )

    def handle(self, *args, **opts) -> None:
        # the log's records (event=tournament.start) are for the worker's and the server's
        # logs: a person running this command reads its own line (-v 2 shows them too)
        with _quiet_log(opts["verbosity"] < 2):
            self._start(opts)

    def _start(self, opts: dict[str, Any]) -> None:
        if opts["rounds"] < 1:
            raise self._error("--rounds must be at least 1")
        try:
            options = parse_options(get_game(opts["game"]), opts["option"])
        except KeyError as exc:
            raise self._error(str(exc.args[0])) from None
        except OptionError as exc:
            raise self._error(f"--option: {exc}") from None
        try:
            tournament = start_round_robin(
                opts["game"],
                opts["rounds"],
                seed=opts["seed"],
                name=opts["name"],
                move=opts["move"],
                bank=opts["bank"],
                worker_s=opts["worker_seconds"],
                options=options,
            )
        except (KeyError, ValueError) as exc:
            raise self._error(str(exc.args[0])) from None
        chosen = "".join(f", {k}={v}" for k, v in options.items())
        self.stdout.write(
            f"tournament {tournament.pk}: {tournament.jobs.count()} matches queued "
            f"(seed {tournament.settings['seed']}{chosen})"
        )

    def _error(self, message: str) -> CommandError:
        """``message`` as the CommandError Django prints ("CommandError: " before it),
        wrapped between words to the terminal's width (a terminal cut a game's name in two)."""
        said = wrapped(f"CommandError: {message}", stream_width(getattr(self.stderr, "_out", None)))
        return CommandError(said.removeprefix("CommandError: "))
