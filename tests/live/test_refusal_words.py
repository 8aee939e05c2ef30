"""A move the rules refuse at a live table of Kuhn poker or Leduc hold'em is answered with the
buttons the person sees, each with the code a bot sends (a bot author reads the same words in
a fault): not the codes alone."""

from __future__ import annotations

import pytest

from games.live.host import SeatPlan
from tests.live.test_host import Wire, builtin, host, join, run


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("game", "refused"),
    [
        ("kuhn", "expected one of: check (p), bet 1 (b); got 'allin'"),
        ("leduc", "expected one of: check (c), raise 2 (r); got 'allin'"),
    ],
)
async def test_a_forged_move_is_refused_in_the_words_of_the_buttons(game, refused):
    wire = Wire()
    table = host(game, [SeatPlan("ann", "human"), builtin(game, "simple")], wire)
    run(table)
    turn = await wire.wait("seat:0", "turn")  # seat 0 acts first in the first hand
    buttons = [action["label"] for action in wire.to("seat:0", "state")[-1]["actions"]]
    table.submit(0, turn["turn"], "allin", reply_to="forged")
    assert (await wire.wait("reply:forged", "error"))["error"] == refused
    assert [b.lower() for b in buttons] == [
        words.split(" (")[0] for words in refused.split(": ", 1)[1].split(";")[0].split(", ")
    ]
    table.close()
    assert await join(table, 10)
