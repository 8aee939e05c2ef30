"""Where a bot stands, and why a worker has nothing to do, in words: for the command line
(``manage.py standings``, ``manage.py upload_bot --wait``, ``manage.py worker``), which the
worker's log (ids only) did not tell.

A bot's status follows its newest version: waiting for a worker to validate it, being
validated, rejected (with the reason), taken off the ladder for faulting in its rated
matches (with the reason), or active; an active version's placement matches
(played of scheduled, and those withdrawn or failed: not played), then its rank among the
game's bots, its rating or score, its matches and faults, and its latest fault with the
match it happened in.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

from django.db.models import Count, Q

from bots.clock import shared_now
from bots.competition import uploads
from bots.competition.leaving import WITHDRAWN
from bots.ladder.ratings import ranking_measure
from bots.models import Bot, BotVersion, LeaderboardRow, MatchJob, MatchSeat, Tournament
from games.registry import get_game


@dataclass
class Placement:
    """A version's placement matches: played, withdrawn (a bot in them was retired or taken
    off the ladder before they were played), failed (the site could not play them) and
    scheduled. Withdrawn and failed matches were not played and are not rated."""

    played: int
    withdrawn: int
    failed: int
    total: int

    @property
    def finished(self) -> bool:
        return self.played + self.withdrawn + self.failed >= self.total

    @property
    def text(self) -> str:
        """The words: "20 of 24 played, 4 withdrawn (not played: ...)"."""
        parts = [f"{self.played} of {self.total} played"]
        if self.withdrawn:
            parts.append(f"{self.withdrawn} withdrawn (not played: a bot in them was withdrawn)")
        if self.failed:
            parts.append(f"{self.failed} failed (not played: the site could not play them)")
        return ", ".join(parts)


@dataclass
class BotStatus:
    """One bot's standing, as the command line shows it."""

    bot: str
    game: str
    #: its newest version's number and status (validating, active, rejected, retired)
    version: int | None
    status: str
    #: one line saying what happens next, or what went wrong
    detail: str
    #: placement matches of the active version (None: none scheduled)
    placement: Placement | None = None
    rank: int | None = None
    ranked: int | None = None
    provisional: bool = False
    #: the number the game ranks by, with its name ("rating", "mean net per hand"...)
    measure: str = ""
    measure_title: str = ""
    matches: int = 0
    faults: int = 0
    last_fault: str = ""
    #: its newest version was taken off the ladder for faulting in its rated matches after
    #: validation (status rejected; ``detail`` says why: bots.competition.faults)
    taken_off: bool = False

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @property
    def rated(self) -> bool:
        """Placed and ranked: the end of what ``upload_bot --wait`` follows."""
        done = self.placement is None or self.placement.finished
        return self.status == BotVersion.ACTIVE and self.rank is not None and done


def bot_status(bot: Bot) -> BotStatus:
    version = bot.versions.order_by("-number").first()
    active = bot.active_version()
    status = BotStatus(
        bot=bot.label,
        game=bot.game,
        version=version.number if version else None,
        status=version.status if version else "none",
        detail="",
    )
    if version is None:
        status.detail = "no version uploaded"
        return status
    if version.status == BotVersion.VALIDATING:
        status.detail = _validating(version)
    elif version.is_taken_off:  # "taken off the ladder: it faulted in 5 rated matches..."
        status.taken_off = True
        status.detail = f"v{version.number} {version.reason}"
    elif version.status == BotVersion.REJECTED:
        status.detail = f"v{version.number} rejected: {version.reason}"
        if active is not None:
            status.detail += f" (v{active.number} still competes)"
    elif version.status == BotVersion.RETIRED:
        status.detail = "retired: no version competes"
    if active is not None:
        status.placement = _placement(active)
        if status.placement and not status.placement.finished:
            status.detail = status.detail or (
                f"v{active.number} active: placement matches {status.placement.text}"
            )
    row = LeaderboardRow.objects.filter(bot=bot).first()
    if row is not None:
        status.matches, status.faults = row.matches, row.faults
        if row.rank > 0:
            status.rank, status.provisional = row.rank, row.provisional
            status.ranked = LeaderboardRow.objects.filter(game=bot.game, rank__gt=0).count()
            measure = ranking_measure(row)
            status.measure, status.measure_title = measure["text"], measure["title"]
    if active is not None and not status.detail:
        if status.rank is None:
            status.detail = f"v{active.number} active: waiting for its first rating"
        else:
            settled = " (provisional)" if status.provisional else ""
            status.detail = (
                f"v{active.number} active: rank {status.rank} of {status.ranked}{settled}, "
                f"{status.measure_title} {status.measure}"
            )
    seat = MatchSeat.objects.filter(bot=bot).exclude(fault_kind="").order_by("-match_id").first()
    if seat is not None:
        status.last_fault = f"{seat.fault_kind} in match {seat.match_id}: {seat.fault_reason}"
    return status


def _validating(version: BotVersion) -> str:
    now = shared_now()  # (the lease is on the database's clock)
    if version.validation_lease is not None and version.validation_lease > now:
        if uploads.is_paused(version):  # (its lease is a pause's end, not a worker's)
            left = max(1, math.ceil((version.validation_lease - now).total_seconds()))
            return (
                f"v{version.number} waits: the site had trouble validating it (not the bot's "
                f"doing); a worker tries again in {left} s"
            )
        return f"v{version.number} is being validated by a worker"
    others = BotVersion.objects.filter(status=BotVersion.VALIDATING).exclude(pk=version.pk)
    count = others.count()
    queue = f" ({count} other version{'s' if count != 1 else ''} wait too)" if count else ""
    idle = "" if workers_at_work() else ": no worker is at work now; is `manage.py worker` running?"
    return f"v{version.number} waits for a worker to validate it{queue}{idle}"


def workers_at_work() -> bool:
    """Whether some worker holds a validation or a match now (its lease has not run out)."""
    now = shared_now()
    return (
        BotVersion.objects.filter(validation_lease__gt=now).exists()
        or MatchJob.objects.filter(status=MatchJob.RUNNING, lease_until__gt=now).exists()
    )


def _placement(version: BotVersion) -> Placement | None:
    tournament = (
        Tournament.objects.filter(format=Tournament.PLACEMENT, settings__version=version.pk)
        .order_by("-pk")
        .first()
    )
    if tournament is None:
        return None
    failed = Q(status=MatchJob.FAILED)
    withdrawn = failed & Q(error__startswith=WITHDRAWN)
    counts = tournament.jobs.aggregate(
        total=Count("pk"),
        played=Count("pk", filter=Q(status=MatchJob.DONE)),
        withdrawn=Count("pk", filter=withdrawn),
        failed=Count("pk", filter=failed & ~withdrawn),
    )
    return Placement(**counts)


def idle_reasons(ladder_interval_s: float | None = None) -> list[str]:
    """Why a worker finds nothing to do: what it would take work from, and that it is empty,
    with what would give it some (``ladder_interval_s``: the worker's ``--ladder-interval``,
    if known)."""
    waiting = BotVersion.objects.filter(status=BotVersion.VALIDATING).count()
    queued = MatchJob.objects.filter(status=MatchJob.QUEUED).count()
    if waiting or queued:  # work that is not ours to take now (leased, or turned off)
        return [
            f"{waiting} version(s) waiting for validation and {queued} match(es) queued, none"
            " of them for this worker now (another worker holds them, or its options leave"
            " them out)"
        ]
    reasons = ["no version waits for validation and no match is queued"]
    active = (
        BotVersion.objects.filter(status=BotVersion.ACTIVE)
        .values("bot__game")
        .annotate(n=Count("pk"))
    )
    by_game = {row["bot__game"]: row["n"] for row in active}
    if not by_game:
        reasons.append(
            "no bot competes in any game yet: `manage.py seed_builtins` enters the built-in "
            "bots, `manage.py upload_bot FILE --user NAME` uploads one"
        )
    else:
        few = [f"{get_game(g).title} ({n})" for g, n in sorted(by_game.items()) if n < 2]
        if few:
            reasons.append(
                "a round needs two active bots of a game; these have one: " + ", ".join(few)
            )
        elif ladder_interval_s is None:
            reasons.append(
                "the games' regular rounds start when idle, every --ladder-interval seconds"
            )
        elif ladder_interval_s <= 0:
            reasons.append("this worker starts no regular rounds (--ladder-interval 0)")
        else:
            reasons.append(
                "the games' regular rounds start when idle, every "
                f"{ladder_interval_s:g} seconds (--ladder-interval)"
            )
    return reasons
