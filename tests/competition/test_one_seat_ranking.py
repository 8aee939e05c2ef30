"""A game played alone against the dealer (UTH) is ranked by the chips its bots win on the
same deals, never by a rating with nothing behind it; ranks not separated by their intervals
are marked provisional, and retired bots leave every ranking."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta

import pytest
from django.utils import timezone

from bots import competition
from bots.competition import uploads
from bots.ladder.ratings import ranked_rows, rerank
from bots.models import Bot, BotVersion, LeaderboardRow, MatchJob, Tournament
from games.engine.tournament import Standing
from games.registry import get_game
from games.uth.tournament import Duplicate
from games.views import board_cells, board_headers
from tests.site.test_leaderboard_pages import builtin, enter, play_everything, users


def standing(name: str, nets: list[float]) -> dict:
    """A UTH bot's leaderboard numbers after sessions whose rounds netted ``nets``."""
    fmt = Duplicate()
    totals = {"rounds": len(nets), "sum": sum(nets), "sum_sq": sum(n * n for n in nets),
              "survived": 1, "chips": 1000.0}  # fmt: skip
    made = Standing(name=name, source="upload", matches=1, extra=totals, fault_kinds=Counter())
    made.score = sum(nets) / len(nets)
    return fmt.bot_json(made)


def uth_bot(owner, name: str, nets: list[float], *, mu: float, active: bool = True) -> Bot:
    bot = Bot.objects.create(owner=owner, game="uth", name=name, language="python")
    code = f"# {name}\n"
    status = BotVersion.ACTIVE if active else BotVersion.RETIRED
    BotVersion.objects.create(bot=bot, number=1, code=code, checksum=BotVersion.checksum_of(code),
                              status=status)  # fmt: skip
    LeaderboardRow.objects.create(
        bot=bot, game="uth", mu=mu, sigma=1.0, conservative=mu - 3, matches=1,
        score=standing(bot.label, nets), last_played=timezone.now(),
    )  # fmt: skip
    return bot


def spread(mean: float, width: float, n: int) -> list[float]:
    """``n`` rounds with the given mean, alternating mean - width and mean + width."""
    return [mean + (width if i % 2 else -width) for i in range(n)]


@pytest.mark.django_db
def test_it_ranks_a_one_seat_game_by_chips_per_round_and_marks_what_is_not_settled():
    (owner,) = users("dana")
    # a rating says nothing here: the worst bot is given the best one
    uth_bot(owner, "steady", spread(5.0, 10.0, 400), mu=10)  # +5, interval about +4 to +6
    uth_bot(owner, "loser", spread(-9.0, 10.0, 400), mu=40)  # -9, about -10 to -8
    uth_bot(owner, "close", spread(-8.5, 10.0, 400), mu=30)  # overlaps "loser"
    uth_bot(owner, "lucky", spread(50.0, 10.0, 10), mu=50)  # ten rounds: no estimate yet
    uth_bot(owner, "gone", spread(90.0, 1.0, 400), mu=60, active=False)  # retired
    rerank("uth")
    rows = {r.bot.name: r for r in LeaderboardRow.objects.filter(game="uth")}
    ranks = {name: (row.rank, row.provisional) for name, row in rows.items()}
    assert ranks == {
        "steady": (1, False),
        "close": (2, True),
        "loser": (3, True),
        "lucky": (4, True),  # a high mean over ten rounds does not lead the table
        "gone": (0, False),
    }
    headers = board_headers("uth")
    ranked = list(ranked_rows("uth"))
    cells = [board_cells("uth", row) for row in ranked]
    assert "rating" not in headers and "mu +/- sigma" not in headers
    assert [row.bot.name for row in ranked] == ["steady", "close", "loser", "lucky"]
    assert [line[0]["text"] for line in cells] == [
        "1", "2 (provisional)", "3 (provisional)", "4 (provisional)",
    ]  # fmt: skip
    # the number beside each rank agrees with the order (those with an estimate)
    measure = headers.index("net chips/round (95% CI)")
    shown = [float(line[measure]["sort"]) for line in cells[:3]]
    assert shown == sorted(shown, reverse=True)


@pytest.mark.django_db
def test_pages_and_the_api_rank_the_same_way_and_say_why(client):
    (owner,) = users("dana")
    steady = uth_bot(owner, "steady", spread(5.0, 10.0, 400), mu=10)
    uth_bot(owner, "loser", spread(-9.0, 10.0, 400), mu=40)
    uth_bot(owner, "gone", spread(90.0, 1.0, 400), mu=60, active=False)
    rerank("uth")
    page = client.get("/games/uth/leaderboard/").content.decode()
    assert 'id="ranking-note"' in page and "provisional" in page
    assert "gone" not in page.split('id="stats-title"')[0]
    assert "Bots no longer competing leave the ranking (here 1 retired by its owner)" in page
    home = client.get("/").content.decode()
    uth = home[home.index('href="/games/uth/"') :]
    assert uth.index("steady") < uth.index("loser") and "gone" not in uth[:2000]
    assert 'title="net chips/round (95% CI)">+5.00' in uth
    api = client.get("/api/games/uth/leaderboard/").json()
    assert [r["bot"]["name"] for r in api["results"]] == ["steady", "loser"]
    assert api["results"][0]["measure"]["name"] == "net chips/round (95% CI)"
    assert api["results"][0]["measure"]["value"] == pytest.approx(5.0)
    assert "provisional" in api["ranked_by"]
    assert client.get(f"/api/bots/{steady.pk}/").json()["leaderboard"]["rank"] == 1


@pytest.mark.django_db
def test_on_real_deals_the_better_strategy_ranks_first_whatever_the_ratings_say():
    """The basic strategy against one that only ever checks, on the same sessions, through
    the worker and the sandbox: chips per round rank them, and the ranking stays so even
    when the ratings are turned around."""
    alice, bob = users("alice", "bob")
    enter(alice, "uth", "basic", builtin("uth", "basic"))
    enter(bob, "uth", "checker", builtin("uth", "always-check"))
    competition.start_round_robin("uth", 1, seed=3)
    assert play_everything() >= 2
    rows = {r.bot.name: r for r in LeaderboardRow.objects.filter(game="uth")}
    basic, checker = rows["basic"], rows["checker"]
    assert basic.score["mean_net_per_round"] > checker.score["mean_net_per_round"]
    assert (basic.rank, checker.rank) == (1, 2)
    # the old way ranked by rating: give the checker the better one; nothing changes
    LeaderboardRow.objects.filter(pk=checker.pk).update(mu=60, conservative=57)
    rerank("uth")
    assert LeaderboardRow.objects.get(pk=basic.pk).rank == 1


@pytest.mark.django_db
def test_an_unsettled_ranking_gets_its_next_round_at_once():
    (owner,) = users("dana")
    uth_bot(owner, "close", spread(-8.5, 10.0, 400), mu=30)
    uth_bot(owner, "loser", spread(-9.0, 10.0, 400), mu=40)
    rerank("uth")
    assert competition.unsettled("uth")
    Tournament.objects.create(game="uth", format=Tournament.LADDER, settings={})
    # a round a moment ago and an hour's interval: still, the order is not settled
    assert competition.maybe_ladder_round("uth", interval_s=3600) is not None
    # settled (or played to the cap), the ladder keeps its pace
    LeaderboardRow.objects.filter(game="uth").update(provisional=False)
    Tournament.objects.filter(game="uth").update(created=timezone.now() - timedelta(seconds=5))
    MatchJob.objects.filter(game="uth").delete()
    assert competition.maybe_ladder_round("uth", interval_s=3600) is None


# ---- retiring -------------------------------------------------------------------------------
@pytest.mark.django_db
def test_retiring_asks_first_then_takes_the_bot_out_of_the_ranking(client):
    alice, bob = users("alice", "bob")
    gone = enter(alice, "rps-poker", "simple", builtin("rps-poker", "simple"))
    enter(bob, "rps-poker", "strong", builtin("rps-poker", "strong"))
    client.force_login(alice)
    url = f"/my/bots/{gone.bot_id}/retire/"
    ask = client.get(url).content.decode()
    assert "Retire simple?" in ask and "leaves the RPS Poker leaderboard" in ask
    assert 'name="confirm" value="yes"' in ask
    # a post without the confirmation only asks again
    assert "Retire simple?" in client.post(url).content.decode()
    gone.refresh_from_db()
    assert gone.status == BotVersion.ACTIVE
    # the My bots button leads to the question, not straight to retiring
    mine = client.get("/my/bots/").content.decode()
    assert f'<form method="get" action="{url}" data-role="retire"' in mine
    response = client.post(url, {"confirm": "yes"})
    assert response.status_code == 302
    gone.refresh_from_db()
    assert gone.status == BotVersion.RETIRED
    board = client.get("/games/rps-poker/leaderboard/").content.decode()
    assert "alice/simple" not in board.split('id="stats-title"')[0]
    assert "Bots no longer competing leave the ranking (here 1 retired by its owner)" in board
    api = client.get("/api/games/rps-poker/leaderboard/").json()
    assert [r["bot"]["name"] for r in api["results"]] == ["strong"]
    assert api["results"][0]["rank"] == 1
    page = client.get(f"/bots/{gone.bot_id}/").content.decode()
    assert "out of the ranking" in page
    assert client.get(f"/api/bots/{gone.bot_id}/").json()["leaderboard"]["rank"] is None
    # making it active again brings it back
    uploads.reactivate(gone)
    assert LeaderboardRow.objects.get(bot_id=gone.bot_id).rank in (1, 2)


def test_a_format_ranked_by_rating_has_no_interval():
    assert get_game("rps-poker").tournament().ranked_by_rating
    assert get_game("rps-poker").tournament().interval({"score": 3}) is None
    assert not get_game("uth").tournament().ranked_by_rating
