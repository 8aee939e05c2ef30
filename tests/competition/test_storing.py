"""Storing a result and rating it: the result in one short transaction, the ratings in
another, in a bounded number of statements, from the stored scores (nothing replayed), and
ranks written only where they change."""

from __future__ import annotations

import pytest
from django.db import OperationalError, connection, transaction
from django.test.utils import CaptureQueriesContext

from bots import competition
from bots.competition import leases
from bots.ladder.ratings import rerank
from bots.models import LeaderboardRow, Match, MatchJob, Rating, RatingHistory
from bots.running.playing import Entry, play
from games.engine.game import GameState
from games.engine.runner import MatchOutcome, SeatStats
from games.engine.tournament import Standing
from games.registry import get_game
from tests.competition.conftest import builtin_code, ledger_held_elsewhere

#: the most SQL statements one store and its ratings may take (20 on PostgreSQL for a match
#: of two bots, with the job locked then marked done, the seats' bots read and the results by
#: opponent and the tournament's totals added; 3 more when they swap ranks; plus the
#: BEGIN/COMMIT or SAVEPOINT/RELEASE of its two transactions). A batch of results takes about
#: as many (tests/competition/test_batches.py)
MOST_STATEMENTS = 27


def _played(job: MatchJob):
    versions = competition.seat_versions(job)
    entries = [Entry(name=v.bot.label, builtin=v.bot.name) for v in versions]
    return play(get_game("rps-poker"), entries, seed=job.seed)


@pytest.fixture
def three(alice, bob, carol, active_bot):
    for owner, name in ((alice, "simple"), (bob, "strong"), (carol, "minimal")):
        active_bot(owner, name, builtin_code(name))


def test_a_store_and_its_ratings_take_a_bounded_number_of_statements(three, monkeypatch):
    # (moving a slow bot's queued jobs back depends on this machine's speed: left out here,
    # see tests/competition/test_worker_time.py)
    monkeypatch.setattr(competition, "TURN_S", 1e9)
    competition.start_round_robin("rps-poker", 2, seed=21)
    results = []
    while (held := competition.claim("w1", 60)) is not None:
        results.append((held, _played(held.job)))
    counts = []
    for held, played in results:
        with CaptureQueriesContext(connection) as queries:
            assert competition.store_result(held, played) is not None
        counts.append(len(queries.captured_queries))
    assert max(counts) <= MOST_STATEMENTS, counts
    assert not Match.objects.filter(rated=False).exists()
    assert RatingHistory.objects.count() == 2 * len(results)
    for rating in Rating.objects.all():
        assert rating.matches == 8  # each of 3 bots meets 2 others, twice a deal, 2 rounds


def test_it_rates_from_the_stored_scores_without_replaying_the_match(three, monkeypatch):
    tournament = competition.start_round_robin("rps-poker", 1, seed=22)
    # every job of the round (a deal is rated with its last seating), played first
    held = [competition.claim("w1", 60) for _ in range(tournament.jobs.count())]
    played = [_played(claim.job) for claim in held]

    def no_replay(*args, **kwargs):
        raise AssertionError("rating replayed a match")

    monkeypatch.setattr(GameState, "replay", classmethod(no_replay))
    for claim, result in zip(held, played, strict=True):
        competition.store_result(claim, result)
    # the row holds what the format tallies from the outcomes that were played (with the
    # statistics as their records keep them), in job order
    fmt = get_game("rps-poker").tournament()
    standings: dict[str, Standing] = {}
    for claim, result in zip(held, played, strict=True):
        labels = [v.bot.label for v in competition.seat_versions(claim.job)]
        seated = [standings.setdefault(n, Standing(name=n, source="upload")) for n in labels]
        record = result.outcome.record
        stats = [SeatStats(**seat) for seat in record["stats"]]
        fmt.tally(seated, MatchOutcome(record, result.outcome.state, stats))
    assert len(standings) == 3
    for label, standing in standings.items():
        row = LeaderboardRow.objects.get(bot__owner__username=label.split("/")[0])
        expected = fmt.bot_json(standing)
        # (the mean time a call, in ms to 3 places, sums the same calls' times in another
        # order: a mean of 1.5 us came out 0.001 and 0.002 once)
        assert row.score["mean_call_ms"] == pytest.approx(expected["mean_call_ms"], abs=0.0011)
        assert {**row.score, "mean_call_ms": 0} == {**expected, "mean_call_ms": 0}
        assert row.matches == 4 and "head_to_head" not in row.standing  # (kept apart)


def test_a_store_tried_again_after_its_result_was_committed_goes_on_with_the_rating(
    three, monkeypatch
):
    competition.start_round_robin("rps-poker", 1, seed=23)
    held = competition.claim("w1", 60)
    played = _played(held.job)
    real = competition.rate_pending

    def away(game: str, **kwargs: object) -> int:
        raise OperationalError("the database went away")

    monkeypatch.setattr(competition, "rate_pending", away)
    with pytest.raises(OperationalError):
        competition.store_result(held, played)
    stored = Match.objects.get(job_id=held.job.pk)
    assert not stored.rated and MatchJob.objects.get(pk=held.job.pk).status == MatchJob.DONE
    monkeypatch.setattr(competition, "rate_pending", real)
    again = competition.store_result(held, played)
    assert again == stored
    assert Match.objects.filter(job_id=held.job.pk).count() == 1
    while (rest := competition.claim("w1", 60)) is not None:  # its deal's other seating
        competition.store_result(rest, _played(rest.job))
    assert Match.objects.get(pk=stored.pk).rated
    assert RatingHistory.objects.filter(match=stored).count() == 2
    # another worker's claim of the same job is not ours: nothing to go on with
    other = leases.Claim(held.job, "w2", held.attempt)
    assert competition.store_result(other, played) is None


def test_rerank_writes_only_the_rows_whose_rank_changed(three):
    rows = {row.bot.name: row for row in LeaderboardRow.objects.select_related("bot")}
    for name, conservative in (("simple", 3.0), ("strong", 2.0), ("minimal", 1.0)):
        LeaderboardRow.objects.filter(pk=rows[name].pk).update(conservative=conservative)
    rerank("rps-poker")
    ranks = dict(LeaderboardRow.objects.values_list("bot__name", "rank"))
    assert ranks == {"simple": 1, "strong": 2, "minimal": 3}
    with CaptureQueriesContext(connection) as queries:
        rerank("rps-poker")
    assert not [q for q in queries.captured_queries if q["sql"].startswith("UPDATE")]
    LeaderboardRow.objects.filter(pk=rows["minimal"].pk).update(conservative=2.5)
    with CaptureQueriesContext(connection) as queries:
        rerank("rps-poker")
    updates = [q["sql"] for q in queries.captured_queries if q["sql"].startswith("UPDATE")]
    assert len(updates) == 2  # the two that swapped places; the first one stays as it is
    assert not [sql for sql in updates if sql.endswith(f'"id" = {rows["simple"].pk}')]
    ranks = dict(LeaderboardRow.objects.values_list("bot__name", "rank"))
    assert ranks == {"simple": 1, "minimal": 2, "strong": 3}


def test_equal_ratings_are_ranked_by_the_games_own_score(three):
    rows = {row.bot.name: row for row in LeaderboardRow.objects.select_related("bot")}
    for name, score in (("simple", 10), ("strong", 30), ("minimal", 20)):
        row = rows[name]
        entry = {"name": row.bot.label, "score": score, "faults": 0}
        LeaderboardRow.objects.filter(pk=row.pk).update(conservative=1.0, score=entry)
    LeaderboardRow.objects.filter(pk=rows["simple"].pk).update(conservative=5.0)
    rerank("rps-poker")
    ranks = dict(LeaderboardRow.objects.values_list("bot__name", "rank"))
    assert ranks == {"simple": 1, "strong": 2, "minimal": 3}


def test_a_worker_rates_what_it_left_to_another_before_it_goes_idle(three, monkeypatch):
    """As if another worker were rating every time this one stored: its stores leave the
    ratings (they do not wait for the ledger), and it rates them all before going idle."""
    from bots.ladder import ratings
    from bots.worker import Options, Worker

    real = ratings.rate_pending
    left: list[str] = []

    def busy_ledger(game: str, *, wait: bool = True) -> int | None:
        if not wait:
            left.append(game)
            return None  # what rate_pending says when another holds the ledger
        return real(game)

    monkeypatch.setattr(competition, "rate_pending", busy_ledger)
    tournament = competition.start_round_robin("rps-poker", 1, seed=24)
    worker = Worker(Options(validate=False), name="w1")
    assert worker.run(batch=True) == tournament.jobs.count() == 6
    assert left == ["rps-poker"] * 6
    assert Match.objects.filter(tournament=tournament).count() == 6
    assert not Match.objects.filter(rated=False).exists()
    assert RatingHistory.objects.count() == 12


def test_a_store_does_not_wait_for_a_ledger_held_elsewhere_when_asked_not_to(transactional_db):
    """lock_ledger(wait=False) answers None when another transaction holds the ledger (on
    PostgreSQL; SQLite has no row locks and a single writer)."""
    from bots.ladder.ratings import lock_ledger
    from bots.models import RatingLedger

    RatingLedger.objects.create(game="rps-poker")  # committed: the other connection sees it
    if not connection.features.has_select_for_update_skip_locked:
        with transaction.atomic():
            assert lock_ledger("rps-poker", wait=False) is not None
        return
    with ledger_held_elsewhere("rps-poker"), transaction.atomic():
        assert lock_ledger("rps-poker", wait=False) is None
    with transaction.atomic():
        assert lock_ledger("rps-poker", wait=False) is not None
