"""UTH bots play alone against the dealer, so they are rated against each other on the same
deals: every bot of a round robin's session plays one seed, and a newcomer's placement draws
fresh deals that the other bots play too, in the placement."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.db import transaction

from bots import competition
from bots.competition.uploads import activate
from bots.ladder.ratings import MODEL
from bots.models import Bot, BotVersion, Match, MatchJob, Rating, RatingHistory
from bots.running.playing import Entry, play
from games.registry import get_game

UTH = get_game("uth")


def make_active(owner: str, builtin: str) -> BotVersion:
    user, _ = get_user_model().objects.get_or_create(username=owner)
    code = UTH.builtin_path(builtin).read_text()
    bot = Bot.objects.create(owner=user, game="uth", name=builtin, language="python")
    version = BotVersion.objects.create(
        bot=bot, number=1, code=code, checksum=BotVersion.checksum_of(code)
    )
    with transaction.atomic():
        activate(version)
    return version


def played(job: MatchJob):
    """The job's match with the built-in bot of the same code, in-process."""
    entries = [Entry(name=v.bot.label, builtin=v.bot.name) for v in competition.seat_versions(job)]
    return play(UTH, entries, seed=job.seed)


def play_all(worker: str = "w1") -> None:
    while (held := competition.claim(worker, 60)) is not None:
        competition.store_result(held, played(held.job))


@pytest.fixture
def three_bots(db):
    versions = [
        make_active("alice", "always-check"),
        make_active("bob", "basic"),
        make_active("carol", "always-check"),
    ]
    return versions


def ratings() -> dict[str, tuple[float, float, int]]:
    return {r.bot.label: (r.mu, r.sigma, r.matches) for r in Rating.objects.select_related("bot")}


def ratings_when_finished_in(order: list[int]) -> dict[str, tuple[float, float, int]]:
    with transaction.atomic():
        tournament = competition.start_round_robin("uth", 2, seed=41)
        held = [competition.claim(f"w{n}", 60) for n in range(tournament.jobs.count())]
        results = [(h, played(h.job)) for h in held]
        for n in order:
            competition.store_result(*results[n])
        got = ratings()
        transaction.set_rollback(True)
    return got


def test_it_rates_bots_of_one_deal_against_each_other(three_bots):
    tournament = competition.start_round_robin("uth", 2, seed=40)
    play_all()
    seeds = set(tournament.jobs.values_list("seed", flat=True))
    assert len(seeds) == 2  # two sessions, each one deal shared by the three bots
    for label, (_, _, matches) in ratings().items():
        assert matches == 2, label
        assert RatingHistory.objects.filter(bot__owner__username=label.split("/")[0]).count() == 2
    # on each deal, the bot that won the most chips gained the most
    for seed in seeds:
        seats = sorted(
            (m.participants.get() for m in Match.objects.filter(seed=seed)),
            key=lambda s: s.score,
        )
        gains = {
            h.bot_id: h.mu - h.mu_before for h in RatingHistory.objects.filter(match__seed=seed)
        }
        if seats[0].score < seats[-1].score:
            assert gains[seats[-1].bot_id] > gains[seats[0].bot_id]
    assert not Match.objects.filter(rated=False).exists()


def test_it_rates_a_deal_only_when_every_bot_has_played_it(three_bots):
    competition.start_round_robin("uth", 1, seed=42)
    first = competition.claim("w1", 60)
    competition.store_result(first, played(first.job))
    assert not Match.objects.filter(rated=True).exists()
    assert not RatingHistory.objects.exists()
    play_all("w2")
    assert Match.objects.filter(rated=True).count() == 3
    assert RatingHistory.objects.count() == 3


def test_it_rates_the_same_whatever_order_workers_finish_in(three_bots):
    in_order = ratings_when_finished_in([0, 1, 2, 3, 4, 5])
    shuffled = ratings_when_finished_in([4, 2, 5, 0, 3, 1])
    assert in_order == shuffled
    assert all(mu != MODEL.mu for mu, _, _ in in_order.values())


def dealt(game: str = "uth") -> set[int]:
    """Every seed a match of the game was played on (what bots and owners have seen)."""
    return set(Match.objects.filter(game=game).values_list("seed", flat=True))


def test_a_newcomer_gets_fresh_deals_that_the_others_play_beside_it(three_bots):
    competition.start_round_robin("uth", 3, seed=43)
    play_all()
    seen = dealt()
    assert len(seen) == 3
    newcomer = make_active("dave", "basic")
    with transaction.atomic():
        placement = competition.schedule_placement(newcomer)
    jobs = list(placement.jobs.order_by("id"))
    deals = placement.settings["deals"]
    others = [v.pk for v in BotVersion.objects.exclude(pk=newcomer.pk)]
    # no deal of the placement was ever dealt before, to any bot
    assert not {job.seed for job in jobs} & seen
    assert not {job.seed for job in jobs} & set(
        MatchJob.objects.exclude(tournament=placement).values_list("seed", flat=True)
    )
    assert "shared_deals" not in placement.settings
    # each deal: the newcomer's session, then every other bot's, on the same fresh seed
    assert len({job.seed for job in jobs}) == deals
    by_deal = {}
    for job in jobs:
        by_deal.setdefault(job.seed, []).append(job.seats)
    for seats in by_deal.values():
        assert seats == [[newcomer.pk], *([pk] for pk in sorted(others))]
    before = ratings()
    play_all()
    after = ratings()
    # every deal is rated once all its bots have played it, all of them in one game
    assert not Match.objects.filter(rated=False).exists()
    _, sigma, matches = after["dave/basic"]
    assert matches == deals and sigma < MODEL.sigma
    for label, (_, _, count) in before.items():
        assert after[label][2] == count + deals, label
    for seed in by_deal:
        seats = sorted(
            (m.participants.get() for m in Match.objects.filter(seed=seed)), key=lambda s: s.score
        )
        assert len(seats) == 4
        gains = {
            h.bot_id: h.mu - h.mu_before for h in RatingHistory.objects.filter(match__seed=seed)
        }
        if seats[0].score < seats[-1].score:
            assert gains[seats[-1].bot_id] > gains[seats[0].bot_id]


def test_a_second_version_never_meets_a_deal_its_first_was_shown(three_bots):
    """The attack of issue 28: a version that logged every card it saw, and the next version
    with those cards built in. Whatever it logged, its placement deals other cards."""
    alice = three_bots[0]
    competition.start_round_robin("uth", 2, seed=44)
    play_all()
    shown = {m.seed for m in Match.objects.filter(participants__bot=alice.bot)}
    assert shown
    code = alice.code + "\n# with what the first version saw built in\n"
    second = BotVersion.objects.create(
        bot=alice.bot, number=2, code=code, checksum=BotVersion.checksum_of(code)
    )
    with transaction.atomic():
        activate(second)
        placement = competition.schedule_placement(second)
    seeds = set(placement.jobs.values_list("seed", flat=True))
    assert seeds and not seeds & dealt()
    play_all()
    mine = {m.seed for m in Match.objects.filter(participants__version=second)}
    assert mine == seeds and not mine & shown


def test_a_newcomer_of_an_unplayed_game_gets_fresh_deals(db):
    alice = make_active("alice", "always-check")
    newcomer = make_active("bob", "basic")
    with transaction.atomic():
        placement = competition.schedule_placement(newcomer)
    deals = placement.settings["deals"]
    assert placement.jobs.count() == deals * 2
    seats = list(placement.jobs.order_by("id").values_list("seats", flat=True))
    assert seats == [[newcomer.pk], [alice.pk]] * deals


def test_a_seed_given_again_is_refused_and_drawn_seeds_are_fresh(three_bots):
    competition.start_round_robin("uth", 2, seed=45)
    with pytest.raises(ValueError, match="already dealt"):
        competition.start_round_robin("uth", 2, seed=45)
    assert competition.Tournament.objects.filter(format="round-robin").count() == 1
    drawn = competition.start_round_robin("uth", 2)
    seeds = set(drawn.jobs.values_list("seed", flat=True))
    assert len(seeds) == 2
    assert not seeds & set(
        MatchJob.objects.exclude(tournament=drawn).values_list("seed", flat=True)
    )
