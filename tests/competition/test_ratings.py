"""Ratings and leaderboard rows: openskill, job order, conservative ranking, game columns."""

from __future__ import annotations

import pytest
from django.db import transaction

from bots import competition
from bots.ladder.ratings import rerank
from bots.models import LeaderboardRow, Match, OpponentResult, Rating, RatingHistory
from bots.running.playing import Entry, play
from games.registry import get_game
from games.views import board_cells, board_headers
from tests.competition.conftest import builtin_code

BUILTINS = {"simple": "simple", "strong": "strong", "minimal": "minimal"}


def _played(job):
    """The job's match, with the built-in bots in-process (the same code as the versions)."""
    versions = competition.seat_versions(job)
    entries = [Entry(name=v.bot.label, builtin=v.bot.name) for v in versions]
    return play(get_game("rps-poker"), entries, seed=job.seed)


def _ratings_when_finished_in(order: list[int]) -> dict[str, tuple[float, float]]:
    """Run one tournament whose matches finish in ``order`` (indexes of its jobs); undo it."""
    with transaction.atomic():
        tournament = competition.start_round_robin("rps-poker", 1, seed=11)
        held = [competition.claim("w", 60) for _ in range(tournament.jobs.count())]
        results = [(h, _played(h.job)) for h in held]
        for n in order:
            competition.store_result(*results[n])
        ratings = {r.bot.name: (r.mu, r.sigma) for r in Rating.objects.select_related("bot")}
        transaction.set_rollback(True)
    return ratings


def test_it_rates_the_same_whatever_order_workers_finish_in(alice, bob, carol, active_bot):
    for owner, name in ((alice, "simple"), (bob, "strong"), (carol, "minimal")):
        active_bot(owner, name, builtin_code(name))
    in_order = _ratings_when_finished_in([0, 1, 2, 3, 4, 5])
    shuffled = _ratings_when_finished_in([5, 2, 4, 0, 3, 1])
    assert in_order == shuffled
    assert in_order["strong"][0] > in_order["minimal"][0]


def test_it_waits_for_earlier_jobs_before_rating(alice, bob, active_bot):
    active_bot(alice, "simple", builtin_code("simple"))
    active_bot(bob, "strong", builtin_code("strong"))
    competition.start_round_robin("rps-poker", 1, seed=12)
    # (one worker holds both seatings of the deal: no other may play one while it plays the
    # other, competition._deals_free)
    first = competition.claim("w1", 60)
    second = competition.claim("w1", 60)
    later = competition.store_result(second, _played(second.job))
    later.refresh_from_db()
    assert later.rated is False
    assert not RatingHistory.objects.exists()
    competition.store_result(first, _played(first.job))
    assert Match.objects.filter(rated=True).count() == 2
    assert RatingHistory.objects.count() == 4


def test_it_ranks_by_mu_minus_three_sigma_and_shows_the_game_columns(alice, bob, active_bot):
    active_bot(alice, "simple", builtin_code("simple"))
    active_bot(bob, "strong", builtin_code("strong"))
    competition.start_round_robin("rps-poker", 3, seed=13)
    while (held := competition.claim("w1", 60)) is not None:
        competition.store_result(held, _played(held.job))
    rows = list(LeaderboardRow.objects.order_by("rank"))
    assert [r.rank for r in rows] == [1, 2]
    assert rows[0].conservative >= rows[1].conservative
    for row in rows:
        rating = Rating.objects.get(bot=row.bot)
        assert row.conservative == rating.mu - 3 * rating.sigma
        assert row.matches == rating.matches == 6
        # RPS Poker's own numbers: games won and the win rate
        assert row.score["score"] == sum(s.score for s in row.bot.seats.all())
        assert 0 <= row.score["win_rate"] <= 1
        newest = max(s.match.played for s in row.bot.seats.filter(match__rated=True))
        assert row.last_played == newest
    strong = LeaderboardRow.objects.get(bot__name="strong")
    # its games against its one opponent, won and lost, kept as results by opponent
    against = OpponentResult.objects.get(bot=strong.bot)
    assert against.points_for + against.points_against == strong.score["games"]
    headers = board_headers("rps-poker")
    assert headers[:6] == ["rank", "bot", "owner", "rating", "mu +/- sigma", "matches"]
    assert "games won % (95% CI)" in headers
    cells = board_cells("rps-poker", rows[0])
    assert cells[1]["text"] == rows[0].bot.name and len(cells) == len(headers)
    # every cell carries the number it shows, to sort by: nothing reads it back out of the text
    rate = cells[headers.index("games won % (95% CI)")]
    assert float(rate["sort"]) == rows[0].score["win_rate"]
    assert rate["text"].startswith(f"{100 * rows[0].score['win_rate']:.1f}%")


def test_it_widens_sigma_for_a_new_version_on_the_leaderboard_too(alice, bob, active_bot):
    first = active_bot(alice, "mine", builtin_code("simple"))
    other = active_bot(bob, "theirs", builtin_code("simple"))
    Rating.objects.filter(bot=first.bot).update(mu=30.0, sigma=1.0)
    Rating.objects.filter(bot=other.bot).update(mu=28.0, sigma=1.0)
    for rating in Rating.objects.all():  # (as rated matches leave them: row and rating alike)
        LeaderboardRow.objects.filter(bot=rating.bot).update(
            mu=rating.mu, sigma=rating.sigma, conservative=rating.mu - 3 * rating.sigma
        )
    rerank("rps-poker")
    assert LeaderboardRow.objects.get(bot=first.bot).rank == 1
    active_bot(alice, "mine", builtin_code("strong"))
    rating = Rating.objects.get(bot=first.bot)
    assert rating.sigma > 1.0
    # the leaderboard's row says the same, and ranks by it: below the other bot now
    row = LeaderboardRow.objects.get(bot=first.bot)
    assert (row.mu, row.sigma) == (rating.mu, rating.sigma)
    assert row.conservative == pytest.approx(rating.mu - 3 * rating.sigma)
    assert row.rank == 2 and LeaderboardRow.objects.get(bot=other.bot).rank == 1


def test_it_rates_lower_scores_higher_when_the_game_says_so(alice, bob, active_bot, monkeypatch):
    from bots.ladder import ratings
    from games.rps_poker.tournament import RoundRobin

    active_bot(alice, "simple", builtin_code("simple"))
    active_bot(bob, "strong", builtin_code("strong"))
    competition.start_round_robin("rps-poker", 1, seed=14)
    held = competition.claim("w1", 60)
    played = _played(held.job)
    high, low = sorted(range(2), key=lambda seat: -played.seats[seat].score)
    assert played.seats[high].score > played.seats[low].score

    class LowWins(RoundRobin):
        higher_is_better = False

    monkeypatch.setattr(ratings, "format_of", lambda game: LowWins())
    match = competition.store_result(held, played)
    twin = competition.claim("w1", 60)  # the deal is rated with its other seating
    competition.store_result(twin, _played(twin.job))
    labels = [v.bot.label for v in competition.seat_versions(held.job)]
    moved = {
        h.bot.label: h.mu - h.mu_before
        for h in RatingHistory.objects.filter(match=match).select_related("bot", "bot__owner")
    }
    assert moved[labels[low]] > 0 > moved[labels[high]]


def test_last_played_is_the_latest_match_whatever_order_they_are_rated_in(alice, bob, active_bot):
    active_bot(alice, "simple", builtin_code("simple"))
    active_bot(bob, "strong", builtin_code("strong"))
    competition.start_round_robin("rps-poker", 1, seed=14)
    first = competition.claim("w1", 60)
    second = competition.claim("w1", 60)  # (its deal's other seating: the same worker's)
    earlier = competition.store_result(second, _played(second.job))  # played first
    later = competition.store_result(first, _played(first.job))  # rated first: job order
    earlier.refresh_from_db()
    later.refresh_from_db()
    assert earlier.played < later.played and earlier.rated and later.rated
    for row in LeaderboardRow.objects.all():
        assert row.last_played == later.played
