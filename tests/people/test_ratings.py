"""People are rated from their rated tables; bots never move at a table; guests and friendly
tables are not rated."""

from __future__ import annotations

from pathlib import Path

import pytest

from bots.ladder.people import outcome
from bots.ladder.ratings import MODEL
from bots.models import LeaderboardRow, Match, Rating, RatingHistory
from bots.running.playing import Entry, play
from games.live import tables
from games.live.host import Finish
from games.models import PersonRating, PersonRatingHistory, Table
from games.registry import get_game
from tests.people.helpers import GAME, house_builtin, make_user, play_table, ranked_bot, scores_of

pytestmark = pytest.mark.django_db


def expected(teams: list[tuple[float, float]], scores: list[float]) -> list[tuple[float, float]]:
    new = MODEL.rate([[MODEL.rating(mu=mu, sigma=sigma)] for mu, sigma in teams], scores=scores)
    return [(r.mu, r.sigma) for [r] in new]


def test_a_rated_table_against_a_built_in_moves_the_person_against_the_ladder_rating():
    ann = make_user("ann")
    house = house_builtin("strong", mu=31.0, sigma=2.0)
    table = tables.create_table(GAME, tables.Person(ann), ["me", "builtin:strong"])
    assert table.rated
    scores = scores_of(play_table(table, seed=3))
    rating = PersonRating.objects.get(user=ann, game=GAME)
    [(mu, sigma), _] = expected([(MODEL.mu, MODEL.sigma), (31.0, 2.0)], scores)
    assert (rating.mu, rating.sigma) == pytest.approx((mu, sigma))
    default = expected([(MODEL.mu, MODEL.sigma), (MODEL.mu, MODEL.sigma)], scores)[0]
    assert (rating.mu, rating.sigma) != pytest.approx(default)  # the bot's strength counted
    assert rating.matches == 1 and rating.rank == 1
    how = outcome(scores[0], [scores[1]], 1)
    assert (rating.wins, rating.draws, rating.losses) == (
        how == "won", how == "drew", how == "lost",
    )  # fmt: skip
    [row] = PersonRatingHistory.objects.filter(rating=rating)
    assert (row.number, row.mu_before, row.sigma_before) == (1, MODEL.mu, MODEL.sigma)
    assert (row.mu, row.sigma, row.outcome) == (rating.mu, rating.sigma, how)
    # the built-in's rating stays what its round robins made it
    assert Rating.objects.get(bot=house).mu == 31.0
    assert not RatingHistory.objects.exists()


def test_a_built_in_off_the_ladder_counts_as_the_model_s_starting_rating():
    ann = make_user("ann")
    house_builtin("strong", mu=31.0, sigma=2.0, rank=0)  # retired: not on the ladder
    table = tables.create_table(GAME, tables.Person(ann), ["me", "builtin:strong"])
    scores = scores_of(play_table(table, seed=4))
    rating = PersonRating.objects.get(user=ann, game=GAME)
    [(mu, sigma), _] = expected([(MODEL.mu, MODEL.sigma)] * 2, scores)
    assert (rating.mu, rating.sigma) == pytest.approx((mu, sigma))


def test_people_against_each_other_both_move():
    ann, bob = make_user("ann"), make_user("bob")
    table = tables.create_table(GAME, tables.Person(ann), ["me", "open"])
    tables.take_seat(table, 1, tables.Person(bob))
    scores = scores_of(play_table(table, seed=5))
    want = expected([(MODEL.mu, MODEL.sigma)] * 2, scores)
    for user, (mu, sigma) in zip([ann, bob], want, strict=True):
        rating = PersonRating.objects.get(user=user, game=GAME)
        assert (rating.mu, rating.sigma) == pytest.approx((mu, sigma))
        assert rating.matches == 1
    assert sorted(PersonRating.objects.values_list("rank", flat=True)) == [1, 2]
    best = PersonRating.objects.order_by("-conservative").first()
    assert best.rank == 1


def test_a_table_with_an_uploaded_bot_is_friendly_and_moves_nobody():
    """An audit's bot told a person from a bot by the time between calls and lost to them on
    purpose: its owner went from 3.44 to 15.97 in four tables. People are rated against
    people and the site's built-in bots only: such a table is opened unrated, and a table
    opened rated before (or whatever its row says) is not rated at its end either."""
    ann, alice = make_user("ann"), make_user("alice")
    bot = ranked_bot(alice, "drafter", mu=20.0, sigma=3.0)
    version = bot.versions.get()
    table = tables.create_table(GAME, tables.Person(ann), ["me", f"bot:{version.pk}"])
    assert not table.rated and not table.unrated_chosen  # not by choice: the bot's
    Table.objects.filter(pk=table.pk).update(rated=True)  # as one opened before the rule
    link = play_table(table, seed=6)
    assert link["rated"] is False
    assert not PersonRating.objects.exists() and not PersonRatingHistory.objects.exists()
    assert Match.objects.get(pk=link["match"]).rated is False
    assert Rating.objects.get(bot=bot).mu == 20.0 and Rating.objects.get(bot=bot).matches == 0
    row = LeaderboardRow.objects.get(bot=bot)
    assert (row.mu, row.sigma, row.matches) == (20.0, 3.0, 0)
    assert not RatingHistory.objects.exists()


def test_an_unrated_table_moves_nobody():
    ann, bob = make_user("ann"), make_user("bob")
    table = tables.create_table(GAME, tables.Person(ann), ["me", "open"], rated=False)
    tables.take_seat(table, 1, tables.Person(bob))
    play_table(table)
    assert not PersonRating.objects.exists() and not PersonRatingHistory.objects.exists()
    assert Table.objects.get(pk=table.pk).state == Table.FINISHED


def test_guests_play_unrated_and_so_does_a_person_at_a_table_with_a_guest():
    guest_table, _ = tables.guest_table(GAME, ["me", "builtin:strong"])
    assert not guest_table.rated
    play_table(guest_table)
    ann = make_user("ann")
    table = tables.create_table(GAME, tables.Person(ann), ["me", "open"])
    tables.take_seat(table, 1, tables.Person(None, "a-guest-token"))
    play_table(table)
    assert not PersonRating.objects.exists()


def test_two_rated_tables_count_one_after_the_other():
    ann = make_user("ann")
    for seed in (1, 2):
        play_table(tables.create_table(GAME, tables.Person(ann), ["me", "builtin:strong"]), seed)
    rating = PersonRating.objects.get(user=ann)
    history = list(PersonRatingHistory.objects.filter(rating=rating).order_by("number"))
    assert [h.number for h in history] == [1, 2] and rating.matches == 2
    assert (history[1].mu_before, history[1].sigma_before) == (history[0].mu, history[0].sigma)
    assert (rating.mu, rating.sigma) == (history[1].mu, history[1].sigma)


@pytest.mark.parametrize(
    ("mine", "others", "sign", "how"),
    [(3, [1], 1, "won"), (1, [3], 1, "lost"), (2, [2], 1, "drew"), (1, [3], -1, "won"),
     (5, [5, 1], 1, "drew"), (5, [5, 9], 1, "lost")],
)  # fmt: skip
def test_how_a_match_went_follows_the_game_s_direction(mine, others, sign, how):
    assert outcome(mine, others, sign) == how


def test_rating_a_table_adds_a_bounded_number_of_queries_to_storing_it(
    django_assert_max_num_queries,
):
    """Storing an unrated table takes 6 queries (tests/live/test_table_pages.py); rating a
    returning person against a bot adds: a savepoint, the game's lock, the person's row, the
    bot's strength, the new rating, the history row, the ranking read (and a rank that
    changed)."""
    ann = make_user("ann")
    house_builtin("strong", mu=26.0, sigma=2.0)
    play_table(tables.create_table(GAME, tables.Person(ann), ["me", "builtin:strong"]), 1)
    table = tables.create_table(GAME, tables.Person(ann), ["me", "builtin:strong"])
    _, facts = tables.claim_and_plan(tables.load(pk=table.pk), "host-channel")
    entries = [Entry(name="a", builtin="simple"), Entry(name="b", builtin="strong")]
    played = play(get_game(GAME), entries, seed=2)
    with django_assert_max_num_queries(6 + 9):
        tables.store_finish(facts, Finish(played))
    assert PersonRating.objects.get(user=ann).matches == 2


def test_a_person_who_faulted_has_lost_as_the_game_scores_it():
    """The person's seat faults (here played by a program that exits at once, as a person
    who left would be faulted): the game scores the fault, and the rating follows it."""
    ann = make_user("ann")
    table = tables.create_table(GAME, tables.Person(ann), ["me", "builtin:strong"])
    _, facts = tables.claim_and_plan(tables.load(pk=table.pk), "host-channel")
    code = (Path(__file__).resolve().parents[1] / "sandbox" / "bots" / "exits.py").read_text()
    entries = [Entry(name="ann", code=code, filename="exits.py"),
               Entry(name="b", builtin="strong")]  # fmt: skip
    link = tables.store_finish(facts, Finish(play(get_game(GAME), entries, seed=7)))
    seats = list(Match.objects.get(pk=link["match"]).participants.order_by("seat"))
    assert seats[0].fault_kind and seats[0].score < seats[1].score
    rating = PersonRating.objects.get(user=ann)
    assert (rating.losses, rating.wins, rating.draws) == (1, 0, 0)
    assert rating.mu < MODEL.mu
    assert PersonRatingHistory.objects.get(rating=rating).outcome == "lost"
