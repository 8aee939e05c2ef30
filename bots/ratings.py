"""Ratings (openskill's Plackett-Luce model) and leaderboard rows.

Order: an openskill update depends on the ratings it starts from, so the same matches rated
in another order give (slightly) different ratings. Workers finish in any order, so ratings
are not applied in finishing order: each game has a :class:`~bots.models.RatingLedger` and
matches are rated in *job order* (job id), each as soon as every earlier job of its game is
done or failed. Whatever order workers finish in, the ratings come out the same. The price:
a slow match delays the ratings of the matches after it (by at most its lease and
attempts), and the results themselves are stored and visible at once.

Leaderboard rows keep the game's tournament format's running totals (its
:class:`~games.engine.tournament.Standing`), updated with :meth:`Format.tally` as each match
is rated, so a game brings its own score columns by bringing its format.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from typing import Any

from django.db.models import F
from openskill.models import PlackettLuce

from bots.models import (
    Bot,
    BotVersion,
    LeaderboardRow,
    Match,
    MatchJob,
    Rating,
    RatingHistory,
)
from games.engine.runner import MatchOutcome, SeatStats
from games.engine.tournament import Format, Standing
from games.registry import get_game

MODEL = PlackettLuce()
#: a new version of a rated bot is less certain: its sigma goes back up to at least this
NEW_VERSION_SIGMA = MODEL.sigma / 2
#: how many jobs one call rates at most (the rest on the next store)
BATCH = 500


def conservative(mu: float, sigma: float) -> float:
    return mu - 3 * sigma


def rating_for(bot: Bot) -> Rating:
    rating, _ = Rating.objects.get_or_create(
        bot=bot, defaults={"game": bot.game, "mu": MODEL.mu, "sigma": MODEL.sigma}
    )
    return rating


def on_new_version(version: BotVersion) -> None:
    """A version became active: its bot gets a rating (or a wider sigma) and a row."""
    rating = rating_for(version.bot)
    if rating.sigma < NEW_VERSION_SIGMA:
        rating.sigma = NEW_VERSION_SIGMA
        rating.save(update_fields=["sigma", "updated"])
    _row(version.bot, rating)
    rerank(version.bot.game)


def _row(bot: Bot, rating: Rating) -> LeaderboardRow:
    row, _ = LeaderboardRow.objects.get_or_create(
        bot=bot,
        defaults={
            "game": bot.game,
            "mu": rating.mu,
            "sigma": rating.sigma,
            "conservative": conservative(rating.mu, rating.sigma),
        },
    )
    row.mu, row.sigma = rating.mu, rating.sigma
    row.conservative = conservative(rating.mu, rating.sigma)
    return row


def rate_pending(game: str) -> int:
    """Inside a transaction: rate every match whose job, and every earlier job of the game,
    has finished. Returns how many matches were rated."""
    from bots.competition import lock_ledger

    ledger = lock_ledger(game)
    rows = (
        MatchJob.objects.filter(game=game, pk__gt=ledger.rated_through)
        .order_by("pk")
        .values_list("pk", "status")[:BATCH]
    )
    rated = 0
    for pk, status in rows:
        if status == MatchJob.DONE:
            match = Match.objects.filter(job_id=pk, rated=False).first()
            if match is not None:
                rate_match(match)
                rated += 1
        elif status != MatchJob.FAILED:
            break
        ledger.rated_through = pk
    ledger.save(update_fields=["rated_through"])
    if rated:
        rerank(game)
    return rated


def outcome_of(match: Match) -> MatchOutcome:
    """The match's outcome rebuilt from its record (a replay: no bot runs)."""
    spec = get_game(match.game)
    record = match.record
    state = spec.state_class.replay(record["events"], len(record["seats"]), record["config"])
    stats = [SeatStats(**s) for s in record.get("stats", [])]
    return MatchOutcome(record=record, state=state, stats=stats)


def rate_match(match: Match) -> None:
    seats = list(match.participants.select_related("bot").order_by("seat"))
    bots = [s.bot for s in seats]
    ratings = [rating_for(bot) for bot in bots]
    if len(seats) < 2:
        # A one-seat game (UTH: a bot against the dealer) has no opponent in the match to be
        # rated against: it gets its leaderboard numbers only (see docs/competition.md).
        _tally(match, bots, ratings)
        Match.objects.filter(pk=match.pk).update(rated=True)
        return
    teams = [[MODEL.rating(mu=r.mu, sigma=r.sigma)] for r in ratings]
    fmt = format_of(match.game)
    sign = 1 if fmt is None or fmt.higher_is_better else -1  # Last Card: points taken
    new = MODEL.rate(teams, scores=[sign * s.score for s in seats])
    for seat, rating, [after] in zip(seats, ratings, new, strict=True):
        RatingHistory.objects.create(
            bot=seat.bot,
            match=match,
            mu=after.mu,
            sigma=after.sigma,
            mu_before=rating.mu,
            sigma_before=rating.sigma,
        )
        Rating.objects.filter(pk=rating.pk).update(
            mu=after.mu, sigma=after.sigma, matches=F("matches") + 1
        )
        rating.mu, rating.sigma = after.mu, after.sigma
    _tally(match, bots, ratings)
    Match.objects.filter(pk=match.pk).update(rated=True)


# ---- leaderboard rows -----------------------------------------------------------------------
def standing_to_json(standing: Standing) -> dict[str, Any]:
    data = dataclasses.asdict(standing)
    data["fault_kinds"] = dict(standing.fault_kinds)
    return data


def standing_from_json(data: dict[str, Any], name: str) -> Standing:
    if not data:
        return Standing(name=name, source="upload")
    data = dict(data)
    data["fault_kinds"] = Counter(data.get("fault_kinds", {}))
    data["name"] = name
    return Standing(**data)


def format_of(game: str) -> Format | None:
    spec = get_game(game)
    return spec.tournament() if spec.tournament else None


def _tally(match: Match, bots: list[Bot], ratings: list[Rating]) -> None:
    fmt = format_of(match.game)
    rows = [_row(bot, rating) for bot, rating in zip(bots, ratings, strict=True)]
    standings = [
        standing_from_json(row.standing, bot.label) for row, bot in zip(rows, bots, strict=True)
    ]
    if fmt is not None:
        fmt.tally(standings, outcome_of(match))
    for row, standing in zip(rows, standings, strict=True):
        row.matches = standing.matches
        row.faults = standing.faults
        row.standing = standing_to_json(standing)
        row.score = fmt.bot_json(standing) if fmt is not None else {}
        row.head_to_head = standing.head_to_head
        row.last_played = match.played
        row.save()


def rerank(game: str) -> None:
    """Rank by the conservative estimate mu - 3 sigma; ties (one-seat games, which have no
    rating) go by the game's own ranking of its scores, then by more matches."""
    rows = list(LeaderboardRow.objects.filter(game=game).select_related("bot", "bot__owner"))
    fmt = format_of(game)
    own: dict[str, int] = {}
    if fmt is not None:
        ranked = fmt.rank([row.score for row in rows if row.score])
        own = {entry["name"]: n for n, entry in enumerate(ranked)}
    rows.sort(
        key=lambda r: (
            -round(r.conservative, 9),
            own.get(r.bot.label, len(own)),
            -r.matches,
            r.bot_id,
        )
    )
    for n, row in enumerate(rows, start=1):
        row.rank = n
    LeaderboardRow.objects.bulk_update(rows, ["rank"])


def leaderboard(game: str) -> dict[str, Any]:
    """Headers and rows of a game's leaderboard: rank, bot, owner, rating +/- uncertainty,
    matches, the game's own columns, head-to-head and last played."""
    fmt = format_of(game)
    own = fmt.columns() if fmt is not None else []
    headers = ["rank", "bot", "owner", "rating", "mu +/- sigma", "matches"]
    headers += [title for title, _ in own] + ["head-to-head", "last played"]
    rows = []
    for row in LeaderboardRow.objects.filter(game=game).select_related("bot", "bot__owner"):
        cells = [
            str(row.rank),
            row.bot.name,
            row.bot.owner.get_username(),
            f"{row.conservative:.2f}",
            f"{row.mu:.2f} +/- {row.sigma:.2f}",
            str(row.matches),
        ]
        cells += [show(row.score) if row.score else "-" for _, show in own]
        cells.append(
            ", ".join(
                f"{other} {mine:g}-{theirs:g}"
                for other, (mine, theirs) in sorted(row.head_to_head.items())
            )
        )
        cells.append(row.last_played.strftime("%Y-%m-%d %H:%M") if row.last_played else "-")
        rows.append(cells)
    return {"game": game, "headers": headers, "rows": rows}
