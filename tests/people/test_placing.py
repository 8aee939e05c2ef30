"""A rated match moves each person to their place among the game's people one step at a time
(``bots.ladder.people.place``): after any sequence of rating changes, ties included, the ranks are
those a full recount (``bots.ladder.people.rerank``) gives, and placing one person reads and writes
only the rows between their old and new place."""

from __future__ import annotations

import random

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from bots.ladder.people import place, rerank, shifted
from games.models import PersonRating
from tests.people.helpers import GAME, make_user

pytestmark = pytest.mark.django_db


def ranks() -> dict[int, int]:
    return dict(PersonRating.objects.filter(game=GAME).values_list("pk", "rank"))


def rate(rating: PersonRating, conservative: float, matches: int) -> int:
    """Change ``rating`` as a rated match does, then place it; its new rank."""
    old = rating.rank = PersonRating.objects.get(pk=rating.pk).rank
    rating.conservative, rating.matches = conservative, matches
    rating.save(update_fields=["conservative", "matches"])
    return place(rating, old)


def person(n: int, conservative: float, matches: int = 1) -> PersonRating:
    return PersonRating.objects.create(
        user=make_user(f"p{n}"), game=GAME, mu=25.0, sigma=8.0,
        conservative=conservative, matches=matches,
    )  # fmt: skip


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_placing_one_by_one_gives_the_ranks_of_a_full_recount(seed):
    rng = random.Random(seed)
    # few distinct ratings and match counts: many ties, broken by matches, then by age
    values = [0.0, 1.5, 1.5, 3.0, -2.0]
    people: list[PersonRating] = []
    for step in range(120):
        if not people or rng.random() < 0.25:
            rating = person(step, rng.choice(values), rng.randint(0, 3))
            rating.rank = place(rating, 0)  # new: from below the last
            people.append(rating)
        else:
            rating = rng.choice(people)
            rate(rating, rng.choice(values), rng.randint(0, 3))
        placed = ranks()
        assert sorted(placed.values()) == list(range(1, len(people) + 1)), step
        assert rerank(GAME) == 0, step  # the full recount changes nothing
        assert ranks() == placed


def test_a_person_at_the_top_or_the_bottom_stays_in_range():
    people = [person(n, float(n)) for n in range(5)]
    for rating in people:
        place(rating, 0)
    assert ranks() == {p.pk: 5 - n for n, p in enumerate(people)}
    assert rate(people[0], 100.0, 1) == 1  # the last to the top
    assert rate(people[0], -100.0, 1) == 5  # and back to the bottom
    assert rate(people[4], 4.0, 1) == 1  # the top stays the top
    assert rerank(GAME) == 0


def test_placing_touches_the_rows_it_passes_not_the_whole_game():
    people = [person(n, float(n)) for n in range(200)]
    rerank(GAME)
    mover = people[100]  # rank 100
    with CaptureQueriesContext(connection) as queries:
        assert rate(mover, 103.5, 1) == 97
    shifted = [q["sql"] for q in queries if q["sql"].startswith("UPDATE")]
    # its own row twice (the rating, the rank) and one shift of the three it passed
    assert len(shifted) == 3
    assert rerank(GAME) == 0
    assert len(queries) == 6  # and the old rank, the two neighbours, the nearest staying


def test_what_placing_one_person_does_to_another_in_memory():
    people = [person(n, float(n)) for n in range(6)]
    rerank(GAME)
    before = ranks()
    mover = people[1]  # rank 5 -> 2
    moved_to = rate(mover, 3.5, 1)
    after = ranks()
    for other in people:
        if other.pk != mover.pk:
            assert shifted(before[other.pk], 5, moved_to) == after[other.pk]
    newcomer = person(9, 2.5)
    at = place(newcomer, 0)
    for other in people:
        assert shifted(after[other.pk], 0, at) == ranks()[other.pk]
    assert shifted(0, 3, 1) == 0
