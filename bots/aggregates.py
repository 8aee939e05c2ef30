"""Totals the pages show, kept up to date as results are stored instead of counted from every
match when a page is read.

``OpponentResult`` holds, for a bot and one opponent it met (another bot, or a person or
built-in bot at a live table), the matches, wins, draws and losses and both sides' points.
A bot's page lists its rows as they are: reading them costs the same at a thousand matches
as at a million. :func:`record` adds one match to them; every place that stores a match
calls it once, in the transaction that stores the match, so the totals never count a match
that is not there or miss one that is (``bots.competition.store_result`` for the worker,
``games.live.tables.store_finish`` for live tables).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from django.db import connection
from django.db.models import QuerySet

from bots.models import Match, MatchSeat, OpponentResult
from games.registry import get_game

#: the counters of an OpponentResult, in the order :class:`Tally` holds them
COUNTERS = ("matches", "wins", "draws", "losses", "points_for", "points_against")


@dataclass(frozen=True)
class Seat:
    """What the totals need of a seat: whose it is and what it scored."""

    bot_id: int | None
    name: str
    score: float


def opponent_key(seat: Seat) -> str:
    """How a row names the opponent: a bot by its id, anyone else (a person, a guest, a
    built-in bot at a live table) by the name the match shows."""
    return f"bot:{seat.bot_id}" if seat.bot_id is not None else f"name:{seat.name}"


def higher_is_better(game: str) -> bool:
    try:
        return get_game(game).higher_is_better
    except KeyError:
        return True


Tally = dict[tuple[int, str], list[float]]


def tally(seats: Sequence[Seat], higher: bool, into: Tally | None = None) -> Tally:
    """Every pair of one match's seats where the first is a bot and the second is not the
    same bot: (bot, opponent key) -> [matches, wins, draws, losses, points for, against].
    Who won goes by the game's direction (``higher``: a higher score is better)."""
    out: Tally = {} if into is None else into
    better = 1 if higher else -1
    for mine in seats:
        if mine.bot_id is None:
            continue
        for theirs in seats:
            if theirs is mine or theirs.bot_id == mine.bot_id:
                continue
            entry = out.setdefault((mine.bot_id, opponent_key(theirs)), [0, 0, 0, 0, 0.0, 0.0])
            diff = better * (mine.score - theirs.score)
            entry[0] += 1
            entry[1 if diff > 0 else 3 if diff < 0 else 2] += 1
            entry[4] += mine.score
            entry[5] += theirs.score
    return out


def _opponent_of(key: str) -> tuple[int | None, str]:
    kind, _, value = key.partition(":")
    return (int(value), "") if kind == "bot" else (None, value)


def add(totals: Tally) -> None:
    """Add ``totals`` to the rows, creating the missing ones, in one statement (an upsert
    that adds to what is there: PostgreSQL and SQLite both have ``ON CONFLICT ... DO
    UPDATE``). Rows go in key order, so two workers storing at once lock them in the same
    order and never wait on each other in a circle."""
    if not totals:
        return
    table = connection.ops.quote_name(OpponentResult._meta.db_table)
    q = connection.ops.quote_name
    columns = ["bot_id", "key", "opponent_id", "name", *COUNTERS]
    rows = []
    for (bot_id, key), values in sorted(totals.items()):
        opponent, name = _opponent_of(key)
        rows.append([bot_id, key, opponent, name, *values])
    values_sql = ", ".join(["(" + ", ".join(["%s"] * len(columns)) + ")"] * len(rows))
    updates = ", ".join(f"{q(c)} = {table}.{q(c)} + excluded.{q(c)}" for c in COUNTERS)
    sql = (
        f"INSERT INTO {table} ({', '.join(q(c) for c in columns)}) VALUES {values_sql} "
        f"ON CONFLICT ({q('bot_id')}, {q('key')}) DO UPDATE SET {updates}"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [value for row in rows for value in row])


def record(match: Match, seats: Iterable[MatchSeat]) -> None:
    """Add one stored match (its seats, as stored) to the totals: one statement. Call it
    in the transaction that stores the match."""
    record_many([(match, seats)])


def record_many(matches: Iterable[tuple[Match, Iterable[MatchSeat]]]) -> None:
    """Add stored matches (each with its seats, as stored) to the totals: one statement for
    all of them. Call it in the transaction that stores the matches."""
    totals: Tally = {}
    for match, seats in matches:
        found = [Seat(s.bot_id, s.name, s.score) for s in seats]
        tally(found, higher_is_better(match.game), totals)
    add(totals)


#: the order a bot's opponents are listed in, most met first (an index serves it: keyset
#: pages, ``cardsite.keyset``, walk it from where the last page stopped)
OPPONENT_ORDER = ["-matches", "pk"]


def opponents_of(bot_id: int) -> QuerySet[OpponentResult]:
    """A bot's results by opponent, the most met first, with each opponent bot's owner: what
    its page and the API list, a page at a time."""
    return (
        OpponentResult.objects.filter(bot_id=bot_id)
        .select_related("opponent__owner")
        .order_by(*OPPONENT_ORDER)
    )


def tally_rows(rows: Iterable[tuple[int, str, int | None, str, float]]) -> Tally:
    """The totals of seats given as (match id, game, bot id, name, score), those of one match
    next to each other."""
    out: Tally = {}
    current: list[Seat] = []
    current_match, current_game = None, ""
    for match_id, game, bot_id, name, score in rows:
        if match_id != current_match:
            tally(current, higher_is_better(current_game), out)
            current, current_match, current_game = [], match_id, game
        current.append(Seat(bot_id, name, score))
    tally(current, higher_is_better(current_game), out)
    return out


def recount(bot_ids: Iterable[int] | None = None) -> Tally:
    """The totals counted from every stored match (of ``bot_ids``' matches, or of all):
    what the kept rows must equal. For tests and benches; it reads every seat, so never
    from a page."""
    seats = MatchSeat.objects.order_by("match_id", "seat")
    wanted = None if bot_ids is None else set(bot_ids)
    if wanted is not None:
        seats = seats.filter(
            match_id__in=MatchSeat.objects.filter(bot_id__in=wanted).values("match_id")
        )
    fields = ("match_id", "match__game", "bot_id", "name", "score")
    out = tally_rows(seats.values_list(*fields).iterator(chunk_size=5000))
    if wanted is not None:
        out = {k: v for k, v in out.items() if k[0] in wanted}
    return out


def kept(bot_ids: Iterable[int] | None = None) -> Tally:
    """The kept totals, in :func:`recount`'s form."""
    rows = OpponentResult.objects.all()
    if bot_ids is not None:
        rows = rows.filter(bot_id__in=list(bot_ids))
    return {
        (bot_id, key): list(values)
        for bot_id, key, *values in rows.values_list("bot_id", "key", *COUNTERS)
    }
