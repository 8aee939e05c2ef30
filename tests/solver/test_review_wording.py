"""The review's words (docs/replays.md, "The solver's review"): an action the solved strategy
still plays but values well below the best is called what it is; Leduc's actions are named
as its table names them; Blackjack++'s values are points over the opponent; a tie of best
actions names them all; a move the table played for a seat says so."""

from __future__ import annotations

import re

import pytest

from games.blackjack_pp.solving import solver_game
from games.solver import Solver, build
from games.solver.review import InfosetValues, Move, Row, action_values, review, sentence


@pytest.fixture(scope="module")
def blackjack_200():
    """Blackjack++ up cards 8, T, 5 with one hit, solved as its review solves it (200
    CFR+ iterations): standing on 15 after the opponent hit and drew a 9 is left at 1%."""
    tree = build(solver_game(up="8,T,5", max_hits=1))
    solver = Solver(tree, "cfr+")
    solver.train(200, record=False)
    return action_values(tree, solver.average_strategy())


def test_an_action_the_solve_still_plays_but_values_well_below_the_best_is_no_part_of_its_mix(
    blackjack_200,
):
    from games.blackjack_pp.review import review_words

    options = (("up", "8,T,5"), ("max_hits", 1))
    infoset = blackjack_200.at("15:0h9")
    assert not infoset.unsettled and 0.01 <= infoset.strategy["s"] < 0.02
    move = Move(0, 1, "15:0h9", "s", options=options)
    (row,) = review([move], {options: blackjack_200}, 1).rows
    assert row.lost == pytest.approx(0.0195, abs=1e-4)
    assert row.verdict == "mistake" and not row.in_mix
    said = sentence(row, review_words(move))
    # it read "the solved strategy stands 1% of the time here: a mistake that costs ..."
    assert not re.search(r"stands 1% of the time here:", said), said
    assert said == (
        "You stood with 15 (a 5 down and a ten up; the opponent shows an 8, the dealer a 5), "
        "after the opponent hit and drew a 9; the solved strategy still stands 1% of the time "
        "here, a leftover of its training that it values below hitting: a mistake that costs "
        "0.0195 points over the opponent on average against hitting."
    )


def test_leducs_review_names_a_raise_and_a_re_raise_as_the_table_does():
    from games.leduc.review import review_words, seen_words
    from games.leduc.table import leduc_said

    assert review_words(Move(0, 0, "K", "r")).verbs["r"].past == "raised"
    assert review_words(Move(0, 1, "Qr", "r")).verbs["r"].past == "re-raised"
    assert seen_words("cr", None) == "in the first round, after you checked and the opponent raised"
    assert seen_words("rr", "") == (
        "in the second round, first to act (in the first round you raised and the opponent "
        "re-raised)"
    )
    # the table's log of the same betting: "ann raises 2", "bob re-raises by 2"
    assert [w.split()[1] for w in leduc_said("rr", ["ann", "bob"])[0]] == ["raises", "re-raises"]


def test_a_tie_of_best_actions_names_them_all():
    """Leduc hand 3: raising lost 1.5910 "against folding", though calling is worth exactly
    as much as folding and played more."""
    from games.leduc.review import review_words

    infoset = InfosetValues(
        key="Qr", player=1, actions=("f", "c", "r"),
        strategy={"f": 0.44, "c": 0.56, "r": 0.0},
        values={"f": -3.0, "c": -3.0, "r": -4.591}, value=-3.0, reach=0.3, by_chance=False,
        chance_reach=0.3,
    )  # fmt: skip
    move = Move(0, 1, "Qr", "r")
    said = sentence(Row(move, infoset), review_words(move))
    assert said.endswith(
        "the solved strategy calls 56% of the time and folds 44% here, never re-raises: a "
        "mistake that costs 1.5910 chips on average against calling or folding."
    ), said


def test_blackjacks_values_are_points_over_the_opponent():
    from games.blackjack_pp.review import review_words

    words = review_words(Move(0, 0, "07:", "s", options=(("up", "6,6,2"), ("max_hits", 1))))
    assert words.unit == "points over the opponent"


def kuhn_record(history: str, played_for: list[list[int]]) -> dict:
    events = [{"type": "action", "seat": i % 2} for i in range(len(history))]
    hand = {"cards": ["J", "K"], "history": history, "first": 0}
    return {"result": {"hand_log": [hand]}, "events": events, "played_for": played_for}


def test_a_move_the_table_played_for_a_seat_is_said_to_be_the_tables():
    """Match 156, hand 1: the table checked for a person whose time ran out; the rows said
    "after you checked and the opponent bet", and the move's own row showed only "first to
    act" beside "Time ran out: ...", not what was played."""
    from games.kuhn.review import review_moves, review_words

    moves = review_moves(kuhn_record("pbp", [[0, 0]]))
    assert [(m.played_for, m.defaulted) for m in moves] == [
        (True, ()),
        (False, (0,)),
        (False, (0,)),
    ]
    assert moves[0].situation == "The table checked for you, first to act"
    assert moves[1].situation == "You bet, after the table checked for the opponent"
    assert moves[2].situation == "You folded, after the table checked for you and the opponent bet"
    (row,) = [r for r in review(moves, {}, 0).rows if not r.move.played_for]
    assert review_words(row.move).seen == "after the table checked for you and the opponent bet"
    from games.solver.review import said_of

    assert said_of(moves[2].situation, "ann") == (
        "ann folded, after the table checked for ann and the opponent bet"
    )
    # a hand with no such move reads as before
    plain = review_moves(kuhn_record("pbp", []))
    assert plain[2].situation == "You folded, after you checked and the opponent bet"


def test_third_person_words_of_a_move_played_for_the_seat():
    from games.kuhn.review import review_moves, review_words

    moves = review_moves(kuhn_record("pbb", [[0, 0]]))
    infoset = InfosetValues(
        key="Jpb", player=0, actions=("p", "b"), strategy={"p": 1.0, "b": 0.0},
        values={"p": -1.0, "b": -2.0}, value=-1.0, reach=0.3, by_chance=False, chance_reach=0.3,
    )  # fmt: skip
    said = sentence(Row(moves[2], infoset), review_words(moves[2]), "ann")
    assert said.startswith(
        "ann called with the jack, after the table checked for them and the opponent bet;"
    ), said
