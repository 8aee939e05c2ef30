"""C++ bots: compiled in the sandbox once per machine (bots.sandbox.compiling), then run like
any bot. Real g++, real bubblewrap."""

from __future__ import annotations

import io
import json
import shutil
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from bots.languages import get_language
from bots.names import declared_name
from bots.running.process import PlatformError
from bots.sandbox import compiling
from bots.sandbox.compiling import CompileError, CompileLimits
from games.registry import get_game
from tests.sandbox.conftest import hostile

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")

CPP = get_language("cpp")
GAME = get_game("rps-poker")
STARTER = GAME.starters["cpp"]

#: a bot that plays the first card, with ``{act}`` in its main_play first
TEMPLATE = """
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>
class Bot {{
 public:
  int draft_pick(const std::vector<std::string>& cards) {{ return 0; }}
  void draft_receive(const std::string& card) {{}}
  int main_play(const std::vector<std::string>& hand, const std::string& base) {{
    {act}
    return 0;
  }}
  void main_postprocess(const std::string& card) {{}}
}};
"""

#: small limits for the hostile compiles: each ends within seconds
SMALL = CompileLimits(cpu_s=8, wall_s=20, memory_mb=768, messages_bytes=64 * 1024)


@pytest.fixture(autouse=True, scope="module")
def new_machine(tmp_path_factory):
    """A machine that has compiled nothing yet: the checkout's own cache outlives a test run,
    and these tests count compiles."""
    cache = tmp_path_factory.mktemp("compiled")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(compiling, "cache_dir", lambda: cache)
        yield


def bot(tmp_path: Path, name: str, act: str = "", code: str | None = None) -> Path:
    path = tmp_path / name
    path.write_text(code if code is not None else TEMPLATE.format(act=act))
    return path


def arena(*args: str) -> str:
    out = io.StringIO()
    call_command("arena", "--game", "rps-poker", "--no-progress", *args, stdout=out)
    return out.getvalue()


def test_the_starter_plays_without_the_sandbox_too():
    table = arena(str(STARTER), "builtin:simple", "--rounds", "4", "--seed", "3", "--no-sandbox")
    row = next(line for line in table.splitlines() if " starter " in line)
    assert row.rstrip(" │").endswith("0"), table  # no faults


def test_a_compile_error_is_the_bots_and_shows_the_compilers_first_lines(tmp_path):
    broken = bot(tmp_path, "broken.cpp", "return undefined_name;")
    with pytest.raises(CommandError) as refused:
        arena(str(broken), "builtin:simple", "--rounds", "1")
    said = str(refused.value)
    assert said.startswith("C++ compile error\n")
    # named as it was given, not by its path in the compiler's sandbox (/bot/broken.cpp)
    assert "\nbroken.cpp:11:" in said and "undefined_name" in said and "/bot/" not in said
    assert "/src/main.cpp" not in said.splitlines()[1]  # the platform's own file is not shown


@pytest.mark.parametrize(
    ("code", "said"),
    [
        (
            TEMPLATE.format(act="").replace("class Bot {", "class MyBot {"),
            "this file never names Bot (it defines class MyBot: rename it, or add "
            "`using Bot = MyBot;`).",
        ),
        (  # the class with the game's methods, not a helper before it
            "struct Card { int rank; };\n"
            + TEMPLATE.format(act="").replace("class Bot {", "class Mine {"),
            "this file never names Bot (it defines class Mine: rename it, or add "
            "`using Bot = Mine;`).",
        ),
        ("// class Bot {};\nint main_play() { return 0; }\n", "this file never names Bot."),
    ],
)
def test_a_file_without_class_bot_is_refused_before_it_is_compiled(
    tmp_path, monkeypatch, code, said
):
    """Compiled, it would be refused with words about /src/main.cpp and card_arena.hpp, files
    its author never wrote."""

    def never(*args, **kwargs):
        raise AssertionError("compiled")

    monkeypatch.setattr(compiling, "_compile", never)
    with pytest.raises(CommandError) as refused:
        arena(str(bot(tmp_path, "mine.cpp", code=code)), "builtin:simple", "--rounds", "1")
    assert str(refused.value) == f"A C++ bot's file must define class Bot; {said}"
    with pytest.raises(CompileError, match="must define class Bot"):
        compiling.program(CPP, "mine.cpp", code.encode(), GAME)


def test_another_name_made_bot_is_compiled(tmp_path):
    code = TEMPLATE.format(act="").replace("class Bot {", "class MyBot {") + "using Bot = MyBot;\n"
    assert compiling.program(CPP, "alias.cpp", code.encode(), GAME).startswith(b"\x7fELF")


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("typedef struct {", "} Bot;"),  # refused by the check until it only looked for Bot
        ("struct alignas(alignof(double)) Bot {", "};"),
    ],
)
def test_a_bot_the_check_cannot_parse_is_compiled(before, after):
    body = TEMPLATE.format(act="").split("class Bot {\n public:\n", 1)[1].rsplit("};", 1)[0]
    code = f"#include <string>\n#include <vector>\n{before}\n{body}{after}\n"
    assert compiling.program(CPP, "c_style.cpp", code.encode(), GAME).startswith(b"\x7fELF")


def test_an_include_chain_ends_at_the_bots_file_not_the_platforms():
    """g++ names the platform's file that includes the bot's on a line of its own
    (``from /src/main.cpp:2:``): left out, the line before ends the chain (with a colon)."""
    code = (
        "#ifndef ONCE\n#define ONCE\nstruct Bot {};\n#include __FILE__\n#else\n"
        "int x = undefined_name;\n#endif\n"
    )
    with pytest.raises(CompileError) as refused:
        compiling.program(CPP, "chain.cpp", code.encode(), GAME)
    lines = str(refused.value).splitlines()
    assert lines[1:3] == [
        "In file included from chain.cpp:4:",
        "chain.cpp:6:9: error: \u2018undefined_name\u2019 was not declared in this scope",
    ]
    assert "main.cpp" not in str(refused.value)


def test_a_refusal_names_the_file_as_it_was_given(tmp_path):
    source = TEMPLATE.format(act="return undefined_name;").encode()
    with pytest.raises(CompileError) as refused:
        compiling.program(CPP, "given.cpp", source, GAME)
    lines = str(refused.value).splitlines()
    assert lines[1].startswith("given.cpp: In member function")
    assert any(line.startswith("given.cpp:11:") for line in lines)
    assert "/bot/" not in str(refused.value)


def test_a_bot_without_the_games_methods_is_told_none_is_there(tmp_path, sandbox_config):
    """The C++ host sees only the contract's methods: a file that names act otherwise (bid)
    is not said to define no method at all."""
    from bots.running.contract import missing_methods
    from bots.running.launch import bot_launch
    from bots.running.process import BotProcess

    goofspiel = get_game("goofspiel")
    code = "class Bot {\n public:\n  int bid(const json& obs) { return 1; }\n};\n"
    path = bot(tmp_path, "bids.cpp", code=code)
    launch = bot_launch(path, game=goofspiel, config=sandbox_config)
    with BotProcess(launch, label="bids") as process:
        hello = process.start(20)
    assert hello.methods == []
    assert missing_methods(goofspiel, hello) == (
        "class Bot has no method act. A Goofspiel bot needs act(obs); this file defines none "
        "of the game's methods."
    )


def test_a_version_is_compiled_once_per_machine_and_a_refusal_kept_too(tmp_path, monkeypatch):
    source = TEMPLATE.format(act="int kept = 1; (void)kept;").encode()
    first = compiling.program(CPP, "once.cpp", source, GAME)
    compiled = []

    def compile_again(*args, **kwargs):
        compiled.append(args)
        return 1, b"", "", None

    monkeypatch.setattr(compiling, "_compile", compile_again)
    assert compiling.program(CPP, "once.cpp", source, GAME) == first
    monkeypatch.undo()
    broken = TEMPLATE.format(act="this is not C++;").encode()
    with pytest.raises(CompileError) as first_refusal:
        compiling.program(CPP, "kept.cpp", broken, GAME)
    monkeypatch.setattr(compiling, "_compile", compile_again)
    with pytest.raises(CompileError) as again:
        compiling.program(CPP, "kept.cpp", broken, GAME)
    assert str(again.value) == str(first_refusal.value)
    assert compiled == []


def test_workers_that_need_a_new_version_at_once_compile_it_once(monkeypatch):
    source = TEMPLATE.format(act="int twice = 2; (void)twice;").encode()
    real, compiled = compiling._compile, []

    def counted(*args, **kwargs):
        compiled.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(compiling, "_compile", counted)
    with ThreadPoolExecutor(2) as pool:
        programs = list(
            pool.map(lambda _: compiling.program(CPP, "twice.cpp", source, GAME), [1, 2])
        )
    assert programs[0] == programs[1] and programs[0].startswith(b"\x7fELF")
    assert len(compiled) == 1


@pytest.mark.parametrize(
    ("code", "said"),
    [
        (  # a recursion the compiler cuts off at its depth
            "template <int N> struct F { enum { v = F<N + 1>::v }; };\nint x = F<0>::v;\n"
            "struct Bot {};\n",
            "template instantiation depth exceeds",
        ),
        (  # an include that never ends: over the memory or the time
            'struct Bot {};\n#include "/dev/zero"\n',
            "C++ compile error: compiling needed over 768 MiB of memory",
        ),
        (  # a message that doubles at every step
            '#define A0 "xxxxxxxxxxxxxxxx"\n'
            + "".join(f"#define A{i} A{i - 1} A{i - 1}\n" for i in range(1, 17))
            + "#pragma message(A16)\n#pragma message(A16)\n#pragma message(A16)\n"
            + "struct Bot {};\n",
            "over 64 KiB of messages",
        ),
    ],
)
def test_a_hostile_compile_is_stopped_at_its_limits_and_is_the_bots(code, said):
    with pytest.raises(CompileError) as refused:
        compiling.program(CPP, "hostile.cpp", code.encode(), GAME, limits=SMALL)
    assert said in str(refused.value)
    assert len(str(refused.value)) < 40 * 310 + 200  # cut to its first lines


def test_the_compiler_sees_none_of_the_machines_files_but_its_own():
    """An ``#include`` of a file of the machine would show its lines in the compiler's
    messages: of /usr, the compile sees only what the compiler needs (/usr/lib, /usr/include,
    its programs), never /usr/share, /usr/local or the rest of /usr/bin."""
    shown = ["/usr/share/common-licenses/GPL-3", "/usr/bin/ls", "/usr/local"]
    shown = [path for path in shown if Path(path).exists()]
    assert shown, "the machine has none of the files this test looks for"
    code = "".join(
        f'#if __has_include("{path}")\n#error "{path} is there"\n#endif\n' for path in shown
    )
    with pytest.raises(CompileError) as refused:
        compiling.program(
            CPP, "nosy.cpp", f'{code}#error "looked"\nclass Bot {{}};\n'.encode(), GAME
        )
    said = str(refused.value)
    assert f'nosy.cpp:{3 * len(shown) + 1}:2: error: #error "looked"' in said
    assert "is there" not in said


@pytest.mark.parametrize("path", ["/dev/ptmx", "/proc/self/fd/1", "/dev/tty", "/dev/fd/2"])
def test_an_include_that_would_never_end_is_not_there(path):
    """A terminal's device, or the compiler's own pipe through /proc, would be read for ever
    (a worker held for the whole wall clock, then blamed on the machine): the compile's /dev
    holds only /dev/null, /dev/zero, /dev/random and /dev/urandom, and g++ runs without /proc."""
    began = time.monotonic()
    with pytest.raises(CompileError) as refused:
        compiling.program(
            CPP, "stuck.cpp", f'#include "{path}"\nclass Bot {{}};\n'.encode(), GAME, limits=SMALL
        )
    assert f"stuck.cpp:1:10: fatal error: {path}: No such file or directory" in str(refused.value)
    assert time.monotonic() - began < SMALL.wall_s / 2


def test_a_compile_that_waits_without_computing_is_the_codes_and_kept(monkeypatch):
    """Were something that never ends still there to read (here bwrap's whole /dev put back,
    with its terminal's device), the compile sleeps without computing: after BLOCKED_S of
    that it is refused as the code's, kept as any refusal, not stopped by the clock and
    blamed on the machine."""
    made = compiling._sandbox_command

    def with_whole_dev(*args, **kwargs):
        command = made(*args, **kwargs)
        at = command.index("--remount-ro")
        return [*command[:at], "--dev", "/dev", *command[at:]]

    monkeypatch.setattr(compiling, "_sandbox_command", with_whole_dev)
    monkeypatch.setattr(compiling, "LOOK_S", 0.2)
    monkeypatch.setattr(compiling, "BLOCKED_S", 2.0)
    source = b'#include "/dev/ptmx"\nclass Bot {};\n'
    before = refusals()
    began = time.monotonic()
    with pytest.raises(CompileError) as refused:
        compiling.program(CPP, "ptmx.cpp", source, GAME, limits=SMALL)
    assert time.monotonic() - began < SMALL.wall_s / 2
    said = str(refused.value)
    assert said.startswith("C++ compile error: the compiler waited 2 s without computing (it had ")
    assert said.endswith(
        " s of CPU): the code makes it read something that never ends, such as a device"
    ), said
    assert len(refusals()) == len(before) + 1  # kept: not compiled again
    with pytest.raises(CompileError) as again:
        compiling.program(CPP, "ptmx.cpp", source, GAME, limits=SMALL)
    assert again.value.cached and str(again.value) == said


#: a deadline no compile of the template meets (its host's JSON templates take seconds of g++)
HURRIED = CompileLimits(wall_s=0.3)


def refusals() -> list[Path]:
    return list(compiling.cache_dir().glob("cpp/*.refused"))


def test_a_compile_the_clock_stops_is_the_machines_and_never_kept():
    """A loaded machine once took 262 s of wall time for a g++ of 70 s of CPU: a compile
    stopped by the clock is not refused, and is compiled again next time; each stop says the
    CPU it had, and the stops of that code so far."""
    source = TEMPLATE.format(act="int hurried = 4; (void)hurried;").encode()
    before = refusals()
    for times in (1, 2):  # (nothing kept: compiled, and stopped, each time)
        with pytest.raises(compiling.CompileBusy) as busy:
            compiling.program(CPP, "hurried.cpp", source, GAME, limits=HURRIED)
        said = str(busy.value)
        assert said.startswith(
            "the machine was too busy to compile the bot: it was stopped at its 0.3 s of wall "
            "time having had "
        ), said
        assert " s of CPU of its 60 s; no refusal was kept, and it can be tried again" in said
        assert isinstance(busy.value, PlatformError) and not isinstance(busy.value, CompileError)
        assert len(busy.value.stops) == times
    cpus = compiling.seconds_text(busy.value.stops)
    assert said.endswith(
        f"; the clock stopped this code's compile 2 times in a day, with {cpus} of CPU"
    )
    assert refusals() == before


def test_a_compile_the_clock_stops_is_never_the_codes_whatever_its_cpu(monkeypatch):
    """Code that needs 30 to 60 s of CPU is within its limit: on a loaded machine the clock
    may stop it, which is never kept as its refusal (every later upload of it would be)."""
    source = TEMPLATE.format(act="int slow = 5; (void)slow;").encode()
    before = refusals()
    monkeypatch.setattr(compiling, "tree_cpu_s", lambda pid: 39.1)  # as if it had that much
    with pytest.raises(compiling.CompileBusy) as busy:
        compiling.program(CPP, "slow.cpp", source, GAME, limits=HURRIED)
    assert busy.value.cpu_s == 39.1  # (charged to whoever asked for it)
    assert refusals() == before  # (compiled again next time)
    assert compiling.busy_stops(CPP, "slow.cpp", source, GAME, limits=HURRIED) == (39.1,)


def test_a_compilers_messages_reach_the_terminal_as_text(tmp_path):
    """An ``#error`` with escape sequences (clear the screen, colours, the window's title)
    is shown as escapes, the compiler's lines still lines."""
    forged = '#error "\x1b[2J\x1b[31mforged\x1b]0;TITLE\x07"\nclass Bot {};\n'
    escapes = bot(tmp_path, "escapes.cpp", code=forged)
    with pytest.raises(CommandError) as refused:
        arena(str(escapes), "builtin:simple", "--rounds", "1")
    lines = str(refused.value).splitlines()
    assert lines[0] == "C++ compile error"
    assert lines[1] == (
        'escapes.cpp:1:2: error: #error "\\x1b[2J\\x1b[31mforged\\x1b]0;TITLE\\x07"'
    )
    assert not any(c in str(refused.value) for c in "\x1b\x07\r")


def test_what_a_bot_prints_goes_to_its_log_and_its_exceptions_are_its_faults(tmp_path, play):
    chatty = bot(tmp_path, "chatty.cpp", 'std::cout << "thinking" << std::endl;')
    played = play(chatty, matches=2)
    assert played.fault is None
    assert played.stderr.count("thinking") == 2 * 10  # ten plays a match, in the log
    throws = bot(tmp_path, "throws.cpp", 'throw std::runtime_error("no idea");')
    played = play(throws)
    assert played.fault.kind == "exception"
    assert "no idea" in played.fault.reason


def test_a_crash_is_the_bots_fault(tmp_path, play):
    crashes = bot(tmp_path, "crashes.cpp", "volatile int* p = nullptr; *p = 1;")
    played = play(crashes)
    assert played.fault.kind == "crash"
    assert "SIGSEGV" in played.fault.reason


def test_a_key_its_observation_has_not_is_its_exception_and_named_so(tmp_path):
    """``obs["prize_card"]`` (Goofspiel says ``prize``) on the const observation was an
    assertion inside nlohmann::json that killed the bot: "killed by SIGSEGV during act",
    naming nothing. The header makes such a check throw, so the fault says what it was."""
    starter = get_game("goofspiel").starters["cpp"].read_text()
    assert 'obs["prize"]' in starter
    path = tmp_path / "missing_key.cpp"
    path.write_text(starter.replace('obs["prize"]', 'obs["prize_card"]'))
    results = tmp_path / "results.json"
    out = io.StringIO()
    call_command("arena", "--game", "goofspiel", str(path), "builtin:random", "--rounds", "1",
                 "--no-progress", "--json", str(results), stdout=out)  # fmt: skip
    bot = next(b for b in json.loads(results.read_text())["bots"] if b["name"] == "starter")
    assert bot["fault_kinds"] == {"exception": 1}, out.getvalue()
    said = json.dumps(bot["fault_details"])
    assert "std::logic_error: json: misused" in said and '.at(\\"key\\")' in said, said
    assert "SIGSEGV" not in said


def test_a_bots_name_is_read_from_its_class():
    assert declared_name("mine.cpp", STARTER.read_bytes()) == "starter"
    assert (
        declared_name("mine.cpp", b'struct Bot { static inline std::string name{"x y"}; };')
        == "x y"
    )
    assert declared_name("plain_one.cpp", b"class Bot {};") == "plain_one"


def test_a_cpp_bot_dealt_a_deal_again_is_a_new_process_that_remembers_nothing(play, tmp_path):
    """This host cannot start a bot afresh in place: before a deal its process has played,
    the controller starts a new sandbox (docs/bot-protocol.md, "What carries over")."""
    played = play(hostile(tmp_path, "remembers.cpp"), seeds=[0, 1, 0, 2, 1], bound=20)
    assert all(not o.faults for o in played.outcomes)
    seen = [json.loads(line) for line in played.stderr.splitlines() if line.startswith("{")]
    assert [m["matches"] for m in seen] == [1, 2, 1, 2, 3]
    assert not any(m["again"] for m in seen)  # never a deal it knows
    assert [m["module"] for m in seen] == [0, 1, 0, 1, 2]  # its statics: gone with the process
    assert [m["files"] for m in seen] == [0, 1, 0, 1, 2]  # and its /tmp
    assert all(m["fork"].startswith("refused") for m in seen)
    assert played.process.starts == 2


def test_a_cpp_bot_that_speaks_for_its_host_is_still_started_afresh_for_a_deal_again(
    play, tmp_path
):
    """A bot's static object wrote its own hello claiming a fresh realm per match and
    answered ``renew`` itself: the one process played both seatings of each deal and read
    the other seat's cards from the first (an auditor's Kuhn bot went from 0.00 to 20.57).
    A C++ host keeps no isolation whatever its hello says (bots.languages.Language)."""
    played = play(hostile(tmp_path, "takes_over.cpp"), seeds=[0, 1, 0], bound=30)
    assert played.process.hello.isolation == "" and played.process.hello.lanes == 0
    seen = [json.loads(line) for line in played.stderr.splitlines() if line.startswith("{")]
    assert seen == [
        {"begins": 1, "renews": 0},
        {"begins": 2, "renews": 0},
        {"begins": 1, "renews": 0},
    ]
    assert played.process.starts == 2


def test_a_missing_compiler_is_the_platforms_trouble_and_kept_as_no_refusal(monkeypatch):
    from bots.sandbox import SandboxUnavailable

    source = TEMPLATE.format(act="int missing = 3; (void)missing;").encode()
    monkeypatch.setattr(type(CPP), "compile_tools", lambda self, config=None: ["/no/such/g++"])
    with pytest.raises(
        SandboxUnavailable, match="/no/such/g\\+\\+ is missing: C\\+\\+ bots cannot"
    ):
        compiling.program(CPP, "missing.cpp", source, GAME)
    monkeypatch.undo()
    assert compiling.program(CPP, "missing.cpp", source, GAME).startswith(b"\x7fELF")
