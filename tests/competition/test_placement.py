"""Placement tables meet every other bot, in tables the game can seat; small fields still get
regular rounds."""

from __future__ import annotations

import itertools

import pytest
from django.contrib.auth import get_user_model
from django.db import transaction

from bots import competition
from bots.competition.uploads import activate
from bots.models import Bot, BotVersion, MatchJob, Tournament
from games.registry import get_game


def make_active(game: str, name: str) -> BotVersion:
    owner, _ = get_user_model().objects.get_or_create(username=f"owner-{name}")
    builtin = {"last-card": "naive", "uth": "basic", "rps-poker": "simple"}[game]
    code = get_game(game).builtin_path(builtin).read_text() + f"\n# {name}\n"
    bot = Bot.objects.create(owner=owner, game=game, name=name, language="python")
    version = BotVersion.objects.create(
        bot=bot, number=1, code=code, checksum=BotVersion.checksum_of(code)
    )
    with transaction.atomic():
        activate(version)
    return version


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("others", "tables"),
    [
        (0, []),
        (1, [[0, 1]]),
        (3, [[0, 1, 2, 3]]),
        (5, [[0, 1, 2, 3], [0, 4, 5, 1]]),
    ],
)
def test_it_seats_a_new_last_card_bot_with_every_other_in_tables_of_four(others, tables):
    versions = [make_active("last-card", f"b{i}") for i in range(others + 1)]
    new, rest = versions[0], versions[1:]
    got = competition.placement_tables("last-card", new, rest)
    ids = {v.pk: n for n, v in enumerate(versions)}
    assert [[ids[pk] for pk in table] for table in got] == (tables if rest else [[0]])
    for table in got:
        assert len(table) <= get_game("last-card").state_class.max_seats
    assert {pk for table in got for pk in table[1:]} == {v.pk for v in rest}


@pytest.mark.django_db
def test_it_places_pairs_for_two_player_games_and_lone_sessions_for_uth():
    a, b, c = (make_active("rps-poker", n) for n in "abc")
    assert competition.placement_tables("rps-poker", a, [b, c]) == [[a.pk, b.pk], [a.pk, c.pk]]
    u, v, w = make_active("uth", "u"), make_active("uth", "v"), make_active("uth", "w")
    # the new bot alone, then its references alone, each on the same deals
    assert competition.placement_tables("uth", u, [v, w]) == [[u.pk], [v.pk], [w.pk]]


@pytest.mark.django_db
@pytest.mark.parametrize("game", ["rps-poker", "last-card", "uth"])
def test_no_placement_deals_a_deal_dealt_before(game):
    versions = [make_active(game, f"f{i}") for i in range(4)]
    competition.start_round_robin(game, 2, versions=versions)
    for _ in range(2):
        newest = make_active(game, f"f{MatchJob.objects.count()}")
        with transaction.atomic():
            placement = competition.schedule_placement(newest)
        mine = set(placement.jobs.values_list("seed", flat=True))
        before = set(
            MatchJob.objects.filter(
                game=game, id__lt=placement.jobs.order_by("id")[0].pk
            ).values_list("seed", flat=True)
        )
        assert mine and not mine & before


@pytest.mark.django_db
def test_it_queues_placement_jobs_in_every_rotation_of_a_full_table():
    versions = [make_active("last-card", f"p{i}") for i in range(4)]
    newest = versions[-1]
    with transaction.atomic():
        placement = competition.schedule_placement(newest)
    assert placement.format == Tournament.PLACEMENT
    assert placement.settings["version"] == newest.pk
    jobs = list(placement.jobs.all())
    # one table of four, two deals, four rotations each
    assert len(jobs) == 2 * 4
    assert all(len(job.seats) == 4 for job in jobs)
    assert all(set(job.seats) == {v.pk for v in versions} for job in jobs)


@pytest.mark.django_db
@pytest.mark.parametrize(("game", "others"), [("rps-poker", 1), ("rps-poker", 3), ("last-card", 3)])
def test_no_deal_s_seatings_are_claimed_one_after_the_other(game, others):
    """A process that played a seating may end its last call when it likes, and the process of its
    bot playing the next match reads the clock when it begins: a placement that queued a deal's
    second seating right after its first carried what the first saw of the deal to the second
    (a bot that ended each first seating at a time set by its first base card had it back from
    the clock as its next process began, in 16 of 18 deals). As a round robin does, every
    table's first seating is queued before any second."""
    versions = [make_active(game, f"s{i}") for i in range(others + 1)]
    MatchJob.objects.all().delete()
    with transaction.atomic():
        placement = competition.schedule_placement(versions[-1])
    order = list(placement.jobs.order_by(*competition.CLAIM_ORDER))
    seats_of: dict[int, list[list[int]]] = {}
    for job in order:
        seats_of.setdefault(job.seed, []).append(job.seats)
    assert len(seats_of) == placement.settings["deals"] * (others if game == "rps-poker" else 1)
    for before, after in itertools.pairwise(order):
        assert before.seed != after.seed
    # turn by turn: each deal's n-th seating before any deal's (n+1)-th
    turns = [seats_of[job.seed].index(job.seats) for job in order]
    assert turns == sorted(turns)


@pytest.mark.django_db
def test_it_plays_a_regular_round_with_fewer_bots_than_a_full_table():
    versions = [make_active("last-card", f"q{i}") for i in range(3)]
    MatchJob.objects.all().delete()
    ladder = competition.maybe_ladder_round("last-card", interval_s=0)
    assert ladder is not None
    jobs = list(ladder.jobs.all())
    assert len(jobs) == 3  # one table of the three, in each rotation
    assert all(sorted(job.seats) == sorted(v.pk for v in versions) for job in jobs)
