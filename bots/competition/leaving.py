"""A version leaving the competition (retired by its owner, taken off the ladder for its
faults: bots.competition.uploads, bots.competition.faults): its queued matches withdrawn
(but for the other seatings of a deal it has played), and the tournaments that leaves with
nothing to play finished. The site's built-in bots never leave. Below the package's other
modules, which all may import it."""

from __future__ import annotations

from collections.abc import Iterable

from django.db import connection
from django.db.models import Exists, Func, Q, QuerySet, TextField, Value
from django.db.models.functions import Cast, Replace
from django.utils import timezone

from bots.ladder.ratings import rate_pending
from bots.models import HOUSE, BotVersion, MatchJob, Tournament
from games.registry import get_game


def is_builtin(version: BotVersion) -> bool:
    """Whether ``version`` is one of the site's own built-in bots, entered into the
    competition by ``seed_builtins``: owned by :data:`HOUSE`, named as a built-in bot of its
    game."""
    bot = version.bot
    if bot.owner.get_username() != HOUSE:
        return False
    try:
        return bot.name in get_game(bot.game).builtin_names
    except KeyError:
        return False


#: how the error of a job withdrawn begins (a bot in it left before it was played), which
#: tells it from a job the site could not play: "withdrawn: the bot was retired by its owner"
WITHDRAWN = "withdrawn: "


def withdraw_queued_jobs(version: BotVersion, error: str) -> int:
    """Inside a transaction holding the game's rating ledger: fail the queued jobs that
    seat ``version``, then rate what that unblocks and finish tournaments left empty.

    Except the other seatings of a deal it has already played or is playing (the same
    tournament and seed, one of its seatings done or running): those stay queued and the
    version still plays them (a job names versions, so its code is fixed). Each deal is
    played twice with the seats swapped to cut luck; withdrawing only the second seating
    would let an owner who saw the first keep a lucky deal and drop its twin."""
    queued = seating(version).filter(game=version.bot.game, status=MatchJob.QUEUED)
    hit = list(queued.values_list("pk", "tournament_id", "seed"))
    if not hit:
        return 0
    # (its own seatings: a one-seat game deals one seed to every bot, and a deal others
    # played is not one it saw)
    played = set(
        seating(version)
        .filter(
            game=version.bot.game,  # through the index on game and seed
            tournament_id__in={t for _, t, _ in hit},
            seed__in={seed for _, _, seed in hit},
            status__in=[MatchJob.DONE, MatchJob.RUNNING],
        )
        .values_list("tournament_id", "seed")
    )
    withdrawn = [(pk, t) for pk, t, seed in hit if (t, seed) not in played]
    if not withdrawn:
        return 0
    count = MatchJob.objects.filter(
        pk__in=[pk for pk, _ in withdrawn], status=MatchJob.QUEUED
    ).update(status=MatchJob.FAILED, error=error, finished=timezone.now(), lease_until=None)
    rate_pending(version.bot.game)
    for tournament_id in sorted({t for _, t in withdrawn}):
        maybe_finish(tournament_id)
    return count


def seating(version: BotVersion) -> QuerySet[MatchJob]:
    """The match jobs that seat ``version``, found by the database, not by reading every
    job's seats into Python (a retirement did, 6 s for 100,000 jobs queued)."""
    return seating_any([version.pk])


def seating_any(version_ids: Iterable[int]) -> QuerySet[MatchJob]:
    """The match jobs that seat any of ``version_ids`` (at least one). A job's seats are a
    JSON list of version ids: on PostgreSQL, the lists that contain an id (``@>``);
    elsewhere (SQLite has no such test), the lists whose text, without its spaces and with
    each bracket a comma (``[12, 3]`` as ``,12,3,``), holds ``,<id>,``: exactly the same."""
    ids = sorted(set(version_ids))
    if not ids:
        raise ValueError("seating_any needs a version")
    seats = Q()
    if connection.vendor == "postgresql":
        for pk in ids:
            seats |= Q(seats__contains=[pk])
        return MatchJob.objects.filter(seats).order_by()
    listed: Func = Cast("seats", TextField())
    for mark, instead in ((" ", ""), ("[", ","), ("]", ",")):
        listed = Replace(listed, Value(mark, TextField()), Value(instead, TextField()))
    for pk in ids:
        seats |= Q(listed__contains=f",{pk},")
    return MatchJob.objects.alias(listed=listed).filter(seats).order_by()


def maybe_finish(tournament_id: int) -> bool:
    """Mark the tournament done if none of its jobs is queued or running (one UPDATE).
    Called after the job's own transaction committed: of two workers storing a
    tournament's last jobs at once, the one that commits last sees both done."""
    open_jobs = MatchJob.objects.filter(
        tournament_id=tournament_id, status__in=[MatchJob.QUEUED, MatchJob.RUNNING]
    )
    return bool(
        Tournament.objects.filter(~Exists(open_jobs), pk=tournament_id)
        .exclude(state=Tournament.DONE)
        .update(state=Tournament.DONE, finished=timezone.now())
    )
