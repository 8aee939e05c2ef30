"""No bot process is shown a deal twice (issue: a fair competition under attack): a bot that
tries every way to remember what it saw, in the real sandbox with the real hosts, keeps its
memory from one deal to the next within its process, and loses all of it (memory, /tmp,
threads, its realm's globals) before a deal its process has played."""

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
def test_a_bot_dealt_a_deal_again_remembers_nothing_of_it(play, tmp_path, name):
    # deals 0 and 1, then 0 again (its process has played it: a fresh one), then 2 and 1
    # (new to the fresh process: it goes on)
    played = play(hostile(tmp_path, name), seeds=[0, 1, 0, 2, 1])
    assert all(not o.faults for o in played.outcomes)
    assert played.process.starts == 1  # one sandbox served all five matches
    seen = said(played.stderr)
    assert [m["matches"] for m in seen] == [1, 2, 1, 2, 3]
    assert not any(m["again"] for m in seen)  # never a deal it knows
    # memory carries over between deals of one process, never into a fresh one
    assert [m["module"] > 0 for m in seen] == [False, True, False, True, True]
    for match in seen:
        if name.endswith(".py"):
            assert match["files"] == match["module"]  # /tmp is emptied with the process
            assert match["threads"] == 0  # a match's process may start none
            assert match["fork"].startswith("refused") and match["host"].startswith("refused")
        else:
            assert (match["prototypes"] > 0) == (match["matches"] > 1)
            assert match["host"] == "unreachable"


@pytest.mark.real_js_host
def test_the_arena_keeps_a_bot_s_process_for_its_new_deals(tmp_path, sandbox_config):
    # The arena deals every table anew: each bot's one process plays all its matches.
    sources = [str(hostile(tmp_path, n)) for n in ("remembers.py", "remembers.js")]
    logs = tmp_path / "logs"
    with Arena(GAME, [*sources, "builtin:simple"], sandbox_config=sandbox_config, logs=logs) as a:
        summary = a.run(rounds=2, seed=5)
    assert summary["matches"] == 2 * 3
    for log in sorted((logs / "stderr").glob("*remembers*.stderr.log")):
        seen = said(log.read_text())
        assert [m["matches"] for m in seen] == [1, 2, 3, 4], log.name  # 2 rounds x 2 opponents
        assert not any(m["again"] for m in seen), seen


def test_a_process_that_outlives_its_renewal_never_sees_the_next_match(play, tmp_path):
    # the same deal three times: before the second and third, the process that played it
    # is told to end (renew), and stays to read what comes next
    played = play(hostile(tmp_path, "lingers.py", when="match"), seeds=[0, 0, 0], bound=20)
    assert all(not o.faults for o in played.outcomes)  # each match played to its end
    assert lingered(played.stderr) == ['LINGERED: {"type":"quit"}'] * 2  # no match's lines
    # the controller waited for the host to say the process was gone; it never was, so the
    # next match started a fresh sandbox instead (no fault: the bot only lost time)
    assert played.process.starts == 3
    assert played.stderr.count("it did not start afresh") == 2


def test_a_bot_whose_hello_process_stays_cannot_start(play, tmp_path):
    played = play(hostile(tmp_path, "lingers.py", when="hello"), bound=20)
    assert played.fault.kind == "startup"
    assert "did not end after its hello" in played.fault.reason
    assert lingered(played.stderr) == ['LINGERED: {"type":"quit"}']  # never the match's begin


def test_a_match_process_can_leave_no_mark_on_the_next_or_on_the_host(play, tmp_path):
    """The next process is forked ahead and waits while a match is played; neither it nor
    the zygote (whose nice value, affinity and limits children inherit) can be signalled,
    stopped, reprioritised, pinned or limited from a match's process. (One deal three
    times: each match is played by a fresh process.)"""
    played = play(hostile(tmp_path, "marks.py"), seeds=[0, 0, 0])
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
