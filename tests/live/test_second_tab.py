"""The same seat open in two tabs: a move of one, then the other's move of the same turn."""

from __future__ import annotations

import pytest

from games.live.host import SeatPlan
from tests.live.test_host import Wire, current_state, host, join, run


@pytest.mark.asyncio
async def test_a_second_tabs_move_of_a_turn_the_first_answered_is_refused_as_answered():
    # Kuhn poker, ann and bob: ann checks from one tab; her other tab, a moment behind, bets
    # for the same turn while the table waits for bob. It was told "it is not your turn",
    # which is not what happened.
    wire = Wire()
    table = host("kuhn", [SeatPlan("ann", "human"), SeatPlan("bob", "human")], wire)
    run(table)
    turn = await wire.wait("seat:0", "turn")
    check, bet = (a["value"] for a in current_state(wire, "seat:0")["actions"])
    table.submit(0, turn["turn"], check, reply_to="tab-1")
    await wire.wait("seat:1", "turn")  # bob's turn: ann's move is in
    table.submit(0, turn["turn"], bet, reply_to="tab-2")
    refused = await wire.wait("reply:tab-2", "error")
    assert refused["error"] == f"turn {turn['turn']} is already answered"
    assert wire.to("reply:tab-1", "error") == []
    table.close()
    assert await join(table, 10)
