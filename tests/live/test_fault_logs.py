"""A live table's log says when a seat faulted and what the rest of the match gave each seat,
as the match's replay says it: a Goofspiel table whose bot crashed in its second deal said
"You win, 3 to -3" above a log that explained the first deal alone. The log names the
fault's kind; its reason (a bot's own words) is for the match's page."""

from __future__ import annotations

from typing import Any

import pytest

from bots.running.playing import Entry
from games.engine.agents import InProcessAgent
from games.engine.game import Fault
from games.live.host import Finish, SeatPlan, final_messages
from games.registry import get_game
from tests.live.test_host import Wire, builtin, host, join, run

MINUS = "\u2212"


class RaisesInDealTwo:
    """A Goofspiel bot that bids its lowest card, and raises once the second deal begins."""

    quick = True

    def act(self, obs: dict[str, Any]) -> int:
        if obs["deal"] == 2:
            raise RuntimeError("secret words of the bot's own")
        return obs["hand"][0]


def logged(messages: list[dict[str, Any]]) -> list[str]:
    """The lines a page showed, in order: each key's first text, as static/js/table.js adds
    the entries it has not shown yet."""
    seen: dict[str, str] = {}
    for message in messages:
        for entry in message["frame"]["log"]:
            seen.setdefault(entry["key"], entry["text"])
    return list(seen.values())


@pytest.mark.asyncio
async def test_a_goofspiel_table_logs_the_bots_fault_and_the_deals_it_gave_away():
    spec = get_game("goofspiel")
    raising = InProcessAgent(RaisesInDealTwo, spec.bot_call, "raises")
    seats = [
        builtin("goofspiel", "matching"),
        SeatPlan("mallory/raises", "bot", Entry(name="raises", agent=raising)),
    ]
    finished: list[Finish] = []

    async def store(finish: Finish) -> None:
        finished.append(finish)

    wire = Wire()
    config = {"num_cards": 5, "deals": 3, "returns_type": "win_loss"}
    table = host("goofspiel", seats, wire, config=config, on_finish=store)
    run(table)
    assert await join(table, 10)
    over = await wire.wait("public", "over")
    assert over["result"]["scores"] == [3, -3]  # deal 1, then deals 2 and 3 given away
    lines = logged(wire.to("public", "state"))
    deal_one = next(n for n, line in enumerate(lines) if line.startswith("Deal 1 ends"))
    # the first deal as it was played, then the fault before the end of the deal it cut short
    assert lines[deal_one:] == [
        f"Deal 1 ends 9 to 6 in prize points: deal score +1 and {MINUS}1.",
        "mallory/raises faults and plays no further: exception.",
        f"Deal 2 ends 15 to 0 in prize points: deal score +1 and {MINUS}1.",
        "The prizes left in deal 2 and the deal not played went to builtin:matching: deal "
        f"score +1 and {MINUS}1 for deal 3.",
    ]
    assert not any("secret" in line for line in lines)  # the bot's words: the match page's
    # the finished table's page shows the same log, played again from the stored record
    record = finished[0].played.outcome.record
    names = ["builtin:matching", "mallory/raises"]
    view, _ = final_messages(spec, record, None, names, {})
    assert [entry["text"] for entry in view["frame"]["log"]][-3:] == lines[-3:]


def forfeited(slug: str, config: dict[str, Any], moves: int, seat: int) -> Any:
    """A match of ``slug`` whose ``seat`` faulted (a crash) after ``moves`` moves, each the
    table's default."""
    spec = get_game(slug)
    rules = spec.table()
    state = spec.state_class.new(5, config=config)
    for _ in range(moves):
        acting = state.pending()[0]
        state.apply(acting, rules.default_action(state, acting))
    state.forfeit({seat: Fault("crash", "the bot was killed by SIGKILL during act")})
    return state


@pytest.mark.parametrize(
    ("slug", "config", "moves", "seat", "given"),
    [
        ("rps-poker", {}, 12, 1, "The 9 unplayed games went to ann: score 10-0."),
        (
            "goofspiel",
            {"num_cards": 5, "deals": 3, "returns_type": "point_difference"},
            2,
            1,
            "The prizes left in deal 1 and the 2 deals not played went to ann: deal score "
            f"+7.5 and {MINUS}7.5 for each of deals 2 and 3.",
        ),
        ("kuhn", {"hands": 10}, 3, 0, "The hand in play and the "),
        ("leduc", {"hands": 10}, 3, 1, "The hand in play and the "),
        ("blackjack-pp", {"hands": 10, "max_hits": 1}, 3, 0, "The deal in play and the "),
        ("uth", {"max_rounds": 10}, 5, 0, "The session ends: round 2 is cut short and its "
                                         f"bets are lost: {MINUS}50 chips (900 now)."),
    ],
)  # fmt: skip
def test_every_game_logs_who_faulted_and_what_the_rest_gave_each_seat(
    slug, config, moves, seat, given
):
    rules = get_game(slug).table()
    state = forfeited(slug, config, moves, seat)
    names = ["ann", "bob/killed"][: state.num_seats]
    for viewer in (None, 0):
        log = [entry["text"] for entry in rules.frame(state, viewer, names)["log"]]
        who = f"{names[seat]}{' (you)' if seat == viewer and slug != 'kuhn' else ''}"
        faulted = [line for line in log if "faults and plays no further" in line]
        assert faulted and faulted[0].endswith(" faults and plays no further: crash."), log
        assert faulted[0].startswith(who) or slug in ("kuhn", "leduc", "blackjack-pp")
        assert not any("SIGKILL" in line for line in log)
        end = log[-1].replace(" (you)", "")
        assert end.startswith(given), log
        if slug in ("kuhn", "leduc", "blackjack-pp"):
            # what the fault gave each seat, in the game's own unit
            points = "points" if slug == "blackjack-pp" else "chips"
            assert end.endswith(f" {points}.") and f"{names[seat]} {MINUS}" in end, end


def test_a_table_where_both_seats_fault_at_once_logs_both_and_gives_nothing():
    state = get_game("rps-poker").state_class.new(5, config={})
    state.forfeit({0: Fault("timeout", "late"), 1: Fault("crash", "gone")})
    log = [e["text"] for e in get_game("rps-poker").table().frame(state, None, ["a", "b"])["log"]]
    assert log == [
        "a faults and plays no further: timeout.",
        "b faults and plays no further: crash.",
    ]
