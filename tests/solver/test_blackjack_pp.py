"""Blackjack++ for the solver: the rules' arithmetic and sane solved strategies."""

from __future__ import annotations

import pytest

from games.blackjack_pp.dump import write_strategy_tree
from games.blackjack_pp.tree import (
    BlackjackPP,
    dealer_totals,
    expected_payoff,
    parse_up_cards,
    points,
    total,
)
from games.solver import Solver, build
from games.solver.cfr import expected_stats, infoset_reach
from games.solver.export import strategy_table


def test_hands_count_an_ace_as_eleven_only_when_it_fits():
    assert total((1, 6)) == 17
    assert total((1, 6, 9)) == 16
    assert total((1, 1, 9)) == 21
    assert total((10, 6, 9)) == 25


def test_places_earn_two_one_and_zero_points_and_ties_share_them():
    assert points((20, 19, 18)) == (2, 1, 0)
    assert points((20, 20, 18)) == (1.5, 1.5, 0)
    assert points((19, 19, 19)) == (1, 1, 1)
    # any standing hand beats any bust hand; bust hands still rank by total, as the spec says
    assert points((12, 22, 17)) == (1, 0, 2)
    assert points((22, 25, 17)) == (0, 1, 2)


@pytest.mark.parametrize("up", range(1, 11))
def test_the_dealers_final_total_is_a_distribution_over_17_and_up(up):
    dist = dict(dealer_totals(up))
    assert sum(dist.values()) == pytest.approx(1.0, abs=1e-12)
    assert min(dist) == 17
    assert max(dist) <= 26


def test_the_dealer_with_a_ten_up_makes_21_with_an_ace_down_at_least():
    assert dict(dealer_totals(10))[21] > 1 / 13


def test_payoffs_are_points_differences_against_the_dealers_distribution():
    # 21 against a bust hand: player 0 always outranks player 1, and the dealer never
    # beats 21, so player 0 gets 2 or 1.5 (tie at 21) and player 1 at most 1
    assert expected_payoff(21, 23, 10) > 1.0
    assert expected_payoff(20, 20, 6) == 0.0
    assert expected_payoff(17, 18, 6) < 0.0


@pytest.mark.parametrize(
    ("text", "cards"),
    [("6,6,2", (6, 6, 2)), ("A, K, 10", (1, 10, 10)), ("t,j,q", (10, 10, 10))],
)
def test_up_cards_are_read_by_value(text, cards):
    assert parse_up_cards(text) == cards


@pytest.mark.parametrize("text", ["6,6", "6,6,2,2", "6,0,2", "6,11,2", "6,Z,2"])
def test_bad_up_cards_are_refused(text):
    with pytest.raises(ValueError):
        parse_up_cards(text)


def test_max_hits_is_one_to_three():
    with pytest.raises(ValueError, match="1, 2 or 3"):
        BlackjackPP((6, 6, 2), 4)


def test_one_hit_each_gives_a_hundred_deals_of_eleven_by_eleven_endings():
    # both down cards are dealt by chance (10 x 10 values); each player then stands or hits
    # one of 10 values (11 ways), so 100 x 11 x 11 endings; the decision points are the
    # start, after each of player 0's 10 hits and after its stand
    tree = build(BlackjackPP((6, 6, 2), 1))
    histories = {key.split(":", 1)[1] for key in tree.infoset_keys}
    assert len(histories) == 1 + 10 + 1
    sizes = tree.sizes()
    assert sizes["terminals"] == 100 * 11 * 11
    assert sizes["infosets"] == 10 * (1 + 11)


@pytest.fixture(scope="module")
def solved():
    # player 0 shows a 2 (total 3-11 with any down card but a ten: no card can bust it),
    # player 1 shows a ten (21 with an ace down), the dealer a 6
    tree = build(BlackjackPP((2, 10, 6), 1))
    solver = Solver(tree, "cfr+")
    solver.train(400, record=False)
    return tree, solver


def test_it_solves_blackjack_pp_to_a_small_exploitability(solved):
    _, solver = solved
    assert solver.exploitability() < 1e-4


def test_it_never_hits_on_21_and_always_hits_when_no_card_can_bust(solved):
    tree, solver = solved
    game = BlackjackPP((2, 10, 6), 1)
    sigma = solver.average_strategy()
    table = strategy_table(tree, sigma)
    reach = dict(zip(tree.infoset_keys, infoset_reach(tree, sigma), strict=True))
    checked_21 = checked_low = 0
    for key, row in table.items():
        if reach[key] < 1e-6:
            continue  # never met: what it does there does not matter
        player, down = int(key[0]), key[1]
        card = {"A": 1, "T": 10}.get(down) or int(down)
        hand = (game.up[player], card)  # one hit at most: deciding means not hit yet
        if total(hand) == 21:
            assert row["h"] < 1e-3, key
            checked_21 += 1
        if 1 not in hand and sum(hand) <= 11:
            # no card can bust it, and every card raises its total
            assert row["h"] > 0.999, key
            checked_low += 1
    assert checked_21 >= 2  # player 1 with an ace down, at the start and after player 0 moved
    assert checked_low >= 8


def test_the_seats_expected_points_add_up_to_three_and_give_the_payoff(solved):
    tree, solver = solved
    sigma = solver.average_strategy()
    pts = expected_stats(tree, sigma)
    assert list(pts) == ["player 0 points", "player 1 points", "dealer points"]
    assert sum(pts.values()) == pytest.approx(3.0, abs=1e-9)
    diff = pts["player 0 points"] - pts["player 1 points"]
    assert diff == pytest.approx(solver.value(), abs=1e-12)


def test_a_history_folder_lists_both_players_when_a_bust_may_have_ended_a_turn(tmp_path):
    # after 0hT,1h5 player 0 acts unless its hit busted it (then player 1 acts again)
    game = BlackjackPP((6, 6, 2), 2)
    table = {
        "05:0hT,1h5": {"h": 0.0, "s": 1.0},
        "1A:0hT,1h5": {"h": 0.25, "s": 0.75},
        "07:": {"h": 1.0, "s": 0.0},
    }
    assert write_strategy_tree(tmp_path, game, table, "CFR+", 10) == 2
    text = (tmp_path / "0hT" / "1h5" / "strategy.txt").read_text()
    assert "history: player 0 hit and drew T; player 1 hit and drew 5" in text
    rows = [line.split() for line in text.splitlines()[3:]]
    assert rows == [
        ["0", "5", "21", "0.000000", "1.000000"],
        ["1", "A", "12", "0.250000", "0.750000"],
    ]
    root = (tmp_path / "strategy.txt").read_text().splitlines()
    assert root[3].split() == ["0", "7", "13", "1.000000", "0.000000"]
