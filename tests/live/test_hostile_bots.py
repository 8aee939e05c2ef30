"""A hostile uploaded bot at a live table ends as its own fault: the table plays on to its
end, the person wins what is left, and the match is stored."""

from __future__ import annotations

from pathlib import Path

import pytest

from bots.running.playing import Entry
from games.live.host import SeatPlan
from tests.live.test_host import Wire, host, join, run

HOSTILE = Path(__file__).resolve().parent.parent / "sandbox" / "bots"


def hostile(name: str) -> SeatPlan:
    code = (HOSTILE / name).read_text()
    return SeatPlan(
        name=f"mallory/{name}", kind="bot", entry=Entry(name=name, code=code, filename=name)
    )


@pytest.mark.asyncio
@pytest.mark.parametrize("name", ["nested.py", "nested.js", "unstorable.py"])
async def test_a_hostile_bot_faults_and_the_table_plays_on(name):
    wire = Wire()
    table = host(
        "rps-poker", [SeatPlan("ann", "human"), hostile(name)], wire, seed=5,
        turn_timer=0.05, away_timer=0.01,
    )  # fmt: skip
    run(table)
    assert await join(table, 60)
    over = await wire.wait("seat:0", "over")
    assert table.result["scores"][0] > table.result["scores"][1]
    fault = table.result["faults"]["1"]
    assert fault["kind"] in {"invalid", "exception"}
    assert "\x00" not in fault["reason"]
    assert over  # the person was told the end, as at any table


@pytest.mark.asyncio
async def test_a_bot_whose_constructor_raises_is_a_startup_fault_at_a_table():
    code = (HOSTILE / "raises.py").read_text().replace("__METHOD__", "__init__")
    plan = SeatPlan(
        name="mallory/raises", kind="bot", entry=Entry(name="raises", code=code, filename="r.py")
    )
    wire = Wire()
    table = host("rps-poker", [SeatPlan("ann", "human"), plan], wire, seed=5,
                 turn_timer=0.05, away_timer=0.01)  # fmt: skip
    run(table)
    assert await join(table, 60)
    await wire.wait("seat:0", "over")
    assert table.result["faults"]["1"] == {
        "kind": "startup",
        "reason": "the bot's constructor raised ValueError: hostile bot raising in __init__ "
        "(r.py, line 8)",
    }
