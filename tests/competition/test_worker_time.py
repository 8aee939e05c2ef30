"""Worker time is shared (issue 28, goal 6): each match's wall time, measured by the worker, is
charged to its bots; a bot's worker time in a tournament is bounded (past it, its matches
there are forfeited, fault ``time``) and shown; and the queue is interleaved by bot, by the
time its matches take, so a slow bot never holds a worker ahead of the others' work."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.db import transaction

from bots import competition
from bots.ladder import aggregates
from bots.models import (
    BotVersion,
    Match,
    MatchJob,
    MatchSeat,
    QueueDebt,
    Tournament,
    TournamentResult,
)
from bots.running.playing import Entry, Played, SeatReport, play
from bots.worker import Options, Worker
from games.engine.runner import MatchOutcome, MatchRunner, SeatStats, TimeControl
from games.registry import get_game
from games.rps_poker.rules import RpsPokerState
from tests.competition.conftest import builtin_code, misbehaving
from tests.engine.test_runner import FakeClock, SlowAgent, minimal_agent

RPS = get_game("rps-poker")

#: a bot whose every move takes a quarter of a second (well within the per-call time: it
#: passes validation, and every match of it takes some 4 s of a worker's time)
#: 0.5 s of its own CPU a call (not a sleep: a sleeping bot's sandbox may be credited the
#: waits of its other processes for a CPU on a busy machine, which are not its worker time)
SLOW = misbehaving(
    "import time; end = time.process_time() + 0.5; "
    "any(time.process_time() >= end for _ in iter(int, 1))"
)


# ---- measuring ------------------------------------------------------------------------------
def played_with(stats: list[SeatStats], wall: float) -> Played:
    outcome = SimpleNamespace(stats=stats)
    return Played(outcome, [SeatReport(0.0) for _ in stats], wall)  # type: ignore[arg-type]


def test_a_match_charges_each_seat_its_own_time_and_a_share_of_the_rest():
    slow = SeatStats(think_s=12.0, startup_s=0.5, faulted_s=1.0)
    quick = SeatStats(think_s=0.1, startup_s=0.1)
    charged = competition.charges(played_with([slow, quick], wall=14.0))
    # 13.5 s and 0.2 s of their own, and the 0.3 s left (the rules, the worker) halved
    assert charged == pytest.approx([13.65, 0.35])
    assert sum(charged) == pytest.approx(14.0)
    assert competition.charge_ms(played_with([slow, quick], wall=14.0)) == [13650, 350]


def test_seats_that_think_side_by_side_share_the_match_in_proportion():
    both = [SeatStats(think_s=3.0), SeatStats(think_s=1.0)]
    assert competition.charges(played_with(both, wall=2.0)) == pytest.approx([1.5, 0.5])


def test_a_seat_cut_off_at_its_budget_is_charged_all_of_it_even_beside_another():
    # both started side by side (0.3 s each): together longer than the match; the seat that
    # ran out of worker time used all it had, and no sliver is left to start it again for
    cut = SeatStats(think_s=2.7, startup_s=0.3, budget_spent=True)
    quick = SeatStats(think_s=0.05, startup_s=0.3)
    charged = competition.charges(played_with([cut, quick], wall=3.1))
    assert charged == pytest.approx([3.0, 0.1])
    assert sum(charged) == pytest.approx(3.1)
    # without the cut, the same seats share in proportion (as simultaneous moves do)
    cut.budget_spent = False
    assert competition.charges(played_with([cut, quick], wall=3.1))[0] < 2.9
    # two seats cut off together, longer than the match: in proportion again
    both = [SeatStats(think_s=2.0, budget_spent=True), SeatStats(think_s=2.0, budget_spent=True)]
    assert competition.charges(played_with(both, wall=3.0)) == pytest.approx([1.5, 1.5])


def test_the_machines_waits_in_one_seat_are_charged_to_neither_seat():
    """A loaded machine kept the heavy seat's bot waiting 6 s for a CPU, and set up its
    sandbox for 2 s: neither is its opponent's (a share of the rest), nor its own."""
    heavy = SeatStats(think_s=9.0, startup_s=0.5, starved_s=6.0, platform_s=2.0)
    quick = SeatStats(think_s=0.1, startup_s=0.1)
    charged = competition.charges(played_with([heavy, quick], wall=11.9))
    # 3.5 s and 0.2 s of their own, and the 0.2 s left (the rules, the worker) halved; not
    # 4.1 s more each, half of the machine's 8 s
    assert charged == pytest.approx([3.6, 0.3])
    # waits the match's wall time does not hold (seats waiting side by side) leave no rest
    both = [SeatStats(think_s=4.0, starved_s=3.0), SeatStats(think_s=4.0, starved_s=3.0)]
    assert competition.charges(played_with(both, wall=4.5)) == pytest.approx([1.0, 1.0])


class WaitedFor(SlowAgent):
    """Each call takes ``delay`` seconds of the runner's clock, ``starved`` of them the
    machine keeping the bot waiting for a CPU (its ``starved_s``, as ProcessAgent says
    it)."""

    def __init__(self, clock: FakeClock, delay: float, starved: float) -> None:
        super().__init__(clock, delay, "waited")
        self.starved = starved
        self.starved_s = 0.0

    def receive(self, timeout: float):
        self.starved_s = self.starved
        return super().receive(timeout)


def test_a_seats_waits_for_a_cpu_within_the_per_call_time_are_not_its_worker_time():
    """0.6 s calls, 0.4 s of each the machine's: within the 1 s per call, so the time bank is
    untouched as ever, and its worker time is its own 0.2 s a call, not 0.6 s."""
    clock = FakeClock()
    agents = [WaitedFor(clock, 0.6, 0.4), minimal_agent("quick")]
    outcome = MatchRunner(clock, TimeControl()).run(RpsPokerState.new(3), agents, seed=3)
    assert outcome.faults == {}
    mine = outcome.stats[0]
    calls = mine.think_s / 0.6
    assert mine.starved_s == pytest.approx(0.4 * calls)
    assert mine.own_s == pytest.approx(0.2 * calls)
    assert mine.bank_left == TimeControl().bank
    # and its opponent is charged none of those waits (the match's wall time holds them)
    charged = competition.charges(played_with(outcome.stats, wall=clock.now))
    assert charged == pytest.approx([0.2 * calls, 0.0])


def test_over_the_per_call_time_the_bank_pays_as_before_and_worker_time_less():
    """1.5 s calls, 0.2 s of each the machine's: its bank pays 0.3 s a call (the call less
    the machine's share, over the 1 s per call), its worker time 1.3 s."""
    clock = FakeClock()
    agents = [WaitedFor(clock, 1.5, 0.2), minimal_agent("quick")]
    tc = TimeControl(bank=100.0)
    outcome = MatchRunner(clock, tc).run(RpsPokerState.new(3), agents, seed=3)
    mine = outcome.stats[0]
    calls = mine.think_s / 1.5
    assert mine.bank_left == pytest.approx(100.0 - 0.3 * calls)
    assert mine.own_s == pytest.approx(1.3 * calls)


def test_a_seat_is_cut_off_where_its_budget_runs_out():
    clock = FakeClock()
    slow, quick = SlowAgent(clock, 0.4, "slow"), minimal_agent("quick")
    runner = MatchRunner(clock, TimeControl(), seat_time_controls={0: TimeControl(budget=1.0)})
    outcome = runner.run(RpsPokerState.new(3), [slow, quick], seed=3)
    fault = outcome.faults[0]
    assert fault.kind == "time"
    assert "out of worker time" in fault.reason and "1.00 s" in fault.reason
    # cut off at its budget: it never waited past it, and its stats say it used all of it
    assert outcome.stats[0].own_s == pytest.approx(1.0)
    assert outcome.stats[0].budget_spent and not outcome.stats[1].budget_spent
    assert 1 not in outcome.faults
    assert outcome.record["seat_time_controls"]["0"]["budget"] == 1.0


def test_seats_sharing_a_budget_are_cut_off_where_their_time_together_runs_out():
    """A playground run's budget bounds all the bots at its table together (the run pays
    for all of them): two bots of 0.4 s a move, given 1 s alone each, play on past it."""

    def played(tc: TimeControl) -> tuple[FakeClock, MatchOutcome]:
        clock = FakeClock()
        runner = MatchRunner(clock, TimeControl(), seat_time_controls={0: tc, 1: tc})
        both = [SlowAgent(clock, 0.4, "a"), SlowAgent(clock, 0.4, "b")]
        return clock, runner.run(RpsPokerState.new(3), both, seed=3)

    clock, outcome = played(TimeControl(budget=1.0, shared_by="the run's 1 s of worker time"))
    # both thought 0.4 s side by side, so 0.2 s were left for their next calls: cut there
    assert clock.now == pytest.approx(0.6)
    assert {seat: fault.kind for seat, fault in outcome.faults.items()} == {0: "time", 1: "time"}
    assert outcome.faults[0].reason == (
        "out of worker time: draft_receive ran past the 1.00 s this match had of the run's 1 s "
        "of worker time"
    )
    assert all(seat.budget_spent for seat in outcome.stats)
    clock, outcome = played(TimeControl(budget=1.0))
    assert clock.now >= 1.0


# ---- the bound ------------------------------------------------------------------------------
@pytest.fixture
def slow_field(alice, bob, carol, active_bot):
    good = active_bot(alice, "simple", builtin_code("simple"))
    slow = active_bot(bob, "slow", SLOW)
    other = active_bot(carol, "strong", builtin_code("strong"))
    return good, slow, other


def test_a_slow_bot_is_bounded_per_tournament_and_forfeits_the_rest(slow_field):
    good, slow, other = slow_field
    # a bound of 3 s: the slow bot's first match (ten moves of 0.5 s of CPU) runs past it, and
    # the quick bots' four matches stay far within it even on a busy machine
    tournament = competition.start_round_robin("rps-poker", 1, worker_s=3.0)
    assert tournament.settings["worker_s"] == 3.0 and tournament.worker_bound_s == 3.0
    assert Worker(Options(validate=False), name="w1").run(batch=True) == 6
    seats = MatchSeat.objects.filter(match__tournament=tournament).order_by("match__job_id")
    mine = list(seats.filter(version=slow))
    assert len(mine) == 4
    assert {s.fault_kind for s in mine} == {"time"}
    # the first is cut off in the middle, where its worker time ran out; the others are
    # forfeited without the bot being started
    assert "ran past the 3.00 s the bot had left" in mine[0].fault_reason
    for seat in mine[1:]:
        assert "forfeited" in seat.fault_reason and "bound is 3 s" in seat.fault_reason
        assert seat.worker_ms < 250  # a share of the match's rest only (more on a busy machine)
    # its worker time: the bound, and no more than the shares of its first match's rest (its
    # sandbox's end among them, which takes longer on a busy machine): far from the 4 x 14 s
    # its matches would have held the worker
    used = TournamentResult.objects.get(tournament=tournament, bot=slow.bot, opponent=0)
    assert 3000 <= used.worker_ms < 4500
    # the others played every match, without a fault, and each used little time
    cut_off = mine[0]
    for version in (good, other):
        theirs = list(seats.filter(version=version))
        assert len(theirs) == 4 and all(not s.fault_kind for s in theirs)
        row = TournamentResult.objects.get(tournament=tournament, bot=version.bot, opponent=0)
        # four matches, each a sandbox's start and quick answers: none of the slow bot's
        # time. The total has room for a busy machine (a start takes several times as long
        # under load); the match the slow bot was cut off in says it outright: its
        # opponent was charged its own part, not a share of the slow bot's 3 s
        assert row.worker_ms == sum(s.worker_ms for s in theirs) < 3000
        across = [s for s in theirs if s.match_id == cut_off.match_id]
        if across:
            assert across[0].worker_ms < 1000 <= 3000 <= cut_off.worker_ms
    # what the seats were charged adds up to the matches' wall time, less the machine's
    # waits (its sandboxes' set-up, a busy machine's CPU): never more
    for match in Match.objects.filter(tournament=tournament):
        charged = sum(s.worker_ms for s in match.participants.all())
        assert charged <= 1000 * match.duration_s + 2
    assert aggregates.kept_tournament(tournament.pk) == aggregates.recount_tournament(tournament.pk)


def test_a_bot_out_of_time_is_not_started_and_its_opponent_wins(slow_field):
    good, slow, _ = slow_field
    tournament = competition.start_round_robin(
        "rps-poker", 1, worker_s=2.0, tables=[[slow.pk, good.pk]]
    )
    TournamentResult.objects.create(tournament=tournament, bot=slow.bot, worker_ms=2000)
    job = tournament.jobs.order_by("id").first()
    played = competition.play_job(job)
    assert played.seats[0].fault_kind == "time"
    assert "took 2.0 s of worker time, its bound is 2 s" in played.seats[0].fault_reason
    assert played.seats[0].stderr == ""  # never started
    assert not played.seats[1].fault_kind
    assert played.outcome.result["scores"][1] > played.outcome.result["scores"][0]
    # the good bot had the whole bound to play with
    assert played.outcome.record["seat_time_controls"]["1"]["budget"] == 2.0


def test_a_tournament_keeps_the_bound_it_was_scheduled_with(slow_field, settings):
    settings.WORKER_SECONDS_PER_BOT_PER_TOURNAMENT = 45
    first = competition.start_round_robin("rps-poker", 1)
    settings.WORKER_SECONDS_PER_BOT_PER_TOURNAMENT = 90
    assert Tournament.objects.get(pk=first.pk).worker_bound_s == 45
    call_command("start_tournament", "--game", "rps-poker", "--worker-seconds", "0")
    unbounded = Tournament.objects.latest("id")
    assert unbounded.settings["worker_s"] == 0 and unbounded.worker_bound_s == 0
    newest = BotVersion.objects.get(bot__name="strong")
    with transaction.atomic():
        placement = competition.schedule_placement(newest)
    assert placement.settings["worker_s"] == 90
    with pytest.raises(ValueError, match="0 or more"):
        competition.start_round_robin("rps-poker", 1, worker_s=-1)


# ---- the order ------------------------------------------------------------------------------
def in_process(held, seconds: dict[int, float] | None = None) -> Played:
    """The job's match with the built-in bots of the same names, in-process, as if each seat
    had taken the seconds given (0.01 s for the others)."""
    versions = competition.seat_versions(held.job)
    entries = [Entry(name=v.bot.label, builtin=v.bot.name) for v in versions]
    played = play(RPS, entries, seed=held.job.seed)
    for seat, stats in enumerate(played.outcome.stats):
        stats.startup_s, stats.faulted_s = 0.0, 0.0
        stats.think_s = (seconds or {}).get(versions[seat].pk, 0.01)
    played.duration_s = sum(s.own_s for s in played.outcome.stats)
    return played


def drain(worker: str, slow: BotVersion) -> list[MatchJob]:
    """Claim and store every job left, in claim order; the slow version's seats take 14 s."""
    claimed = []
    while (held := competition.claim(worker, 60)) is not None:
        claimed.append(held.job)
        competition.store_result(held, in_process(held, {slow.pk: 14.0}))
    return claimed


@pytest.fixture
def four_bots(alice, bob, carol, active_bot):
    dave = User.objects.create_user("dave")
    return [
        active_bot(alice, "simple", builtin_code("simple")),
        active_bot(bob, "strong", builtin_code("strong")),
        active_bot(carol, "minimal", builtin_code("minimal")),
        active_bot(dave, "simple", builtin_code("simple")),
    ]


def test_a_slow_placement_does_not_hold_a_worker_ahead_of_another(four_bots):
    """The attack of issue 28: a bot 0.95 s on every call, whose placement held a worker for
    minutes ahead of everyone else's. Its next match now waits for the placements of the
    others to have had as much time."""
    slow, fast = four_bots[2], four_bots[3]
    with transaction.atomic():
        slow_placement = competition.schedule_placement(slow)
        fast_placement = competition.schedule_placement(fast)
    first = competition.claim("w1", 60)
    assert first.job.tournament_id == slow_placement.pk  # uploaded first: its turn 0
    competition.store_result(first, in_process(first, {slow.pk: 14.0}))
    rest = slow_placement.jobs.filter(status=MatchJob.QUEUED)
    assert {job.turn for job in rest} == {n + 140 for n in range(1, 1 + rest.count())}
    order = drain("w1", slow)
    quick = [job for job in order if slow.pk not in job.seats]
    # every match without the slow bot first (the other placement's), but for the other
    # placement's first with it (its place in the queue came before its time was known),
    # then the rest of those with it, each pushing the rest of its tournament's further back
    ahead = order[: order.index(quick[-1])]
    slow_ahead = [job for job in ahead if slow.pk in job.seats]
    assert [job.tournament_id for job in slow_ahead] in ([], [fast_placement.pk]), order
    assert {job.tournament_id for job in quick} == {fast_placement.pk}
    assert len(quick) == fast_placement.jobs.count() - 4  # its 2 deals x 2 seats with the slow
    assert len(order) == fast_placement.jobs.count() + rest.count()


def test_a_slow_bot_goes_after_the_others_in_a_round(four_bots):
    a, b, slow, _ = four_bots
    tables = [[slow.pk, a.pk], [a.pk, b.pk], [slow.pk, b.pk]]
    tournament = competition.start_round_robin("rps-poker", 1, tables=tables, worker_s=0)
    claimed = drain("w1", slow)
    seated = [sorted(job.seats) for job in claimed]
    # its first match is the first job; then the round's other matches, then its own
    assert seated[0] == sorted([slow.pk, a.pk])
    assert seated[1:3] == [sorted([a.pk, b.pk])] * 2
    assert all(slow.pk in seats for seats in seated[3:])
    assert len(claimed) == tournament.jobs.count() == 6
    # the seats were charged what they took, and its row counts every second of it
    row = TournamentResult.objects.get(tournament=tournament, bot=slow.bot, opponent=0)
    assert row.worker_ms == 4 * 14000


# ---- shown ----------------------------------------------------------------------------------
def test_the_pages_and_the_api_show_worker_time_and_its_bound(client, four_bots):
    a, _, slow, _ = four_bots
    tournament = competition.start_round_robin(
        "rps-poker", 1, tables=[[slow.pk, a.pk]], worker_s=60
    )
    drain("w1", slow)
    page = client.get(f"/tournaments/{tournament.pk}/").content.decode()
    assert "Worker time" in page and "Each bot may use 60 s here" in page
    assert "28.0 s" in page and "47%" in page  # 2 x 14 s of its 60 s
    answer = client.get(f"/api/tournaments/{tournament.pk}/").json()
    worker = answer["worker_time"]
    assert worker["bound_s"] == 60 and answer["settings"]["worker_s"] == 60
    assert worker["bots"][0]["id"] == slow.bot_id and worker["bots"][0]["used_s"] == 28.0
    assert worker["bots"][0]["share"] == pytest.approx(28 / 60, abs=1e-4)
    assert worker["bots"][1]["id"] == a.bot_id and worker["bots"][1]["used_s"] == 0.02
    bot_page = client.get(f"/bots/{slow.bot_id}/").content.decode()
    assert "Worker time" in bot_page and "28.0 s" in bot_page and "60 s" in bot_page
    mine = client.get(f"/api/bots/{slow.bot_id}/").json()["worker_time"]
    assert mine == [
        {"tournament": tournament.pk, "name": str(tournament), "state": "done", "matches": 2,
         "used_s": 28.0, "bound_s": 60.0, "share": pytest.approx(0.4667), "over": False}
    ]  # fmt: skip


def test_bots_about_as_quick_as_each_other_move_no_queued_job(four_bots):
    # a batch of matches whose seats all took about the same time (0.2 s each: two turns,
    # were it counted whole) changes no order, so no queued job is rewritten
    tournament = competition.start_round_robin("rps-poker", 3, worker_s=0)
    claims = [competition.claim("w1", 60) for _ in range(6)]
    quick = {version.pk: 0.2 for version in four_bots}
    results = [(held, in_process(held, quick)) for held in claims]
    before = dict(tournament.jobs.values_list("pk", "turn"))
    assert competition.push_back(results) == 0
    assert dict(tournament.jobs.values_list("pk", "turn")) == before
    # a seat slower than the rest by 0.3 s a match moves its bot's queued jobs back three
    # turns for each such match
    slow = four_bots[0]
    claims = [competition.claim("w1", 60) for _ in range(6)]
    seated = sum(slow.pk in held.job.seats for held in claims)
    assert seated > 0
    results = [(held, in_process(held, quick | {slow.pk: 0.5})) for held in claims]
    moved = competition.push_back(results)
    queued = list(tournament.jobs.filter(status=MatchJob.QUEUED))
    mine = [job for job in queued if slow.pk in job.seats]
    assert moved == len(mine) > 0
    assert {job.turn for job in mine} == {3 * seated}
    assert {job.turn for job in queued if job not in mine} == {0}


def test_a_bot_a_little_slower_owes_turns_before_its_queued_jobs_are_rewritten(four_bots):
    # Its first push moves its queued jobs at once; after that, turns are owed until they
    # make up a hundredth of its queued jobs, then added to all of them in one go: a bot a
    # turn slower than the rest does not rewrite hundreds of jobs after each match.
    tournament = competition.start_round_robin("rps-poker", 40, worker_s=0)
    slow = four_bots[0]
    ids = [job.pk for job in tournament.jobs.all() if slow.pk in job.seats]
    mine = tournament.jobs.filter(pk__in=ids, status=MatchJob.QUEUED)

    def push(turns: int) -> int:
        """What a match of the slow bot ``turns`` turns slower than its opponent moves (as
        its store would push it back: the match is one of its queued ones, for the test)."""
        held = SimpleNamespace(job=mine.first())
        played = in_process(held, {slow.pk: 0.01 + turns * competition.TURN_S})
        return competition.push_back([(held, played)])

    queued = mine.count()
    assert queued >= 200  # a hundredth of them: at least two turns
    assert push(3) == queued  # the first push: at once
    assert set(mine.values_list("turn", flat=True)) == {3}
    debt = QueueDebt.objects.get(tournament=tournament, version=slow.pk)
    assert (debt.owed, debt.jobs) == (0, queued)
    assert push(1) == 0  # one turn of the two that move them: owed
    assert set(mine.values_list("turn", flat=True)) == {3}
    assert QueueDebt.objects.get(pk=debt.pk).owed == 1
    assert push(1) == queued  # two owed: added to every queued job together
    assert set(mine.values_list("turn", flat=True)) == {5}
    assert QueueDebt.objects.get(pk=debt.pk).owed == 0
    # the other bots' jobs never moved
    assert set(tournament.jobs.exclude(pk__in=ids).values_list("turn", flat=True)) == {0}
