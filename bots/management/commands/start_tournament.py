"""``manage.py start_tournament``: queue a full round robin of a game's active bots."""

from __future__ import annotations

from django.core.management.base import CommandError, CommandParser

from bots.competition import start_round_robin
from games.engine.options import OptionError, add_option_argument, parse_options
from games.management.database import DatabaseCommand
from games.registry import game_slugs, get_game


class Command(DatabaseCommand):
    help = "Queue a round robin of N rounds between every active bot of a game."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--game", default=game_slugs()[0], help="(default: %(default)s)")
        parser.add_argument("--rounds", type=int, default=1)
        parser.add_argument("--seed", type=int, default=None)
        parser.add_argument("--name", default="")
        parser.add_argument("--move", type=float, default=None, help="seconds per call")
        parser.add_argument("--bank", type=float, default=None, help="time bank per match")
        add_option_argument(parser)
        parser.add_argument(
            "--worker-seconds",
            type=float,
            default=None,
            help="worker time each bot may use in the tournament, 0 for no bound "
            "(default: WORKER_SECONDS_PER_BOT_PER_TOURNAMENT)",
        )

    def handle(self, *args, **opts) -> None:
        if opts["rounds"] < 1:
            raise CommandError("--rounds must be at least 1")
        try:
            options = parse_options(get_game(opts["game"]), opts["option"])
        except KeyError as exc:
            raise CommandError(str(exc.args[0])) from None
        except OptionError as exc:
            raise CommandError(f"--option: {exc}") from None
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
            raise CommandError(str(exc.args[0])) from None
        chosen = "".join(f", {k}={v}" for k, v in options.items())
        self.stdout.write(
            f"tournament {tournament.pk}: {tournament.jobs.count()} matches queued "
            f"(seed {tournament.settings['seed']}{chosen})"
        )
