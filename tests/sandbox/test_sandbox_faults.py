"""Hostile bots, in Python and JavaScript, each ending its own participation in a real match:
the fault is recorded with its kind and reason, the opponent gets every game not yet played,
the owner gets the reason and the end of stderr, and the host is unharmed (every test also
checks that no process of the sandbox is left, see conftest)."""

from __future__ import annotations

import json

import pytest

from bots.languages import method_name
from games.engine.runner import TimeControl
from tests.sandbox.conftest import FAST, GAME, assert_forfeited, hostile

LANGUAGES = ["py", "js"]


def named(ext: str, method: str) -> str:
    """A contract method as the reasons name it to a bot of that file type."""
    return method_name({"py": "python", "js": "javascript"}[ext], method)


@pytest.mark.parametrize("ext", LANGUAGES)
def test_it_times_out_an_endless_loop(play, tmp_path, ext):
    played = play(hostile(tmp_path, f"loop.{ext}"))
    assert_forfeited(played, "timeout", f"no answer to {named(ext, 'draft_pick')} within")
    assert played.scores == [0, 10]


@pytest.mark.parametrize("ext", LANGUAGES)
def test_it_times_out_a_bot_sleeping_past_the_deadline(play, tmp_path, ext):
    played = play(hostile(tmp_path, f"sleep.{ext}"))
    assert_forfeited(played, "timeout", f"no answer to {named(ext, 'main_play')} within")
    assert played.scores == [0, 10]


@pytest.mark.parametrize("ext", LANGUAGES)
def test_it_times_out_a_bot_that_closes_its_stdout_and_waits(play, tmp_path, ext):
    # No end of file ever comes (bwrap holds the pipe too): the deadline must catch it.
    played = play(hostile(tmp_path, f"closes_stdout.{ext}"))
    assert_forfeited(played, "timeout", f"no answer to {named(ext, 'draft_pick')} within")


@pytest.mark.parametrize("name", ["memory.py", "memory.js", "buffers.js"])
def test_it_stops_a_bot_allocating_memory_without_end(play, tmp_path, name):
    # Time enough to fill 256 MiB even on a busy machine (V8 collects garbage hard first).
    played = play(hostile(tmp_path, name), tc=TimeControl(move=4.0, bank=0.0, startup=10.0))
    assert_forfeited(played, "memory", named(name[-2:], "draft_pick"), bound=10)
    assert played.scores == [0, 10]


@pytest.mark.parametrize(("ext", "says"), [("py", "Operation not permitted"), ("js", "EPERM")])
def test_it_defuses_a_fork_bomb(play, tmp_path, ext, says):
    played = play(hostile(tmp_path, f"forkbomb.{ext}"))
    assert_forfeited(played, "exception", f"{named(ext, 'draft_pick')} raised", says, bound=3)


@pytest.mark.parametrize("ext", LANGUAGES)
def test_it_kills_a_bot_printing_without_end(play, tmp_path, ext):
    played = play(hostile(tmp_path, f"spam.{ext}"))
    assert_forfeited(played, "output", "wrote over 1,048,576 bytes")
    # The owner's log keeps a bounded amount of it.
    assert len(played.stderr) < 2 << 20


@pytest.mark.parametrize("ext", LANGUAGES)
def test_it_rejects_garbage_on_the_protocol_channel(play, tmp_path, ext):
    played = play(hostile(tmp_path, f"garbage.{ext}"))
    assert_forfeited(
        played, "protocol", f"not a JSON line during {named(ext, 'draft_pick')}", "garbage"
    )


@pytest.mark.parametrize("ext", LANGUAGES)
def test_it_rejects_invalid_json(play, tmp_path, ext):
    played = play(hostile(tmp_path, f"badjson.{ext}"))
    assert_forfeited(played, "protocol", f"not a JSON line during {named(ext, 'draft_pick')}")


@pytest.mark.parametrize("ext", LANGUAGES)
def test_it_rejects_an_oversized_answer(play, tmp_path, ext):
    played = play(hostile(tmp_path, f"hugeline.{ext}"))
    assert_forfeited(
        played, "output", f"a line of over 65536 bytes during {named(ext, 'draft_pick')}"
    )


@pytest.mark.parametrize("ext", LANGUAGES)
def test_it_disqualifies_an_invalid_action(play, tmp_path, ext):
    played = play(hostile(tmp_path, f"invalid.{ext}"))
    # the call that gave it, in the bot's own words, then what is wrong with the answer
    says = f"{named(ext, 'main_play')} returned an illegal answer: index 7 is out of range 0-"
    assert_forfeited(played, "invalid", says)
    assert played.scores == [0, 10]


@pytest.mark.parametrize("ext", LANGUAGES)
def test_it_records_a_bot_exiting_early(play, tmp_path, ext):
    played = play(hostile(tmp_path, f"exits.{ext}"))
    assert_forfeited(played, "crash", "exited with status 3", named(ext, "draft_receive"))


@pytest.mark.parametrize(
    "method", ["__init__", "draft_pick", "draft_receive", "main_play", "main_postprocess"]
)
def test_it_records_a_python_bot_raising_in_each_method(play, tmp_path, method):
    played = play(hostile(tmp_path, "raises.py", method=method))
    if method == "__init__":  # the bot could not start: a startup fault that says why
        says = "the bot's constructor raised ValueError: hostile bot raising"
        assert_forfeited(played, "startup", says)
    else:
        assert_forfeited(played, "exception", f"{method} raised ValueError: hostile bot raising")
    # The traceback is the owner's, in the report and the log.
    assert "Traceback" in played.agent.fault_reports[-1].stderr_tail
    assert f"in {method}" in played.stderr


@pytest.mark.parametrize("method", ["__init__", "main_play"])
def test_a_python_bot_raising_is_told_the_line_of_its_file_by_the_files_name(
    play, tmp_path, method
):
    # the deepest line of the bot's file in the traceback (maybe_raise's raise, not its
    # caller's), by the name the file was given, not its path in the sandbox (/bot/raises.py)
    played = play(hostile(tmp_path, "raises.py", method=method))
    said = f"ValueError: hostile bot raising in {method} (raises.py, line 8)"
    if method == "__init__":
        assert_forfeited(played, "startup", f"the bot's constructor raised {said}")
    else:
        assert_forfeited(played, "exception", f"main_play raised {said}")
    assert "/bot/" not in played.fault.reason


#: a Python bot whose draft_pick runs ``{act}`` (line 7), after its imports and ``{head}``
HINTED = """import socket
import urllib.request
{head}

class Bot:
    def draft_pick(self, cards):
        {act}
        return 0

    def draft_receive(self, card):
        pass

    def main_play(self, hand, base):
        return 0

    def main_postprocess(self, card):
        pass
"""
NO_MODULE = "; bots get Python's standard library only"
NO_NETWORK = "; the sandbox has no network"
NO_FILE = "; only the bot's own file is in the sandbox"


@pytest.mark.parametrize(
    ("head", "act", "begins", "ends"),
    [
        # what the sandbox does not have, said after the error and where it was raised
        # (docs/bot-protocol.md, "What a bot can use")
        ("import numpy", "pass",
         "failed at import: ModuleNotFoundError: No module named 'numpy'",
         f" (bot.py, line 3){NO_MODULE}"),
        ("", "import numpy.linalg",
         "draft_pick raised ModuleNotFoundError: No module named 'numpy'",
         f" (bot.py, line 7){NO_MODULE}"),
        ("", 'socket.create_connection(("example.com", 80))',
         "draft_pick raised gaierror: [Errno ", f" (bot.py, line 7){NO_NETWORK}"),
        ("", "socket.socket(socket.AF_INET, socket.SOCK_STREAM)",
         "draft_pick raised OSError: [Errno 97] Address family not supported by protocol",
         f" (bot.py, line 7){NO_NETWORK}"),
        ("", 'urllib.request.urlopen("http://example.com/", timeout=1)',
         "draft_pick raised URLError: <urlopen error ", f" (bot.py, line 7){NO_NETWORK}"),
        ("DATA = open('weights.txt').read()", "pass",
         "failed at import: FileNotFoundError: [Errno 2] No such file or directory: "
         "'weights.txt'", f" (bot.py, line 3){NO_FILE}"),
        ("", "open('/bot/weights.txt')",
         "draft_pick raised FileNotFoundError: [Errno 2] No such file or directory: "
         "'/bot/weights.txt'", f" (bot.py, line 7){NO_FILE}"),
    ],
)  # fmt: skip
def test_an_error_the_sandbox_caused_says_what_it_does_not_have(
    play, tmp_path, head, act, begins, ends
):
    path = tmp_path / "bot.py"
    path.write_text(HINTED.format(head=head, act=act))
    played = play(path)
    kind = "startup" if begins.startswith("failed at import") else "exception"
    assert_forfeited(played, kind, begins)
    assert played.fault.reason.startswith(begins) and played.fault.reason.endswith(ends)


@pytest.mark.parametrize(
    "act",
    [
        "import json.nothing",  # a module of the standard library's (Debian may leave one out)
        'raise FileNotFoundError("the bot\'s own words")',  # no file named: none looked for
        'raise OSError("the bot\'s own words")',
    ],
)
def test_an_error_of_the_bots_own_gets_no_word_on_the_sandbox(play, tmp_path, act):
    path = tmp_path / "bot.py"
    path.write_text(HINTED.format(head="", act=act))
    played = play(path)
    assert_forfeited(played, "exception", "draft_pick raised ")
    assert played.fault.reason.endswith("(bot.py, line 7)")


def test_a_long_message_keeps_where_it_was_raised(play, tmp_path):
    path = tmp_path / "bot.py"
    path.write_text(HINTED.format(head="", act='raise ValueError("x" * 5000)'))
    played = play(path)
    assert_forfeited(played, "exception", "draft_pick raised ValueError: xxx")
    assert played.fault.reason.endswith("xxx... (bot.py, line 7)")
    assert len(played.fault.reason) < 1000


@pytest.mark.parametrize("method", ["draftPick", "draftReceive", "mainPlay", "mainPostprocess"])
def test_it_records_a_js_bot_throwing_in_each_method(play, tmp_path, method):
    played = play(hostile(tmp_path, "raises.js", method=method))
    # named as the bot's own file names it, never by the contract's Python name
    assert_forfeited(played, "exception", f"{method} raised RangeError: hostile bot throwing")
    assert "at Object.maybeThrow" in played.agent.fault_reports[-1].stderr_tail


@pytest.mark.real_js_host
def test_a_js_bot_throwing_in_a_call_is_told_the_line_as_at_load(play, tmp_path):
    played = play(hostile(tmp_path, "raises.js", method="mainPlay"))
    # the first frame in the bot's own file (maybeThrow's throw), as a load's error says it
    says = "mainPlay raised RangeError: hostile bot throwing in mainPlay (raises.js, line 6)"
    assert_forfeited(played, "exception", says)


@pytest.mark.parametrize(
    ("name", "says"),
    [
        (
            "import_error.py",
            "failed at import: RuntimeError: hostile bot failing at import (import_error.py, "
            "line 3)",
        ),
        # (where in the file it threw, as a syntax error says it: the real host's words)
        pytest.param(
            "load_error.js",
            "failed at load: Error: hostile bot failing at load (load_error.js, line 3)",
            marks=pytest.mark.real_js_host,
        ),
    ],
)
def test_it_records_a_bot_that_cannot_even_load(play, tmp_path, name, says):
    played = play(hostile(tmp_path, name))
    assert_forfeited(played, "startup", says)
    assert played.scores == [0, 10]


@pytest.mark.parametrize(("name", "status"), [("py", 137), ("py", 393), ("js", 137)])
def test_a_bot_exiting_with_a_killed_process_s_status_crashes(play, tmp_path, name, status):
    """128 + 9 reads as a SIGKILL from outside, which is the platform's trouble (its match
    played again): a losing bot could void its matches so. The sandbox ends such an exit
    (SIGSYS), and it is the bot's crash."""
    played = play(hostile(tmp_path, f"exits_as_killed.{name}", status=status))
    assert_forfeited(played, "crash", "exited with a status of 128 or more")
    assert "killed by SIGKILL from outside" not in played.stderr


def test_a_bot_exiting_with_a_small_status_says_it(play, tmp_path):
    played = play(hostile(tmp_path, "exits_as_killed.py", status=3))
    assert_forfeited(played, "crash", "the bot exited with status 3")


def test_it_restarts_a_crashed_bot_for_its_next_match(play, tmp_path):
    # One bad match must not poison the next: the process is started anew.
    played = play(hostile(tmp_path, "exits.py"), matches=3)
    assert [o.faults[0].kind for o in played.outcomes] == ["crash"] * 3
    assert played.process.starts == 3
    assert len(played.agent.fault_reports) == 3


def test_it_keeps_the_process_of_a_bot_that_only_played_an_invalid_action(play, tmp_path):
    played = play(hostile(tmp_path, "invalid.py"), matches=3)
    assert [o.faults[0].kind for o in played.outcomes] == ["invalid"] * 3
    assert played.process.starts == 1
    assert [r.kind for r in played.agent.fault_reports] == ["invalid"] * 3


# ---- bytes no database or parser may choke on ----------------------------------------------
def assert_storable(played) -> None:
    """Every text the match produced can be stored in PostgreSQL and SQLite as it is: no NUL,
    no lone surrogate, in the record, the fault reports or the stderr log."""
    texts = [
        json.dumps(played.outcome.record, ensure_ascii=False),
        *(report.reason for report in played.agent.fault_reports),
        *(report.stderr_tail for report in played.agent.fault_reports),
        played.process.match_stderr(),
    ]
    for text in texts:
        assert "\x00" not in text and "\\u0000" not in text
        text.encode("utf-8")  # raises on a lone surrogate


@pytest.mark.parametrize("ext", LANGUAGES)
def test_a_deeply_nested_answer_is_an_invalid_answer(play, tmp_path, ext):
    # json would raise RecursionError on it, and so would repr: neither may escape the match.
    played = play(hostile(tmp_path, f"nested.{ext}"))
    says = f"the reply to {named(ext, 'main_play')} is JSON nested"
    assert_forfeited(played, "invalid", says, "deep")
    assert_storable(played)


def raw_reply(tmp_path, value: bytes, call: int = 2):
    """A bot that answers draft_pick (call ``call``: the one after the hello) with ``value``
    as raw bytes on the protocol channel."""
    line = b'{"type": "return", "id": %d, "value": %s}\n' % (call, value)
    return hostile(tmp_path, "raw_reply.py", line=repr(line))


def test_a_deeply_nested_line_on_the_protocol_channel_is_refused(play, tmp_path):
    # the depth is checked before anything else, even the call's id
    played = play(raw_reply(tmp_path, b"[" * 5000 + b"]" * 5000, call=1))
    assert_forfeited(played, "invalid", "the reply to draft_pick is JSON nested 5001 deep")


@pytest.mark.parametrize("ext", LANGUAGES)
def test_nul_and_bytes_that_are_not_utf8_are_stored_as_replacement_characters(play, tmp_path, ext):
    played = play(hostile(tmp_path, f"unstorable.{ext}"))
    says = f"{named(ext, 'main_play')} raised"
    assert_forfeited(played, "exception", says, "bad \ufffd value \ufffd here")
    assert_storable(played)
    tail = played.agent.fault_reports[-1].stderr_tail
    assert "\ufffd" in tail and ("before" in tail or "b\ufffd" in tail)


def test_nul_and_a_lone_surrogate_in_an_answer_are_refused_and_storable(play, tmp_path):
    played = play(raw_reply(tmp_path, b'"pick \\u0000 this \\ud800 card"'))
    assert_forfeited(played, "invalid", "expected an index", "pick \ufffd this \ufffd card")
    assert_storable(played)


def test_an_answer_that_is_not_utf8_is_a_protocol_fault(play, tmp_path):
    played = play(raw_reply(tmp_path, b'"\xff\xfe\xed\xa0\x80"'))
    assert_forfeited(played, "protocol", "during draft_pick")
    assert_storable(played)


def test_a_match_the_platform_could_not_finish_leaves_no_kept_process_owing_replies(tmp_path):
    """The platform's trouble in one seat (here a PlatformError the seat raises) ends the
    match where it is: the other seat's kept process, asked at the same time, still owes its
    reply. Read at its next match, that reply was a protocol fault of an innocent bot's,
    stored and rated."""
    from bots.running.playing import Entry, ProcessCache, play
    from bots.running.process import PlatformError
    from games.engine.agents import InProcessAgent

    simple = GAME.builtin_class("simple")

    class Trouble(InProcessAgent):  # its second question: the machine's trouble
        calls = 0

        def send(self, prompt):
            Trouble.calls += prompt.expects_answer
            if Trouble.calls == 2:
                raise PlatformError("the bot's process was killed by SIGKILL from outside")
            super().send(prompt)

    code = hostile(tmp_path, "fair.py").read_text()
    fair = Entry("fair", code=code, filename="fair.py", key="fair")
    cache = ProcessCache()
    try:
        trouble = Entry("trouble", agent=Trouble(simple, GAME.bot_call, "trouble"))
        with pytest.raises(PlatformError):  # (seat 0 asked first: it is left owing)
            play(GAME, [fair, trouble], seed=1, time_control=FAST, cache=cache)
        played = play(GAME, [fair, Entry("simple", builtin="simple")], seed=2, cache=cache)
        assert not played.outcome.faults, played.outcome.faults
    finally:
        cache.close()
