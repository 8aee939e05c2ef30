"""People on the ladder: a signed-in person's rating per game from their rated table matches.

The same openskill model and scale as the bots (:data:`bots.ladder.ratings.MODEL`, ranked by
:func:`bots.ladder.ratings.conservative`), so a person and a bot can be read side by side. The rules
(docs/people.md):

- a table's match is rated when the table was opened rated (the default), its game ranks by
  rating (players meet each other, not a dealer alone), every person at it is signed in (a
  guest at the table makes it a friendly game for everyone), no uploaded bot sits at it
  (its owner could make it lose to a person on purpose: people are rated against people and
  the site's built-in bots only), and no two people at it already played
  :func:`rated_per_pair` rated matches of the game together in the last
  :func:`pair_window_hours` (:func:`pair_over_cap`: a second account cannot feed one
  wins without end);
- people move; bots do not. A bot is rated by its round robins only, so nobody can farm or
  sink a bot's rating at tables, but its current rating is the strength the person is rated
  against: a built-in's that of the built-in bot of that name the site entered into the
  ladder (``manage.py seed_builtins``) while it is ranked, else the model's starting rating
  (an uploaded bot's own rating for the matches rated before uploaded bots made a table
  friendly);
- the game's scores decide (a person who left or timed out has lost as the game scores a
  fault);
- rated in the transaction that stores the match, holding the game's :class:`PeopleLedger`
  and the people's rating rows: two tables of one person that end at once both count, one
  after the other, and each is moved to their place among the game's people
  (:func:`place`) before the lock is let go.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Exists, F, Max, OuterRef, Q, QuerySet
from django.utils import timezone

from bots.ladder.ratings import MODEL, conservative, format_of
from bots.models import HOUSE, LeaderboardRow, Rating
from games.models import PeopleLedger, PersonRating, PersonRatingHistory
from games.registry import get_game


@dataclass(frozen=True, slots=True)
class TableSeatResult:
    """A seat of a finished table as rating sees it: a signed-in person (``user_id``), an
    uploaded bot (``bot_id``), a built-in bot (``builtin``), or none of them (a guest)."""

    user_id: int | None
    bot_id: int | None
    builtin: str
    score: float

    @property
    def is_guest(self) -> bool:
        return self.user_id is None and self.bot_id is None and not self.builtin


def game_rates_people(game: str) -> bool:
    """Whether people can be rated in ``game`` at all: its players meet each other (a game
    played alone against a dealer ranks its bots by their score on the same deals, and a
    person at a table has nobody to be compared with)."""
    spec = get_game(game)
    fmt = format_of(game)
    return not spec.plays_alone and (fmt is None or fmt.ranked_by_rating)


def is_rated(game: str, table_rated: bool, seats: Sequence[TableSeatResult]) -> bool:
    """Whether a finished table's match moves ratings (see the module's rules)."""
    return (
        table_rated
        and len(seats) >= 2
        and any(seat.user_id is not None for seat in seats)
        and not any(seat.is_guest for seat in seats)
        # people are rated against people and the site's built-in bots only: an uploaded
        # bot can tell a person by their timing and lose to them on purpose
        and not any(seat.bot_id is not None for seat in seats)
        and game_rates_people(game)
    )


#: the rated matches two people may play each other in one game within
#: :data:`PAIR_WINDOW_HOURS` (Django setting ``PEOPLE_RATED_PER_PAIR``); past it their tables
#: are friendly. Five: an evening's rivalry of real games is rated whole, while a second
#: account that loses on purpose hands its owner five wins a day at most, each worth less than
#: the one before as the winner's sigma shrinks (an audit's account went from 3.4 to 16 in
#: four such tables in a few seconds; unlimited, it had no ceiling)
RATED_PER_PAIR = 5
#: ...in this many hours, counted back from the end of the match (``PEOPLE_PAIR_WINDOW_HOURS``)
PAIR_WINDOW_HOURS = 24


def rated_per_pair() -> int:
    return max(1, int(getattr(settings, "PEOPLE_RATED_PER_PAIR", RATED_PER_PAIR)))


def pair_window_hours() -> int:
    return max(1, int(getattr(settings, "PEOPLE_PAIR_WINDOW_HOURS", PAIR_WINDOW_HOURS)))


def pair_over_cap(game: str, user_ids: Sequence[int]) -> tuple[int, int, int] | None:
    """The first two of ``user_ids`` who already played :func:`rated_per_pair` rated matches
    of ``game`` together in the last :func:`pair_window_hours`, as (user, other, how many);
    None when no pair did. Counted from the database, so every web process counts the same:
    one query for the people's rating rows, then one a pair, which walks the first one's
    history rows of the window (the index ``history_rating_recent``) and looks each match up
    in the other's (the unique ``one_update_per_match``). The caller holds the game's ledger
    (:func:`lock_people`) when the answer decides a rating."""
    users = sorted(set(user_ids))
    if len(users) < 2:
        return None
    rows = PersonRating.objects.filter(game=game, user_id__in=users).values_list("user_id", "pk")
    ratings = dict(rows)
    since = timezone.now() - timedelta(hours=pair_window_hours())
    most = rated_per_pair()
    for n, user in enumerate(users):
        for other in users[n + 1 :]:
            if user not in ratings or other not in ratings:
                continue  # one of them was never rated in the game
            both = PersonRatingHistory.objects.filter(
                rating_id=ratings[other], match_id=OuterRef("match_id")
            )
            count = (
                PersonRatingHistory.objects.filter(rating_id=ratings[user], created__gte=since)
                .filter(Exists(both))
                .count()
            )
            if count >= most:
                return user, other, count
    return None


def outcome(mine: float, others: Sequence[float], sign: int) -> str:
    """How a match went for one seat, by the game's direction (``sign`` -1: fewer points is
    better): lost if anyone did better, drew if someone did as well, else won."""
    if any(sign * (other - mine) > 0 for other in others):
        return PersonRatingHistory.LOST
    if any(other == mine for other in others):
        return PersonRatingHistory.DREW
    return PersonRatingHistory.WON


def lock_people(game: str) -> PeopleLedger:
    """The game's people ledger, locked until the transaction ends (one query, but for the
    game's first rated match, which makes it)."""
    found = PeopleLedger.objects.select_for_update().filter(game=game).first()
    if found is None:
        PeopleLedger.objects.get_or_create(game=game)
        found = PeopleLedger.objects.select_for_update().get(game=game)
    return found


def _bot_strengths(
    game: str, seats: Sequence[TableSeatResult]
) -> dict[tuple[str, object], tuple[float, float]]:
    """The ratings the bots at the table are rated against (one query per kind of bot
    seat): ``("bot", id)`` and ``("builtin", name)`` to (mu, sigma)."""
    found: dict[tuple[str, object], tuple[float, float]] = {}
    bots = {seat.bot_id for seat in seats if seat.bot_id is not None}
    if bots:
        for bot_id, mu, sigma in Rating.objects.filter(bot_id__in=bots).values_list(
            "bot_id", "mu", "sigma"
        ):
            found[("bot", bot_id)] = (mu, sigma)
    builtins = {seat.builtin for seat in seats if seat.builtin}
    if builtins:
        ranked = LeaderboardRow.objects.filter(
            game=game, rank__gt=0, bot__owner__username=HOUSE, bot__name__in=builtins
        ).values_list("bot__name", "mu", "sigma")
        for name, mu, sigma in ranked:
            found[("builtin", name)] = (mu, sigma)
    return found


def _strength(
    seat: TableSeatResult, bots: dict[tuple[str, object], tuple[float, float]]
) -> tuple[float, float]:
    if seat.bot_id is not None:
        return bots.get(("bot", seat.bot_id), (MODEL.mu, MODEL.sigma))
    return bots.get(("builtin", seat.builtin), (MODEL.mu, MODEL.sigma))


def rate_table(
    game: str, match_id: int, seats: Sequence[TableSeatResult]
) -> dict[int, PersonRatingHistory]:
    """Rate a finished table's match for the signed-in people at it (the caller has checked
    :func:`is_rated`); returns each person's new history row by user id. Call it inside the
    transaction that stores the match: the game's ledger and the people's rating rows stay
    locked until that transaction ends."""
    with transaction.atomic():
        lock_people(game)
        users = sorted({seat.user_id for seat in seats if seat.user_id is not None})
        mine = {
            r.user_id: r
            for r in PersonRating.objects.select_for_update()
            .filter(game=game, user_id__in=users)
            .order_by("user_id")
        }
        for user_id in users:
            if user_id not in mine:
                mine[user_id] = PersonRating.objects.create(
                    user_id=user_id,
                    game=game,
                    mu=MODEL.mu,
                    sigma=MODEL.sigma,
                    conservative=conservative(MODEL.mu, MODEL.sigma),
                )
        bots = _bot_strengths(game, seats)
        teams = []
        for seat in seats:
            if seat.user_id is not None:
                rating = mine[seat.user_id]
                teams.append([MODEL.rating(mu=rating.mu, sigma=rating.sigma)])
            else:
                mu, sigma = _strength(seat, bots)
                teams.append([MODEL.rating(mu=mu, sigma=sigma)])
        fmt = format_of(game)
        sign = 1 if fmt is None or fmt.higher_is_better else -1
        new = MODEL.rate(teams, scores=[sign * seat.score for seat in seats])
        now = timezone.now()
        history: dict[int, PersonRatingHistory] = {}
        for n, (seat, [after]) in enumerate(zip(seats, new, strict=True)):
            if seat.user_id is None:
                continue  # a bot: its rating comes from its round robins alone
            rating = mine[seat.user_id]
            others = [other.score for m, other in enumerate(seats) if m != n]
            how = outcome(seat.score, others, sign)
            history[seat.user_id] = PersonRatingHistory(
                rating=rating, match_id=match_id, number=rating.matches + 1,
                mu=after.mu, sigma=after.sigma, mu_before=rating.mu,
                sigma_before=rating.sigma, outcome=how,
            )  # fmt: skip
            rating.mu, rating.sigma = after.mu, after.sigma
            rating.conservative = conservative(after.mu, after.sigma)
            rating.matches += 1
            rating.wins += how == PersonRatingHistory.WON
            rating.draws += how == PersonRatingHistory.DREW
            rating.losses += how == PersonRatingHistory.LOST
            rating.last_played = now
            rating.save(update_fields=[*MOVED])
            old_rank = rating.rank
            rating.rank = place(rating, old_rank)
            for other in mine.values():  # placing one shifts the others it passed
                if other is not rating:
                    other.rank = shifted(other.rank, old_rank, rating.rank)
        PersonRatingHistory.objects.bulk_create(history.values())
    return history


#: what a rated match changes in a person's rating row
MOVED = ("mu", "sigma", "conservative", "matches", "wins", "draws", "losses", "last_played")


def _key(conservative: float, matches: int, pk: int) -> tuple[float, int, int]:
    """The order of :func:`rerank`: the smaller key ranks higher."""
    return (-conservative, -matches, pk)


def _above(rating: PersonRating) -> Q:
    """The people of ``rating``'s game ranked above it (the order of :func:`rerank`)."""
    c, m = rating.conservative, rating.matches
    return (
        Q(conservative__gt=c)
        | Q(conservative=c, matches__gt=m)
        | Q(conservative=c, matches=m, pk__lt=rating.pk)
    )


def place(rating: PersonRating, old_rank: int) -> int:
    """Move ``rating``, whose rating was just saved, from rank ``old_rank`` (0: not ranked
    yet) to its place among the game's other people, shifting by one the ranks it passes;
    returns its new rank. The caller holds the game's ledger, and every other person's rank
    is in order. It reads the two neighbours; a person who passes someone is then moved by
    a walk of the index of ranks from ``old_rank`` to where they belong and one UPDATE of
    the rows passed: the cost grows with how far the person moves, not with how many people
    the game has (a full :func:`rerank` of 100,000 people took about two seconds)."""
    people = PersonRating.objects.filter(game=rating.game, rank__gt=0).exclude(pk=rating.pk)
    fields = ("rank", "conservative", "matches", "pk")
    if old_rank == 0:  # a new person: from below the last
        old_rank = (people.aggregate(last=Max("rank"))["last"] or 0) + 1
    me = _key(rating.conservative, rating.matches, rating.pk)
    up = people.filter(rank__lt=old_rank).order_by("-rank").values_list(*fields).first()
    down = None
    if up is None or _key(*up[1:]) < me:
        down = people.filter(rank__gt=old_rank).order_by("rank").values_list(*fields).first()
    above = _above(rating)
    if up is not None and _key(*up[1:]) > me:
        # up: to just below the nearest who stays above
        stays = people.filter(above, rank__lt=old_rank).order_by("-rank")
        new_rank = (stays.values_list("rank", flat=True).first() or 0) + 1
        people.filter(rank__gte=new_rank, rank__lt=old_rank).update(rank=F("rank") + 1)
    elif down is not None and _key(*down[1:]) < me:
        # down: to just above the nearest who stays below, or last
        stays = people.filter(rank__gt=old_rank).exclude(above).order_by("rank")
        below = stays.values_list("rank", flat=True).first()
        if below is None:
            below = (people.aggregate(last=Max("rank"))["last"] or 0) + 1
        new_rank = below - 1
        people.filter(rank__gt=old_rank, rank__lte=new_rank).update(rank=F("rank") - 1)
    else:
        new_rank = old_rank
    if new_rank != rating.rank:
        PersonRating.objects.filter(pk=rating.pk).update(rank=new_rank)
    return new_rank


def shifted(rank: int, moved_from: int, moved_to: int) -> int:
    """Where :func:`place` of someone else from ``moved_from`` (0: a new person, from below
    the last) to ``moved_to`` leaves the person ranked ``rank`` (0: not ranked yet)."""
    if rank == 0:
        return 0
    if moved_from == 0 or moved_to < moved_from:
        return rank + 1 if moved_to <= rank and (moved_from == 0 or rank < moved_from) else rank
    return rank - 1 if moved_from < rank <= moved_to else rank


def rerank(game: str) -> int:
    """Rank the game's people 1, 2, ... by conservative rating (ties: more matches, then
    the earlier rated), writing only the rows whose rank changed; returns how many: the
    full recount that :func:`place` keeps true one person at a time (0 when it did). The
    caller holds the game's ledger. It reads four numbers a person, like the bots' ranking
    (``bots.ladder.ratings.rerank``) reads its rows."""
    rows = list(
        PersonRating.objects.filter(game=game).values_list("pk", "conservative", "matches", "rank")
    )
    rows.sort(key=lambda r: (-r[1], -r[2], r[0]))
    changed = [
        PersonRating(pk=pk, rank=n) for n, (pk, _, _, rank) in enumerate(rows, start=1) if rank != n
    ]
    if len(changed) <= 8:
        for row in changed:
            PersonRating.objects.filter(pk=row.pk).update(rank=row.rank)
    else:
        PersonRating.objects.bulk_update(changed, ["rank"], batch_size=500)
    return len(changed)


def ranked_people(game: str) -> QuerySet[PersonRating]:
    """The game's rated people, best first (keyset-paged by rank, like the bots)."""
    return (
        PersonRating.objects.filter(game=game, rank__gt=0)
        .select_related("user", "user__person_profile")  # a hidden profile shows no name
        .order_by("rank", "pk")
    )
