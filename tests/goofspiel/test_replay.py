"""Goofspiel's replay: a deal's end is a step of its own, drawn as the deal ended, and the
next deal starts at a step of its own, in its own chapter."""

from __future__ import annotations

import json
import time

from bots.running.playing import Entry, play
from games import replays
from games.engine.agents import AgentFault, ScriptedAgent
from games.engine.runner import MatchRunner
from games.registry import get_game


def _replay(config: dict) -> tuple[dict, list[dict]]:
    entries = [Entry("ann", builtin="matching"), Entry("bob", builtin="random")]
    played = play(get_game("goofspiel"), entries, seed=8, config=config)
    record = json.loads(json.dumps(played.outcome.record))
    replay = replays.build(record, ["ann", "bob"])
    assert replay.supported, replay.error
    return played.outcome.result, replay.frames


def _hands(frame: dict) -> list[list[str]]:
    return [seat["zones"][0]["cards"] for seat in frame["seats"]]


def _prize(frame: dict) -> list[str]:
    (prize,) = [z["cards"] for z in frame["shared"] if z["label"] == "Prize"]
    return prize


def test_a_deals_end_is_drawn_and_the_next_deal_starts_a_step_later():
    result, frames = _replay({"num_cards": 13, "deals": 3})
    log = result["deal_log"]
    for number in (1, 2):  # the ends of deals 1 and 2, each followed by a deal
        (end,) = [
            f for f in frames if any(line.startswith(f"Deal {number} ends") for line in f["lines"])
        ]
        done = log[number - 1]
        # the deal's last bids (the 12th, and the 13th that plays itself), and its end
        assert end["label"] == f"Deal {number}, turns 12 and 13"
        assert end["chapter"] == f"Deal {number}"
        assert [line.split(":")[0] for line in end["lines"][:2]] == [
            f"Prize {done['turns'][11][0]}",
            f"Prize {done['turns'][12][0]}",
        ]
        assert not any(line.startswith(f"Deal {number + 1}") for line in end["lines"])
        # the table as the deal ended: hands empty, its prize points, no prize face up
        assert _hands(end) == [[], []] and _prize(end) == []
        points = done["points"]
        assert [s["notes"] for s in end["seats"]] == [
            [f"{points[0]} prize points this deal"],
            [f"{points[1]} prize points this deal"],
        ]
        start = frames[end["step"] + 1]
        assert start["chapter"] == f"Deal {number + 1}"
        assert start["label"] == f"Deal {number + 1}, first prize" and start["decision"] == ""
        first = log[number]["turns"][0][0]
        assert start["lines"] == [
            f"Deal {number + 1}: the prizes are shuffled; the first is {first}"
        ]
        assert _hands(start) == [[str(c) for c in range(1, 14)]] * 2 and _prize(start) == [
            str(first)
        ]
        assert [s["notes"] for s in start["seats"]] == [["0 prize points this deal"]] * 2
        # its chapter ("Jump to") starts there, before its first bid
        chapter = next(c for c in replays.chapters(frames) if c["label"] == f"Deal {number + 1}")
        assert chapter["step"] == start["step"]
        assert frames[start["step"] + 1]["label"] == f"Deal {number + 1}, turn 1"


def test_the_last_deal_ends_the_match_in_one_step():
    result, frames = _replay({"num_cards": 4, "deals": 2})
    last = frames[-1]
    assert last["label"] == "Deal 2, turns 3 and 4" and last["chapter"] == "Deal 2"
    assert _hands(last) == [[], []]
    assert last["lines"][-2].startswith("Deal 2 ends") and last["lines"][-1].startswith("Final")
    # every step of the replay: the deal, 3 steps a deal, one deal's first prize
    assert len(frames) == 1 + 3 + 1 + 3
    assert last["scores"] == result["scores"]


def test_one_prize_point_is_one_point():
    notes = [
        note
        for seed in range(4)
        for frame in replays.build(
            play(
                get_game("goofspiel"),
                [Entry("ann", builtin="matching"), Entry("bob", builtin="random")],
                seed=seed,
                config={"num_cards": 3, "deals": 2},
            ).outcome.record
        ).frames
        for seat in frame["seats"]
        for note in seat["notes"]
    ]
    assert "1 prize point this deal" in notes
    assert not [note for note in notes if note.startswith("1 prize points")]


def test_a_deals_score_is_said_in_plain_words():
    # "returns +1 and -1", and "1 returns" on a badge, were the engine's word
    assert get_game("goofspiel").score_label == "deal score"
    result, frames = _replay({"num_cards": 4, "deals": 2})
    lines = [line for frame in frames for line in frame["lines"]]
    ends = [line for line in lines if " ends " in line]
    assert len(ends) == 2 and not [line for line in lines if "returns" in line]
    for number, done in enumerate(result["deal_log"]):
        a, b = done["returns"]
        said = f"deal score {a:+g} and {b:+g}" if a or b else "a draw, neither gains"
        said = said.replace("-", "\u2212")  # (the pages' minus sign)
        assert ends[number].endswith(f"in prize points: {said}")


def test_a_fault_ends_its_deal_in_its_own_step():
    import time

    from games.engine.agents import ScriptedAgent
    from games.engine.runner import MatchRunner

    game = get_game("goofspiel")
    agents = [ScriptedAgent([1, 2, 3]), ScriptedAgent([1, 2, 3, 4, 5])]  # ann runs out in deal 2
    config = {"num_cards": 4, "deals": 2, "returns_type": "win_loss"}
    outcome = MatchRunner(time.monotonic, game.time_control).run(
        game.state_class.new(4, config=config), agents, seed=6
    )
    frames = replays.build(json.loads(json.dumps(outcome.record)), ["ann", "bob"]).frames
    out = frames[-1]
    assert out["label"] == "A fault ends the match" and out["chapter"] == "Deal 2"
    assert out["lines"][0].startswith("ann faults and plays no further: timeout")
    assert out["lines"][1:] == [
        "Deal 2 ends 0 to 10 in prize points: deal score \u22121 and +1",
        "Final score \u22121 to 1: bob wins the match (ann ran out of time: the prizes left in "
        "deal 2 went to bob)",
    ]
    assert frames[-2]["label"] == "Deal 2, first prize"


class Bidder(ScriptedAgent):
    """Bids the lowest card it holds above the lowest the other holds (or, with ``low``,
    its lowest) on every prize, and answers no more after ``bids`` of them (a timeout)."""

    def __init__(self, bids: int, low: bool = False) -> None:
        super().__init__([])
        self.left, self.low = bids, low

    def receive(self, timeout: float):
        assert self._last is not None
        if not self._last.expects_answer:
            return None
        if not self.left:
            raise AgentFault("timeout", "no answer within 1 s")
        self.left -= 1
        hand, theirs = self._last.data["hand"], self._last.data["opponent_hand"]
        above = [card for card in hand if card > min(theirs)]
        return min(hand) if self.low or not above else min(above)


def fault_that_still_wins() -> dict:
    """A Goofspiel match of 3 deals of 4 cards where seat 0 outbids seat 1 on every prize but
    the last of each deal (so it wins each deal it plays: 3 prizes of 4), and times out at
    its first bid of deal 3: deals 1 and 2 won, deal 3 lost by the fault, it wins the match
    1 to -1."""
    game = get_game("goofspiel")
    config = {"num_cards": 4, "deals": 3, "returns_type": "win_loss"}
    outcome = MatchRunner(time.monotonic, game.time_control).run(
        game.state_class.new(4, config=config), [Bidder(6), Bidder(99, low=True)], seed=6
    )
    return json.loads(json.dumps(outcome.record))


def test_a_bot_that_faults_keeps_the_deals_it_won_and_the_replay_says_so():
    """ "ann is out" read as if the fault had lost her the match; she won it, on the deals she
    had won before it: the final line says what the fault gave the other seat."""
    record = fault_that_still_wins()
    assert record["result"]["scores"] == [1, -1] and record["result"]["faults"]["0"]
    out = replays.build(record, ["ann", "bob"]).frames[-1]
    assert out["lines"][0].startswith("ann faults and plays no further: timeout: ")
    assert out["lines"][-1] == (
        "Final score 1 to \u22121: ann wins the match (it ran out of time: the prizes left in "
        "deal 3 went to bob)"
    )
