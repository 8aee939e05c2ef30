"""Every match gets a fresh bot (issue: no bot is shown a deal twice): a bot that tries every
way to remember what it saw, in the real sandbox with the real hosts, remembers nothing from
one match to the next, and each match is the first its bot has played."""

from __future__ import annotations

import json

import pytest

from bots.arena import Arena
from tests.sandbox.conftest import GAME, hostile


def lingered(stderr: str) -> list[str]:
    """What a lingering process read after its part (only the quit that ends its sandbox)."""
    return [line for line in stderr.splitlines() if line.startswith("LINGERED")]


def said(stderr: str) -> list[dict]:
    return [json.loads(line) for line in stderr.splitlines() if line.startswith("{")]


@pytest.mark.real_js_host
@pytest.mark.parametrize("name", ["remembers.py", "remembers.js"])
def test_a_bot_remembers_nothing_from_one_match_to_the_next(play, tmp_path, name):
    played = play(hostile(tmp_path, name), matches=4)
    assert all(not o.faults for o in played.outcomes)
    assert played.process.starts == 1  # one sandbox served all four matches
    seen = said(played.stderr)
    assert len(seen) == 4
    for match in seen:
        assert match["matches"] == 1  # each match is the first its bot has played
        assert match["module"] == 0  # nothing of an earlier deal in memory
        if name.endswith(".py"):
            assert match["files"] == 0 and match["threads"] == 0
            assert match["fork"].startswith("refused") and match["host"].startswith("refused")
        else:
            assert match["prototypes"] == 0 and match["host"] == "unreachable"


@pytest.mark.real_js_host
def test_the_second_seating_of_a_deal_finds_nothing_of_the_first(tmp_path, sandbox_config):
    # The arena plays each deal twice with the seats swapped, on the same sandboxes.
    sources = [str(hostile(tmp_path, n)) for n in ("remembers.py", "remembers.js")]
    logs = tmp_path / "logs"
    with Arena(GAME, [*sources, "builtin:simple"], sandbox_config=sandbox_config, logs=logs) as a:
        summary = a.run(rounds=2, seed=5)
    assert summary["matches"] == 2 * 3
    for log in sorted((logs / "stderr").glob("*remembers*.stderr.log")):
        seen = said(log.read_text())
        assert len(seen) == 4, log.name  # 2 rounds x 2 opponents
        assert all(m["matches"] == 1 and m["module"] == 0 for m in seen), seen


def test_a_match_process_that_outlives_its_match_never_sees_the_next(play, tmp_path):
    played = play(hostile(tmp_path, "lingers.py", when="match"), matches=3, bound=20)
    assert all(not o.faults for o in played.outcomes)  # each match played to its end
    assert lingered(played.stderr) == ['LINGERED: {"type":"quit"}'] * 3  # no match's lines
    # the controller waited for the host to say the match's process was gone; it never was,
    # so each next match started a fresh sandbox instead (no fault: the bot only lost time)
    assert played.process.starts == 3
    assert played.stderr.count("its last match's process lingered") == 2


def test_a_bot_whose_hello_process_stays_cannot_start(play, tmp_path):
    played = play(hostile(tmp_path, "lingers.py", when="hello"), bound=20)
    assert played.fault.kind == "startup"
    assert "did not end after its hello" in played.fault.reason
    assert lingered(played.stderr) == ['LINGERED: {"type":"quit"}']  # never the match's begin


def test_a_match_process_can_leave_no_mark_on_the_next_or_on_the_host(play, tmp_path):
    """The next match's process is forked ahead and waits while a match is played; neither
    it nor the zygote (whose nice value, affinity and limits children inherit) can be
    signalled, stopped, reprioritised, pinned or limited from a match's process."""
    played = play(hostile(tmp_path, "marks.py"), matches=3)
    assert all(not o.faults for o in played.outcomes)
    assert played.process.starts == 1
    seen = said(played.stderr)
    assert len(seen) == 3
    for match in seen:
        # each match starts as the first did: nothing an earlier one tried stuck to it
        assert match["found"] == seen[0]["found"]
        assert match["found"]["nice"] == 0 and match["found"]["nofile"] > 20
        tried = match["tried"]
        assert {k.split(":")[0] for k in tried} >= {"zygote", "group", "user", "self"}
        assert all(why == "EPERM" for k, why in tried.items() if not k.startswith("self")), tried
        assert tried["self:kill 0"] == "ok" and tried["self:setpriority"] == "ok"
    # the spare was there to be tried on from the second match on
    assert any(k.startswith("next:") for k in seen[1]["tried"])
