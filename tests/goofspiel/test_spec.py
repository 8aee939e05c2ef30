"""Goofspiel's ``spec()``, the one thing the game registry will need: it names the engine,
the contract, the built-ins, the tournament format and the table rules, and matches played
through it (as the arena and the worker play them) add up in the tournament format."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from bots.running.playing import Entry, play
from games.engine.tournament import Standing
from games.goofspiel.rules import GoofspielState
from games.goofspiel.spec import spec
from games.goofspiel.table import GoofspielTable
from games.goofspiel.tournament import DealsRoundRobin
from games.registry import GameSpec, get_game


def test_spec_describes_the_game_for_the_registry():
    game = spec()
    assert isinstance(game, GameSpec)
    assert (game.slug, game.title) == ("goofspiel", "Goofspiel")
    assert game.state_class is GoofspielState and game.state_class.game == "goofspiel"
    assert game.methods == ("act",)
    assert game.builtin_names == ["random", "matching"]
    assert game.builtin_path("random") == Path(__file__).parents[2] / "games/bots/uniform.py"
    for name in game.builtin_names:
        assert hasattr(game.builtin_class(name), "act") and game.builtin_class(name).quick
    assert isinstance(game.tournament(), DealsRoundRobin)
    # its live table is drawn from table frames (test_table.py, tests/browser)
    assert game.table is GoofspielTable and GoofspielTable().default_action_text
    assert game.replay is not None and game.starters["python"].exists()
    assert get_game("goofspiel") == game
    assert (game.time_control.move, game.time_control.bank) == (1.0, 10.0)
    assert not game.plays_alone


def test_a_round_robin_played_through_the_spec_ranks_matching_above_random():
    game = spec()
    fmt = game.tournament()
    names = ["random", "matching"]
    standings = [Standing(name=n, source=f"builtin:{n}") for n in names]
    tables = list(fmt.schedule(len(names), rounds=6, seed=11))
    assert len(tables) == fmt.count(len(names), 6) == 6
    assert {t.seats for t in tables} == {(0, 1), (1, 0)}
    for table in tables:
        entries = [Entry(names[i], builtin=names[i]) for i in table.seats]
        played = play(game, entries, seed=table.seed)
        result = played.outcome.result
        assert result["deals"] == 3 and not result["faults"]  # the default match: 3 deals
        assert played.outcome.record["game"] == "goofspiel"
        assert [s.score for s in played.seats] == result["scores"]
        fmt.tally([standings[i] for i in table.seats], played.outcome)
    bots = fmt.rank([fmt.bot_json(s) for s in standings])
    assert [b["name"] for b in bots] == ["matching", "random"]
    best, worst = bots
    assert best["deals"] == worst["deals"] == 18 and best["matches"] == 6
    assert best["score"] == -worst["score"] > 0.5
    assert best["deals_won"] + worst["deals_won"] <= 18
    assert best["deal_win_rate"] == pytest.approx(best["deals_won"] / 18, abs=1e-6)
    low, high = best["deal_win_rate_ci95"]
    assert low <= best["deal_win_rate"] <= high
    low, high = best["score_per_deal_ci95"]
    assert low <= best["score"] <= high
    assert best["point_diff_per_deal"] == -worst["point_diff_per_deal"] > 0
    # the results per opponent are the arena's, not in a leaderboard row's numbers
    assert "head_to_head" not in best
    matching = next(s for s in standings if s.name == "matching")
    assert fmt.head_to_head_json(matching)["random"]["score"] == round(best["score"] * 18)
    headers = [column.title for column in fmt.columns()]
    assert headers[:3] == ["score/deal (95% CI)", "deals won (95% CI)", "points +/- per deal"]
    # deals a fault left unplayed count, and the column says so: not "deals" played
    assert headers[3] == "deals decided"
    assert "those left unplayed, which the rules count as won by" in fmt.statistics().note
    for show in (column.show for column in fmt.columns()):
        assert show(best) and show(worst)


def test_the_format_gives_no_interval_from_a_single_match_and_counts_forfeited_deals():
    fmt = DealsRoundRobin()
    standing = Standing(name="x", source="builtin:x")
    standing.matches = 1
    standing.extra = {"returns": 2, "deals": 5, "deals_won": 3, "point_diff": 40,
                      "sum": 0.4, "sum_sq": 0.16}  # fmt: skip
    entry = fmt.bot_json(standing)
    assert entry["score"] == 0.4 and entry["score_per_deal_ci95"] is None
    assert entry["deal_win_rate"] == 0.6 and entry["point_diff_per_deal"] == 8.0
    assert fmt.columns()[0].show(entry) == "+0.400 (too few matches)"


@pytest.mark.parametrize(("returns_type", "most"), [("win_loss", 1), ("point_difference", 7.5)])
def test_the_score_interval_stays_within_what_a_deal_can_pay(returns_type, most):
    # three matches won on every deal, one on one deal in three: mean +- 1.96 SE would
    # reach past the most a deal pays (1 deal won, or half of 1 + 2 + ... + 5 points)
    fmt = DealsRoundRobin()
    winner, loser = Standing(name="w", source=""), Standing(name="l", source="")
    for share in (1, 1, 1, 1 / 3):
        mine = 3 * share * most
        result = {
            "scores": [mine, -mine], "deals": 3, "forfeited_deals": 0, "points": [15, 0],
            "deals_won": [3, 0], "num_cards": 5, "returns_type": returns_type,
        }  # fmt: skip
        fmt.tally_scores([winner, loser], SimpleNamespace(result=result))
        winner.matches += 1
        loser.matches += 1
    best, worst = fmt.bot_json(winner), fmt.bot_json(loser)
    assert best["score"] == pytest.approx(most * 5 / 6)
    assert best["score_per_deal_ci95"][1] == most and best["score_per_deal_ci95"][0] < most
    assert worst["score_per_deal_ci95"][0] == -most
    # a bound shown clamped reads as the mean's, in the leaderboard's column
    assert fmt.columns()[0].show(best).endswith(f"to +{most:.3f})")


def test_matches_that_all_scored_the_same_give_an_interval_of_some_width():
    # three matches won on every deal: "+1.000 (+1.000 to +1.000)" claimed certainty; the
    # interval is now as wide as three wins out of three, within what a deal pays
    fmt = DealsRoundRobin()
    winner, loser = Standing(name="w", source=""), Standing(name="l", source="")
    for _ in range(3):
        result = {
            "scores": [3, -3], "deals": 3, "forfeited_deals": 0, "points": [15, 0],
            "deals_won": [3, 0], "num_cards": 5, "returns_type": "win_loss",
        }  # fmt: skip
        fmt.tally_scores([winner, loser], SimpleNamespace(result=result))
        winner.matches += 1
        loser.matches += 1
    best, worst = fmt.bot_json(winner), fmt.bot_json(loser)
    assert best["score_per_deal_ci95"] == [pytest.approx(-0.123, abs=1e-3), 1.0]
    assert worst["score_per_deal_ci95"] == [-1.0, pytest.approx(0.123, abs=1e-3)]
    assert fmt.columns()[0].show(best) == "+1.000 (-0.123 to +1.000)"
    assert fmt.columns()[0].show(worst) == "-1.000 (-1.000 to +0.123)"


def test_a_match_with_another_config_is_played_through_the_spec():
    game = spec()
    config = {"num_cards": 5, "deals": 4, "returns_type": "point_difference"}
    entries = [Entry("m", builtin="matching"), Entry("r", builtin="random")]
    played = play(game, entries, seed=3, config=config)
    result = played.outcome.result
    assert result["deals"] == 4 and result["num_cards"] == 5
    assert result["scores"][0] == (result["points"][0] - result["points"][1]) / 2
    record = played.outcome.record
    assert record["config"] == config
    replayed = GoofspielState.replay(record["events"], 2, record["config"])
    assert replayed.result() == result


def test_its_replay_shows_every_turn_with_both_bids():
    from games import replays

    game = spec()
    entries = [Entry("m", builtin="matching"), Entry("r", builtin="random")]
    played = play(game, entries, seed=8, config={"num_cards": 5, "deals": 2})
    replay = replays.build(played.outcome.record, ["m", "r"])
    assert replay.supported, replay.error
    lines = [line for frame in replay.frames for line in frame["lines"]]
    bids = [line for line in lines if line.startswith("Prize ")]
    assert len(bids) == 2 * 5  # every turn of both deals, the automatic last ones included
    assert replay.frames[-1]["scores"] == played.outcome.result["scores"]
    assert any(line.startswith("Final score") for line in lines)
