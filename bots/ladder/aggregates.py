"""Totals the pages show, kept up to date as results are stored instead of counted from every
match when a page is read.

``OpponentResult`` holds, for a bot and one other bot it met in its tournament matches, the
matches, wins, draws and losses and both sides' points. A bot's page lists its rows as they
are: reading them costs the same at a thousand matches as at a million. ``TournamentResult``
does the same for each tournament: a bot's totals there (matches, points, faults) and its
results against each other bot it met there, which the tournament's standings and cross table
read instead of every seat of its matches. :func:`record` adds one match to both; the worker's
store (``bots.competition.store_result``) calls it once, in the transaction that stores the
match, so the totals never count a match that is not there or miss one that is.

A live table's match (no tournament) counts in neither: a table is friendly for its bots
(their ratings never move there), anyone may open any number of them against a bot, and a
bot's page and the leaderboard say these totals count tournament matches. Its page lists
the tables among its recent matches. Migration 0021 took out what tables had added before.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from django.db import connection
from django.db.models import QuerySet

from bots.models import Match, MatchSeat, OpponentResult, Tournament, TournamentResult
from games.registry import get_game

#: the counters of an OpponentResult, in the order :class:`Tally` holds them
COUNTERS = ("matches", "wins", "draws", "losses", "points_for", "points_against")
#: the counters of a TournamentResult that migration 0009 filled, in the order
#: :data:`TournamentTally` holds them
TOURNAMENT_COUNTERS = ("matches", "points_for", "points_against", "faults")
#: every counter of a TournamentResult, in the order :data:`TournamentTally` holds them (the
#: worker time, milliseconds, last: only the bot's totals count it)
TOURNAMENT_TOTALS = (*TOURNAMENT_COUNTERS, "worker_ms")


@dataclass(frozen=True)
class Seat:
    """What the totals need of a seat: whose it is and what it scored."""

    bot_id: int | None
    name: str
    score: float


def opponent_key(seat: Seat) -> str:
    """How a row names the opponent: a bot by its id, any other seat by the name the match
    shows (only live tables, which are not counted, seat anyone but uploaded bots: rows
    stored before migration 0021 were named so)."""
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
    """Add one stored match (its seats, as stored) to the totals: one statement (two for a
    tournament's match). Call it in the transaction that stores the match."""
    record_many([(match, seats)])


def record_many(matches: Iterable[tuple[Match, Iterable[MatchSeat]]]) -> None:
    """Add stored tournament matches (each with its seats, as stored) to the totals: two
    statements for all of them. A live table's match (no tournament) adds nothing (see the
    module's note). Call it in the transaction that stores the matches."""
    totals: Tally = {}
    kept: TournamentTally = {}
    for match, seats in matches:
        if match.tournament_id is None:
            continue
        seats = list(seats)
        found = [Seat(s.bot_id, s.name, s.score) for s in seats]
        tally(found, higher_is_better(match.game), totals)
        scored = [(s.bot_id, s.score, bool(s.fault_kind), s.worker_ms) for s in seats]
        tournament_tally(match.tournament_id, scored, plays_alone(match.game), kept)
    add(totals)
    add_tournament(kept)


#: (tournament id, bot id, opponent bot id or 0 for the bot's totals) -> [matches, points
#: for, points against, faults, worker milliseconds]
TournamentTally = dict[tuple[int, int, int], list[float]]


def plays_alone(game: str) -> bool:
    try:
        return get_game(game).plays_alone
    except KeyError:
        return False


def tournament_tally(
    tournament_id: int,
    seats: Sequence[tuple[int | None, float, bool] | tuple[int | None, float, bool, int]],
    alone: bool,
    into: TournamentTally | None = None,
) -> TournamentTally:
    """One match of a tournament, its seats as (bot id, score, faulted[, worker
    milliseconds]): each bot's seat adds to its totals and, in a game with opponents (not
    ``alone``), to its results against every other bot at the table (a seat never meets its
    own bot)."""
    out: TournamentTally = {} if into is None else into
    for bot, score, fault, *worker in seats:
        if bot is None:
            continue
        mine = out.setdefault((tournament_id, bot, 0), [0, 0.0, 0.0, 0, 0])
        mine[0] += 1
        mine[1] += score
        mine[3] += fault
        mine[4] += worker[0] if worker else 0
        if alone:
            continue
        for other, theirs, *_ in seats:
            if other is None or other == bot:
                continue
            pair = out.setdefault((tournament_id, bot, other), [0, 0.0, 0.0, 0, 0])
            pair[0] += 1
            pair[1] += score
            pair[2] += theirs
    return out


def add_tournament(totals: TournamentTally) -> None:
    """Add ``totals`` to the tournaments' rows, creating the missing ones, in one statement
    (an upsert, as :func:`add`), in key order."""
    if not totals:
        return
    q = connection.ops.quote_name
    table = q(TournamentResult._meta.db_table)
    columns = ["tournament_id", "bot_id", "opponent", *TOURNAMENT_TOTALS]
    rows = [[*key, *values] for key, values in sorted(totals.items())]
    values_sql = ", ".join(["(" + ", ".join(["%s"] * len(columns)) + ")"] * len(rows))
    updates = ", ".join(f"{q(c)} = {table}.{q(c)} + excluded.{q(c)}" for c in TOURNAMENT_TOTALS)
    sql = (
        f"INSERT INTO {table} ({', '.join(q(c) for c in columns)}) VALUES {values_sql} "
        f"ON CONFLICT ({q('tournament_id')}, {q('bot_id')}, {q('opponent')}) "
        f"DO UPDATE SET {updates}"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [value for row in rows for value in row])


def tournament_rows(
    rows: Iterable[
        tuple[int, int, str, int | None, float, str]
        | tuple[int, int, str, int | None, float, str, int]
    ],
) -> TournamentTally:
    """The tournaments' totals of seats given as (match id, tournament id, game, bot id,
    score, fault kind[, worker milliseconds]), those of one match next to each other."""
    out: TournamentTally = {}
    current: list[tuple[int | None, float, bool, int]] = []
    current_match, current_tournament, current_game = None, 0, ""

    def flush() -> None:
        if current:
            tournament_tally(current_tournament, current, plays_alone(current_game), out)

    for match_id, tournament_id, game, bot_id, score, fault, *worker in rows:
        if match_id != current_match:
            flush()
            current = []
            current_match, current_tournament, current_game = match_id, tournament_id, game
        current.append((bot_id, score, bool(fault), worker[0] if worker else 0))
    flush()
    return out


def recount_tournament(tournament_id: int) -> TournamentTally:
    """A tournament's totals counted from its stored seats: what its kept rows must equal.
    For tests, benches and the migration that fills them; never from a page."""
    seats = (
        MatchSeat.objects.filter(match__tournament_id=tournament_id)
        .order_by("match_id", "seat")
        .values_list("match_id", "match__tournament_id", "match__game", "bot_id", "score",
                     "fault_kind", "worker_ms")
    )  # fmt: skip
    return tournament_rows(seats.iterator(chunk_size=5000))


def kept_tournament(tournament_id: int) -> TournamentTally:
    """A tournament's kept rows, in :func:`recount_tournament`'s form."""
    rows = TournamentResult.objects.filter(tournament_id=tournament_id)
    return {
        (tournament_id, bot_id, opponent): list(values)
        for bot_id, opponent, *values in rows.values_list("bot_id", "opponent", *TOURNAMENT_TOTALS)
    }


# ---- worker time ----------------------------------------------------------------------------
#: how many bots a tournament's worker time lists (those that used the most), and how many
#: of a bot's latest tournaments its page lists
WORKER_TIME_TOP = 20
WORKER_TIME_RECENT = 5


def _worker_entry(used_ms: int, bound: float) -> dict[str, Any]:
    used = used_ms / 1000
    return {
        "used_s": round(used, 3),
        "bound_s": bound or None,
        "share": round(used / bound, 4) if bound else None,
        "over": bool(bound) and used >= bound,
    }


def worker_time_in(tournament: Tournament, top: int = WORKER_TIME_TOP) -> dict[str, Any]:
    """The worker time the bots of a tournament used there, the most first (``top`` of
    them; ``more`` says if there are others), with the bound each has (None: no bound):
    what the tournament's page and the API show. One statement on the tournament's totals
    (the index by tournament and opponent)."""
    bound = tournament.worker_bound_s
    rows = list(
        TournamentResult.objects.filter(tournament=tournament, opponent=0)
        .order_by("-worker_ms", "bot_id")
        .values_list("bot_id", "bot__owner__username", "bot__name", "matches", "worker_ms")[
            : top + 1
        ]
    )
    bots = [
        {"id": bot_id, "label": f"{owner}/{name}", "matches": matches} | _worker_entry(used, bound)
        for bot_id, owner, name, matches, used in rows[:top]
    ]
    return {"bound_s": bound or None, "bots": bots, "more": len(rows) > top}


def worker_time_of_bot(bot_id: int, count: int = WORKER_TIME_RECENT) -> list[dict[str, Any]]:
    """A bot's worker time in its latest ``count`` tournaments, newest first, each with the
    tournament's bound: its page and the API show it (the index by bot, opponent and
    tournament: the same cost however many tournaments it played)."""
    rows = (
        TournamentResult.objects.filter(bot_id=bot_id, opponent=0)
        .select_related("tournament")
        .only("matches", "worker_ms", "tournament__name", "tournament__game",
              "tournament__format", "tournament__settings", "tournament__state")
        .order_by("-tournament_id")[:count]
    )  # fmt: skip
    return [
        {
            "tournament": row.tournament_id,
            "name": str(row.tournament),
            "state": row.tournament.state,
            "matches": row.matches,
        }
        | _worker_entry(row.worker_ms, row.tournament.worker_bound_s)
        for row in rows
    ]


#: the order a bot's opponents are listed in, most met first (an index serves it: keyset
#: pages, ``cardsite.keyset``, walk it from where the last page stopped)
OPPONENT_ORDER = ["-matches", "pk"]


def opponents_of(bot_id: int) -> QuerySet[OpponentResult]:
    """A bot's results by opponent in its tournament matches, the most met first, with each
    opponent bot's owner: what its page and the API list, a page at a time."""
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
    """The totals counted from every stored tournament match (of ``bot_ids``' matches, or of
    all): what the kept rows must equal. For tests and benches; it reads every seat, so never
    from a page."""
    seats = MatchSeat.objects.filter(match__tournament__isnull=False).order_by("match_id", "seat")
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
