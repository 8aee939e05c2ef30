"""The rules of a round and of a session, on dealt cards chosen for each case."""

from __future__ import annotations

import random

import pytest

from games.engine.agents import ScriptedAgent
from games.engine.game import Fault, GameState, IllegalAction
from games.engine.runner import MatchRunner
from games.uth.history import FixedDeals
from games.uth.rules import UthState


def deal(player: str, dealer: str, board: str) -> list[str]:
    return player.split() + dealer.split() + board.split()


def table(*deals: list[str], **config) -> UthState:
    config = {"max_rounds": len(deals)} | config
    state = UthState(config=UthState.default_config() | config, num_seats=1)
    state.start(FixedDeals(deals))
    return state


def play(state: UthState, *answers: str) -> dict:
    for answer in answers:
        state.apply(0, answer)
    return state.rounds[-1]


def test_it_posts_ante_and_blind_and_shows_the_board_phase_by_phase():
    state = table(deal("Ah Kd", "2c 3d", "4h 8s 9c Js Qd"))
    obs = state.observation()
    assert obs["phase"] == "pre_flop" and obs["hole"] == ["Ah", "Kd"] and obs["board"] == []
    assert obs["chips"] == 950 and obs["round"] == 1 and obs["legal"] == ["[4x]", "[check]"]
    state.apply(0, "[check]")
    assert state.observation()["board"] == ["4h", "8s", "9c"]
    assert state.observation()["legal"] == ["[2x]", "[check]"]
    state.apply(0, "[check]")
    assert state.observation()["board"] == ["4h", "8s", "9c", "Js", "Qd"]
    assert state.observation()["legal"] == ["[1x]", "[fold]"]
    assert "2c" not in str(state.prompt(0).data)  # the dealer's cards stay hidden


def test_it_asks_only_for_skip_once_a_play_bet_is_in():
    state = table(deal("Ah Kd", "2c 3d", "4h 8s 9c Js Qd"))
    state.apply(0, "[4x]")
    assert state.legal() == ["skip"] and state.observation()["chips"] == 850
    with pytest.raises(IllegalAction, match=r"legal actions: \[skip\]"):
        state.verify(0, "[check]")
    state.apply(0, "[s]")
    assert state.legal() == ["skip"]
    state = table(deal("Ah Kd", "2c 3d", "4h 8s 9c Js Qd"))
    state.apply(0, "[check]")
    state.apply(0, "[2x]")
    assert state.legal() == ["skip"] and state.observation()["chips"] == 900


def test_it_pays_ante_and_play_when_the_qualifying_dealer_loses():
    r = play(table(deal("Ah Ad", "Kc Kd", "2c 7d 9h Js 3s")), "[4x]", "[skip]", "[skip]")
    assert r["dealer_qualifies"] and r["winner"] == "player"
    assert r["results"] == {"ante": 25, "blind": 0, "play": 100} and r["net"] == 125
    assert r["chips"] == 1125


def test_it_pushes_the_ante_when_the_dealer_does_not_qualify():
    r = play(table(deal("Ah Kd", "2c 3d", "4h 8s 9c Js Qd")), "[4x]", "[s]", "[s]")
    assert not r["dealer_qualifies"]
    assert r["results"] == {"ante": 0, "blind": 0, "play": 100} and r["net"] == 100


def test_it_takes_blind_and_play_from_a_loser_even_when_the_dealer_does_not_qualify():
    r = play(table(deal("7c 2d", "Ac 3h", "4s 9d Jh Qc 5c")), "[c]", "[c]", "[1x]")
    assert r["winner"] == "dealer" and not r["dealer_qualifies"]
    assert r["results"] == {"ante": 0, "blind": -25, "play": -25} and r["net"] == -50


@pytest.mark.parametrize(
    ("variant", "blind", "net"), [("default", 75, 125), ("standard", 37.5, 87.5)]
)
def test_it_pays_a_winning_flush_by_the_variants_pay_table(variant, blind, net):
    state = table(deal("Ah 9h", "Qc Qd", "2h 5h Kh 7c 8d"), variant=variant)
    r = play(state, "[check]", "[check]", "[1x]")
    assert r["player_hand"] == "flush"
    assert r["results"] == {"ante": 25, "blind": blind, "play": 25} and r["net"] == net
    assert state.observation()["blind_pay"]["flush"] == {"default": 3, "standard": 1.5}[variant]


def test_it_pays_a_royal_flush_500_to_1_on_the_blind():
    r = play(table(deal("Ah Kh", "2c 7d", "Qh Jh Th 9s 3c")), "[4x]", "[s]", "[s]")
    assert r["player_hand"] == "royal_flush" and r["results"]["blind"] == 12_500


def test_it_pushes_everything_on_a_tie():
    r = play(table(deal("2c 3d", "4c 5d", "As Ks Qs Js Ts")), "[4x]", "[s]", "[s]")
    assert r["winner"] == "tie" and r["net"] == 0 and r["chips"] == 1000


def test_it_loses_ante_and_blind_on_a_fold():
    r = play(table(deal("7c 2d", "Ac 3h", "4s 9d Jh Qc 5c")), "[check]", "[check]", "[fold]")
    assert r["folded"] and r["net"] == -50 and r["results"]["play"] == 0


def test_it_lets_chips_dip_below_zero_within_a_round_and_ends_the_session_at_zero():
    state = table(
        deal("7c 2d", "Ac Ad", "4s 9d Jh Qc 5c"), deal("Ah Kd", "2c 3d", "4h 8s 9c Js Qd"), chips=60
    )
    state.apply(0, "[4x]")
    assert state.observation()["chips"] == -90  # as the reference: no check on the play bet
    play(state, "[s]", "[s]")
    assert state.is_over() and state.outcome == "lost" and state.result()["chips"] == -90
    assert not state.result()["survived"]


def test_it_wins_a_session_that_completes_its_rounds_with_chips():
    state = table(
        deal("Ah Ad", "Kc Kd", "2c 7d 9h Js 3s"),
        deal("Ah Kd", "2c 3d", "4h 8s 9c Js Qd"),
        max_rounds=2,
    )
    play(state, "[4x]", "[s]", "[s]")
    assert not state.is_over() and state.round_no == 2
    play(state, "[c]", "[c]", "[f]")
    result = state.result()
    assert state.is_over() and result["survived"] and result["outcome"] == "won"
    assert result["nets"] == [125, -50] and result["scores"] == [75]


def test_it_allows_one_refusal_until_two_actions_are_accepted_in_a_row():
    state = table(*[deal("Ah Kd", "2c 3d", "4h 8s 9c Js Qd")] * 3)
    assert state.reject(0, "[raise]", "no") is None
    assert state.observation()["error"] == "no"
    state.apply(0, "[check]")
    assert state.observation()["error"] is None
    assert state.reject(0, "[raise]", "no") is not None  # only one accepted action since
    state = table(*[deal("Ah Kd", "2c 3d", "4h 8s 9c Js Qd")] * 3)
    assert state.reject(0, "[raise]", "no") is None
    state.apply(0, "[check]")
    state.apply(0, "[check]")
    assert state.reject(0, "[raise]", "no") is None


def test_a_refused_answer_is_kept_in_the_record_cut_to_a_few_hundred_characters():
    """A bot answering 60 KB every third call put each whole into the record."""
    state = table(*[deal("Ah Kd", "2c 3d", "4h 8s 9c Js Qd")] * 3)
    assert state.reject(0, "[" + "Q" * 60_000 + "]", "not an action") is None
    kept = state.log[-1]["action"]
    assert len(kept) == 200 and kept.startswith("[QQQ") and kept.endswith("...")
    state.apply(0, "[check]")
    state.apply(0, "[check]")
    assert state.reject(0, ["[raise]"] * 2, "not text") is None
    assert state.log[-1]["action"] == ["[raise]", "[raise]"]  # (short: kept as it came)


def test_it_ends_a_faulting_session_with_the_chips_it_has():
    runner = MatchRunner(clock=lambda: 0.0)
    agent = ScriptedAgent(["[4x]", "[raise]", "[nonsense]"])
    outcome = runner.run(UthState.new(3), [agent], seed=3)
    result = outcome.result
    assert result["outcome"] == "fault" and result["chips"] == 850 and not result["survived"]
    assert outcome.faults[0].kind == "invalid"
    assert [e["type"] for e in outcome.record["events"]].count("rejected") == 1


def faulted(state: UthState) -> UthState:
    state.forfeit({0: Fault("exception", "act raised")})
    return state


def test_a_fault_loses_the_round_in_play_with_all_its_bets_and_counts_it():
    # round 1 won, then a 4x bet and a fault on the flop of round 2: the round counts, lost
    # with its ante, blind and play bet, and the nets add up to the session's net chips
    state = table(deal("Ah Ad", "Kc Kd", "2c 7d 9h Js 3s"), deal("7c 2d", "Ac Ad", "Ah 9d Jh"
                  " Qc 5c"), max_rounds=3)  # fmt: skip
    play(state, "[4x]", "[s]", "[s]")
    state.apply(0, "[4x]")
    result = faulted(state).result()
    assert result["nets"] == [125, -150] and result["scores"] == [-25]
    assert result["rounds_played"] == 2 and result["outcome"] == "fault"
    # a session forfeited at its start (a bot that never starts, or is out of worker time)
    # has its first round dealt, ante and blind taken: it counts as that round lost
    result = faulted(UthState.new(11)).result()
    assert result["nets"] == [-50] == result["scores"] and result["rounds_played"] == 1


def test_nets_add_up_to_the_net_chips_whenever_a_fault_comes():
    rng = random.Random(3)
    for seed in range(40):
        state = UthState.new(seed, config={"max_rounds": 6})
        for _ in range(rng.randrange(18)):
            if state.is_over():
                break
            state.apply(0, f"[{rng.choice(state.legal())}]")
        result = faulted(state).result()
        assert sum(result["nets"]) == result["scores"][0]
        assert result["rounds_played"] == len(result["nets"])


def test_a_bot_that_faults_on_a_bad_round_ranks_no_better_than_one_that_plays_it_out():
    from games.engine.runner import MatchOutcome
    from games.engine.tournament import Standing
    from games.uth.tournament import Duplicate

    def mean(fault_in: int | None) -> float:
        # seed 7: round 3 loses the 4x bet at the showdown (3s 9d against Kc 3h)
        state = UthState.new(7, config={"max_rounds": 5})
        for number in range(1, 6):
            state.apply(0, "[4x]")
            if number == fault_in:
                faulted(state)
                break
            play(state, "[s]", "[s]")
        fmt, standing = Duplicate(), Standing(name="bot", source="")
        fmt.tally_scores([standing], MatchOutcome(record={"result": state.result()}, state=state))
        return fmt.bot_json(standing)["mean_net_per_round"]

    played = mean(None)
    assert played == 45  # nets 125, 125, -150, 125, 0
    for number in range(1, 6):
        assert mean(number) <= played
    assert mean(3) == round(100 / 3, 4)  # it used to be 125: the round left out


def test_it_replays_a_session_from_its_log_alone():
    runner = MatchRunner(clock=lambda: 0.0)
    answers = ["[check]", "oops", "[2x]", "[s]"] + ["[4x]", "[s]", "[s]"] * 3
    outcome = runner.run(
        UthState.new(9, config={"max_rounds": 4}), [ScriptedAgent(answers)], seed=9
    )
    again = UthState.replay(outcome.record["events"], 1, outcome.record["config"])
    assert again.result() == outcome.result and again.rounds == outcome.state.rounds
    assert isinstance(again, GameState)


def test_it_deals_nine_distinct_cards_and_the_same_deals_from_the_same_seed():
    a, b = UthState.new(5), UthState.new(5)
    cards = a.player + a.dealer + a.board
    assert len(set(cards)) == 9 and cards == b.player + b.dealer + b.board
    assert cards != (lambda s: s.player + s.dealer + s.board)(UthState.new(6))


def test_it_refuses_bad_settings():
    with pytest.raises(ValueError, match="variant"):
        UthState.new(1, config={"variant": "vegas"})
    with pytest.raises(ValueError, match="max_rounds"):
        UthState.new(1, config={"max_rounds": 0})
    with pytest.raises(ValueError, match="seats"):
        UthState.new(1, num_seats=2)


def test_it_keeps_the_books_and_deals_the_same_cards_whatever_is_played():
    sessions = []
    for policy_seed in (1, 2):
        rng = random.Random(policy_seed)
        state = UthState.new(77, config={"max_rounds": 200, "chips": 100_000})
        while not state.is_over():
            state.apply(0, f"[{rng.choice(state.legal())}]")
        sessions.append(state)
        chips = 100_000
        for r in state.rounds:
            assert r["net"] == sum(r["results"].values())
            assert r["chips"] == chips + r["net"]
            chips = r["chips"]
            assert -(r["bets"]["ante"] * 2 + r["bets"]["play"]) <= r["net"]
            assert len(set(r["player"] + r["dealer"] + r["board"])) == 9
    a, b = ([(r["player"], r["dealer"], r["board"]) for r in s.rounds] for s in sessions)
    assert a == b
    assert [r["actions"] for r in sessions[0].rounds] != [r["actions"] for r in sessions[1].rounds]
