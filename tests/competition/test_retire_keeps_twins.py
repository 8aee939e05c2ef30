"""Retiring a bot (or its being taken off the ladder) withdraws its queued matches, but never
the other seating of a deal it has already played or is playing: each deal is played twice
with the seats swapped to cut luck, so it counts both ways or not at all. An audit's owner
saw a lucky first seating (its replay, the built-ins' public code), retired the bot so its
twin was withdrawn, and the lone seating was rated (reportE, E1)."""

from __future__ import annotations

from bots import competition
from bots.competition.uploads import retire
from bots.models import Match, MatchJob, Tournament
from bots.running.playing import Entry, play
from games.registry import get_game
from tests.competition.conftest import builtin_code

RPS = get_game("rps-poker")
RETIRED = "withdrawn: the bot was retired by its owner"


def in_process(job: MatchJob) -> object:
    versions = competition.seat_versions(job)
    entries = [Entry(name=v.bot.label, builtin=v.bot.name) for v in versions]
    return play(RPS, entries, seed=job.seed)


def jobs() -> list[tuple[int, str, str]]:
    return [(j.round, j.status, j.error) for j in MatchJob.objects.order_by("id")]


def test_the_twin_of_a_played_deal_stays_queued_and_both_are_rated(alice, carol, active_bot):
    active_bot(alice, "simple", builtin_code("simple"))
    leaving = active_bot(carol, "minimal", builtin_code("minimal"))
    competition.start_round_robin("rps-poker", 2, seed=77)
    # round 0's first seating, its second, then round 1's: one deal a round
    held = competition.claim("w1", 60)
    assert held is not None and held.job.round == 0
    first = competition.store_result(held, in_process(held.job))
    assert first is not None

    assert retire(leaving.bot) == leaving
    assert jobs() == [
        (0, MatchJob.DONE, ""),
        (0, MatchJob.QUEUED, ""),  # the other seating of the deal it played: still played
        (1, MatchJob.FAILED, RETIRED),  # a deal it never played: withdrawn, both seatings
        (1, MatchJob.FAILED, RETIRED),
    ]
    assert Tournament.objects.get().state != Tournament.DONE

    # the retired version plays its twin (the job names it): the deal counts both ways
    held = competition.claim("w1", 60)
    assert held is not None and held.job.round == 0
    assert leaving.pk in held.job.seats
    twin = competition.store_result(held, in_process(held.job))
    assert twin is not None
    assert list(Match.objects.values_list("rated", flat=True)) == [True, True]
    assert Tournament.objects.get().state == Tournament.DONE


def test_a_deal_being_played_keeps_its_twin_too(alice, carol, active_bot):
    active_bot(alice, "simple", builtin_code("simple"))
    leaving = active_bot(carol, "minimal", builtin_code("minimal"))
    competition.start_round_robin("rps-poker", 1, seed=78)
    held = competition.claim("w1", 60)  # running: it finishes and counts
    assert held is not None
    retire(leaving.bot)
    assert jobs() == [(0, MatchJob.RUNNING, ""), (0, MatchJob.QUEUED, "")]
    assert competition.store_result(held, in_process(held.job)) is not None


def test_only_its_own_seatings_keep_a_deal_for_it(alice, bob, carol, active_bot):
    """A deal kept is one the leaving version played itself: a one-seat game deals one seed
    to every bot, and a seed another pairing played is no deal it saw."""
    from bots.competition.leaving import withdraw_queued_jobs

    a = active_bot(alice, "simple", builtin_code("simple"))
    b = active_bot(bob, "minimal", builtin_code("minimal"))
    c = active_bot(carol, "strong", builtin_code("strong"))
    tournament = Tournament.objects.create(game="rps-poker")

    def job(seats: list[int], seed: int, status: str) -> MatchJob:
        return MatchJob.objects.create(
            tournament=tournament, game="rps-poker", round=0, seats=seats, seed=seed,
            status=status,
        )  # fmt: skip

    job([a.pk, c.pk], 5, MatchJob.RUNNING)  # seed 5: played by others only
    others = job([b.pk, c.pk], 5, MatchJob.QUEUED)
    job([c.pk, b.pk], 6, MatchJob.RUNNING)  # seed 6: its own first seating
    twin = job([b.pk, c.pk], 6, MatchJob.QUEUED)
    assert withdraw_queued_jobs(b, RETIRED) == 1
    others.refresh_from_db()
    twin.refresh_from_db()
    assert (others.status, others.error) == (MatchJob.FAILED, RETIRED)
    assert twin.status == MatchJob.QUEUED
