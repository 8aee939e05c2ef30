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

from django.db.models import Exists, F, OuterRef, QuerySet
from openskill.models import PlackettLuce

from bots.models import (
    Bot,
    BotVersion,
    LeaderboardRow,
    Match,
    MatchJob,
    MatchSeat,
    Rating,
    RatingHistory,
    RatingLedger,
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


def lock_ledger(game: str) -> RatingLedger:
    """The game's rating ledger, locked until the transaction ends. Scheduling
    (bots.competition) and rating both take it, so a game's job ids are committed in order."""
    RatingLedger.objects.get_or_create(game=game)
    return RatingLedger.objects.select_for_update().get(game=game)


def rate_pending(game: str) -> int:
    """Inside a transaction: rate every match whose job, and every earlier job of the game,
    has finished. Returns how many matches were rated."""
    ledger = lock_ledger(game)
    rows = (
        MatchJob.objects.filter(game=game, pk__gt=ledger.rated_through)
        .order_by("pk")
        .values_list("pk", "status", "tournament_id", "seed")[:BATCH]
    )
    alone = get_game(game).plays_alone
    rated = 0
    for pk, status, tournament_id, seed in rows:
        if status == MatchJob.DONE:
            match = Match.objects.filter(job_id=pk, rated=False).first()
            if match is not None and alone:
                deal = _deal_of(tournament_id, seed)
                if deal is None:
                    break  # a bot of the same deal is still playing
                rate_deal(deal)
                rated += len(deal)
            elif match is not None:
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


def _sign(game: str) -> int:
    fmt = format_of(game)
    return 1 if fmt is None or fmt.higher_is_better else -1  # Last Card: points taken


def _update(match: Match, bot: Bot, rating: Rating, mu: float, sigma: float) -> None:
    RatingHistory.objects.create(
        bot=bot, match=match, mu=mu, sigma=sigma, mu_before=rating.mu, sigma_before=rating.sigma,
        number=rating.matches + 1,  # a bot's history counts its rated matches
    )  # fmt: skip
    Rating.objects.filter(pk=rating.pk).update(mu=mu, sigma=sigma, matches=F("matches") + 1)
    rating.mu, rating.sigma, rating.matches = mu, sigma, rating.matches + 1


def rate_match(match: Match) -> None:
    """A match with two or more seats: its seats are ranked by score against each other."""
    seats = list(match.participants.select_related("bot").order_by("seat"))
    bots = [s.bot for s in seats]
    ratings = [rating_for(bot) for bot in bots]
    if len(seats) >= 2:
        teams = [[MODEL.rating(mu=r.mu, sigma=r.sigma)] for r in ratings]
        new = MODEL.rate(teams, scores=[_sign(match.game) * s.score for s in seats])
        for seat, rating, [after] in zip(seats, ratings, new, strict=True):
            _update(match, seat.bot, rating, after.mu, after.sigma)
    _tally(match, bots, ratings)
    Match.objects.filter(pk=match.pk).update(rated=True)


# ---- one-seat games: bots compared on the same deal ----------------------------------------
def _deal_of(tournament_id: int, seed: int) -> list[Match] | None:
    """The matches a tournament played on one deal (one seed), or None while any of its jobs
    is still queued or running. A deal's jobs are created together, so they are consecutive
    in job order and the deal is rated when its last one finishes."""
    jobs = list(
        MatchJob.objects.filter(tournament_id=tournament_id, seed=seed).values_list("pk", "status")
    )
    if any(status not in (MatchJob.DONE, MatchJob.FAILED) for _, status in jobs):
        return None
    done = [pk for pk, status in jobs if status == MatchJob.DONE]
    return list(Match.objects.filter(job_id__in=done, rated=False).order_by("job_id"))


def rate_deal(matches: list[Match]) -> None:
    """Bots that play alone against the dealer (UTH) are rated against each other on the
    same cards: every match of one deal (one seed) is a seat of one openskill game, ranked by
    the chips it won. Bots rated earlier on the same deal (a newcomer's placement replays the
    deals the others played) take part as fixed references: their ratings do not move, the
    newcomer's do. A deal nobody else has played yet gives leaderboard numbers only."""
    game, seed = matches[0].game, matches[0].seed
    seats = [m.participants.select_related("bot").get() for m in matches]
    bots = [s.bot for s in seats]
    ratings = [rating_for(bot) for bot in bots]
    references = _references(game, seed, exclude={b.pk for b in bots})
    if len(seats) + len(references) >= 2:
        teams = [[MODEL.rating(mu=r.mu, sigma=r.sigma)] for r in ratings]
        teams += [[MODEL.rating(mu=r.mu, sigma=r.sigma)] for r, _ in references]
        scores = [s.score for s in seats] + [score for _, score in references]
        new = MODEL.rate(teams, scores=[_sign(game) * s for s in scores])
        mine = new[: len(seats)]  # the references' new ratings are not kept
        for match, seat, rating, [after] in zip(matches, seats, ratings, mine, strict=True):
            _update(match, seat.bot, rating, after.mu, after.sigma)
    for match, bot, rating in zip(matches, bots, ratings, strict=True):
        _tally(match, [bot], [rating])
        Match.objects.filter(pk=match.pk).update(rated=True)


def _references(game: str, seed: int, exclude: set[int]) -> list[tuple[Rating, float]]:
    """Each other rated bot's latest result on this deal, with its current rating."""
    seen: set[int] = set()
    found = []
    earlier = (
        MatchSeat.objects.filter(match__game=game, match__seed=seed, match__rated=True)
        .exclude(bot_id__in=exclude)
        .select_related("bot")
        .order_by("-match__job_id")
    )
    for seat in earlier:
        if seat.bot_id in seen:
            continue
        seen.add(seat.bot_id)
        found.append((rating_for(seat.bot), seat.score))
    return found


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
    """Rank the bots competing now (those with an active version; a retired bot keeps its
    row and history, with rank 0). A game whose format is ranked by rating: by the
    conservative estimate mu - 3 sigma, ties by the format's own ranking of its scores, then
    by more matches. A game ranked by its score (alone against a dealer, on the same deals):
    by the format's ranking of the bots that have an estimate, then those that have none
    yet; a rank is provisional where the bot has no estimate or its interval overlaps a
    neighbour's, so the order shown never claims more than the numbers beside it."""
    competing = BotVersion.objects.filter(bot=OuterRef("bot"), status=BotVersion.ACTIVE)
    rows = list(
        LeaderboardRow.objects.filter(game=game)
        .select_related("bot", "bot__owner")
        .annotate(competing=Exists(competing))
    )
    fmt = format_of(game)
    ranked = [r for r in rows if r.competing]
    own: dict[str, int] = {}
    if fmt is not None:
        order = fmt.rank([row.score for row in ranked if row.score])
        own = {entry["name"]: n for n, entry in enumerate(order)}
    if fmt is None or fmt.ranked_by_rating:
        ranked.sort(
            key=lambda r: (
                -round(r.conservative, 9),
                own.get(r.bot.label, len(own)),
                -r.matches,
                r.bot_id,
            )
        )
        provisional = [False] * len(ranked)
    else:
        intervals = {row.pk: fmt.interval(row.score) if row.score else None for row in ranked}
        ranked.sort(
            key=lambda r: (
                intervals[r.pk] is None,
                own.get(r.bot.label, len(own)),
                -r.matches,
                r.bot_id,
            )
        )
        spans = [intervals[r.pk] for r in ranked]
        provisional = [
            span is None
            or (n > 0 and _overlap(span, spans[n - 1]))
            or (n + 1 < len(spans) and _overlap(span, spans[n + 1]))
            for n, span in enumerate(spans)
        ]
    for n, (row, unsettled) in enumerate(zip(ranked, provisional, strict=True), start=1):
        row.rank, row.provisional = n, unsettled
    for row in rows:
        if not row.competing:
            row.rank, row.provisional = 0, False
    LeaderboardRow.objects.bulk_update(rows, ["rank", "provisional"])


def _overlap(a: tuple[float, float] | None, b: tuple[float, float] | None) -> bool:
    """Whether two intervals are not separated (an estimate missing is never separated)."""
    return a is None or b is None or (a[0] <= b[1] and b[0] <= a[1])


def ranked_rows(game: str) -> QuerySet[LeaderboardRow]:
    """The rows of the bots in the ranking, best first (retired bots are not among them)."""
    return (
        LeaderboardRow.objects.filter(game=game, rank__gt=0)
        .select_related("bot", "bot__owner")
        .order_by("rank", "pk")
    )


def ranked_by(game: str) -> str:
    """What a game's ranking goes by, in words (pages and the API)."""
    fmt = format_of(game)
    if fmt is None or fmt.ranked_by_rating:
        return "rating = mu - 3 sigma, ties by the game's own score"
    return (
        f"{fmt.score_label} on the same deals, with its 95% interval; a rank is provisional "
        "until the bot's interval is separated from its neighbours'"
    )


def ranking_measure(row: LeaderboardRow) -> dict[str, Any]:
    """The number a row is ranked by, as a cell (``text``, ``value``) with its name (``title``):
    the rating, or the format's score (the first of its columns)."""
    fmt = format_of(row.game)
    if fmt is None or fmt.ranked_by_rating or not row.score:
        return _cell(f"{row.conservative:.2f}", row.conservative) | {"title": "rating"}
    column = fmt.columns()[0]
    try:
        return column.cell(row.score) | {"title": column.title}
    except (KeyError, TypeError, ValueError):  # a row stored before the column's keys
        score = row.score.get("score")
        text = f"{score:+.2f}" if isinstance(score, int | float) else "-"
        return _cell(text, score) | {"title": fmt.score_label}


def leaderboard(game: str) -> dict[str, Any]:
    """Headers and rows of a game's leaderboard: rank, bot, owner, rating +/- uncertainty,
    matches, the game's own columns, head-to-head and last played. Each row is its
    LeaderboardRow (``row``) and its cells, each ``{"text": ..., "value": ...}``: the value
    is the number (or text) the cell shows, for sorting and for JSON."""
    fmt = format_of(game)
    own = fmt.columns() if fmt is not None else []
    rated = fmt is None or fmt.ranked_by_rating
    headers = ["rank", "bot", "owner"]
    # a game ranked by its own score shows that score first and no rating beside it
    headers += ["rating", "mu +/- sigma"] if rated else []
    headers += ["matches", *(column.title for column in own), "head-to-head", "last played"]
    rows = []
    for row in ranked_rows(game):
        rank = f"{row.rank} (provisional)" if row.provisional else str(row.rank)
        cells = [
            _cell(rank, row.rank),
            _cell(row.bot.name, row.bot.name.lower()),
            _cell(row.bot.owner.get_username(), row.bot.owner.get_username().lower()),
        ]
        if rated:
            cells += [
                _cell(f"{row.conservative:.2f}", row.conservative),
                _cell(f"{row.mu:.2f} +/- {row.sigma:.2f}", row.mu),
            ]
        cells.append(_cell(str(row.matches), row.matches))
        cells += [column.cell(row.score) if row.score else _cell("-", None) for column in own]
        h2h = ", ".join(
            f"{other} {mine:g}-{theirs:g}"
            for other, (mine, theirs) in sorted(row.head_to_head.items())
        )
        cells.append(_cell(h2h, None))
        last = row.last_played
        cells.append(
            _cell(
                last.strftime("%Y-%m-%d %H:%M") if last else "-", last.timestamp() if last else None
            )
        )
        rows.append({"row": row, "cells": cells})
    return {"game": game, "headers": headers, "rows": rows}


def _cell(text: str, value: Any) -> dict[str, Any]:
    return {"text": text, "value": value}
