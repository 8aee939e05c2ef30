"""``manage.py arena`` for the chip games (Kuhn poker, Leduc hold'em, Blackjack++): a round
robin of matches of many hands, ranked by chips (points) won per hand with an interval."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command

from games.chips.tournament import ChipsRoundRobin


def arena(game: str, tmp_path, *args: str) -> dict:
    out = io.StringIO()
    path = tmp_path / "results.json"
    call_command(
        "arena", "--game", game, "--no-progress", "--seed", "7", "--json", str(path), *args,
        stdout=out,
    )  # fmt: skip
    data = json.loads(path.read_text())
    data["table"] = out.getvalue()
    return data


@pytest.mark.parametrize(
    ("game", "bots", "hands", "label"),
    [
        ("kuhn", ["builtin:random", "builtin:simple", "builtin:cfr"], 100, "chips/hand"),
        ("leduc", ["builtin:random", "builtin:simple", "builtin:cfr"], 100, "chips/hand"),
        ("blackjack-pp", ["builtin:random", "builtin:simple"], 50, "points/deal"),
    ],
)
def test_it_ranks_bots_by_chips_per_hand_with_an_interval(tmp_path, game, bots, hands, label):
    data = arena(game, tmp_path, *bots, "--rounds", "4")
    pairs = len(bots) * (len(bots) - 1) // 2
    assert data["matches"] == 4 * pairs
    assert f"{label} (95% CI)" in data["table"]
    ranked = data["bots"]
    assert ranked == sorted(ranked, key=lambda b: -b["score"])
    assert sum(b["chips"] for b in ranked) == pytest.approx(0)  # zero-sum
    for bot in ranked:
        assert bot["hands"] == 4 * (len(bots) - 1) * hands
        low, high = bot["chips_per_hand_ci95"]
        assert low <= bot["chips_per_hand"] <= high
        assert bot["faults"] == 0
    assert ranked[-1]["name"] == "random"


def test_it_gives_no_interval_from_a_single_match():
    fmt = ChipsRoundRobin()
    assert [c.title for c in fmt.columns()][:3] == ["chips/hand (95% CI)", "chips", "hands"]
    from games.engine.tournament import Standing

    standing = Standing(name="x", source="builtin:x")
    standing.matches = 1
    standing.extra = {"chips": 5.0, "hands": 100, "sum": 0.05, "sum_sq": 0.0025}
    entry = fmt.bot_json(standing)
    assert entry["chips_per_hand"] == 0.05 and entry["chips_per_hand_ci95"] is None
    assert fmt.columns()[0].show(entry) == "+0.050 (too few matches)"


def test_matches_that_all_scored_the_same_have_no_interval_yet():
    # a bot that folds every hand loses its ante every hand: no spread to measure, and a
    # hand's chips have no range given here to bound it by; "-1.000 (-1.000 to -1.000)"
    # claimed certainty
    fmt = ChipsRoundRobin()
    from games.engine.tournament import Standing

    standing = Standing(name="folder", source="builtin:x")
    standing.matches = 4
    standing.extra = {"chips": -400.0, "hands": 400, "sum": -4.0, "sum_sq": 4.0}
    entry = fmt.bot_json(standing)
    assert entry["chips_per_hand"] == -1.0 and entry["chips_per_hand_ci95"] is None
    assert fmt.columns()[0].show(entry) == "-1.000 (too few matches)"
