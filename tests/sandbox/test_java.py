"""Java bots: compiled with javac in the sandbox once per machine (bots.sandbox.compiling), run
by Host.java under Debian's Java. The Last Card kit's strategies run unchanged. Real javac,
real JVM, real bubblewrap."""

from __future__ import annotations

import io
import json
import os
import re
import shutil
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from bots.languages import get_language
from bots.names import declared_name
from bots.sandbox.compiling import COMPILE_DEVICES
from games.registry import get_game
from tests.sandbox.conftest import hostile
from tests.sandbox.jars import last_card, mine

pytestmark = pytest.mark.skipif(shutil.which("javac") is None, reason="needs a JDK")

LAST_CARD = get_game("last-card")
KIT_STARTER = LAST_CARD.starters["java"]
RPS_STARTER = get_game("rps-poker").starters["java"]

#: a Last Card strategy written as the kit's guide shows, in a package and with imports of the
#: kit's classes of its own guessing: the platform finds them wherever the file says they are
KIT_STRATEGY = """package org.example.mine;

import com.orchestral.shark.game.Card;
import com.orchestral.shark.game.GameState;
import com.orchestral.shark.game.Move;
import com.orchestral.shark.game.Move.Builder;
import com.orchestral.shark.ai.CardGameStrategy;
import com.orchestral.shark.rules.LastCardMoveChecker;
import com.orchestral.shark.rules.MoveChecker;
import com.orchestral.shark.game.Suit;
import com.orchestral.shark.game.Value;

public class YourStrategy implements CardGameStrategy {
    private final MoveChecker checker = new LastCardMoveChecker();

    @Override
    public Move playCardFromHand(final GameState gamestate) {
        {act}
        int left = gamestate.getPlayerHandSizes().size() + gamestate.getDeckSize();
        for (Card card : gamestate.getMyHand()) {
            final Move.Builder builder = new Builder();
            Move move = builder.addCardPlayed(card).withLastCard(gamestate.getMyHand().size() == 2)
                .withSuit(card.getValue() == Value.ACE ? Suit.HEARTS : null).build();
            if (checker.isLegalMove(gamestate, move) && left >= 0) {
                return move;
            }
        }
        return Move.PASS_MOVE;
    }
}
"""


def strategy(tmp_path: Path, act: str = "") -> Path:
    path = tmp_path / "YourStrategy.java"
    path.write_text(KIT_STRATEGY.replace("{act}", act))
    return path


def test_the_kits_naive_ai_plays_last_card_without_an_illegal_move(tmp_path):
    starter = tmp_path / "YourStrategy.java"
    starter.write_bytes(KIT_STARTER.read_bytes())
    bot = mine(last_card(str(starter), "--games", "20"), starter)
    assert bot["name"] == "naive-java"
    assert bot["faults"] == 0 and bot["illegal_moves"] == 0
    assert bot["cards_played"] > 0


def test_a_kit_strategy_runs_whatever_package_it_imported_the_kits_classes_from(tmp_path):
    path = strategy(tmp_path)
    bot = mine(last_card(str(path), "--games", "12"), path)
    assert bot["faults"] == 0 and bot["illegal_moves"] == 0 and bot["cards_played"] > 0


def test_a_compile_error_shows_javacs_first_lines_naming_the_file_and_line(tmp_path):
    broken = strategy(tmp_path, act="int x = undefinedName;")
    with pytest.raises(CommandError) as refused:
        last_card(str(broken), "--games", "1")
    said = str(refused.value)
    assert said.startswith("Java compile error\n")
    assert "\nYourStrategy.java:18: error: cannot find symbol" in said
    assert "/bot/" not in said
    assert "undefinedName" in said


def test_an_exception_is_the_bots_fault_and_named_by_its_class(tmp_path):
    throws = strategy(tmp_path, act='if (true) throw new IllegalStateException("no idea");')
    bot = mine(last_card(str(throws), "--games", "2"), throws)
    assert bot["fault_kinds"] == {"exception": 2}
    assert "java.lang.IllegalStateException: no idea" in bot["fault_reports"][0]["reason"]


def test_a_generic_bot_plays_rps_poker_and_prints_to_its_log(tmp_path, play):
    path = tmp_path / "Bot.java"
    path.write_text(
        "import java.util.List;\n\npublic class Bot {\n"
        '    public static final String NAME = "javabot";\n'
        "    public int draftPick(List<String> cards) { return 0; }\n"
        "    public void draftReceive(String card) { }\n"
        "    public int mainPlay(List<String> hand, String base) {\n"
        '        System.out.println("thinking");\n        return 0;\n    }\n'
        "    public void mainPostprocess(String card) { }\n}\n"
    )
    played = play(path, matches=2, bound=20)
    assert played.fault is None
    assert played.stderr.count("thinking") == 2 * 10  # ten plays a match, in its log
    assert declared_name("Bot.java", path.read_bytes()) == "javabot"


def test_a_java_bot_dealt_a_deal_again_is_a_new_process_that_remembers_nothing(tmp_path, play):
    played = play(hostile(tmp_path, "Remembers.java"), seeds=[0, 1, 0], bound=30)
    assert all(not o.faults for o in played.outcomes)
    seen = [json.loads(line) for line in played.stderr.splitlines() if line.startswith("{")]
    counts = [m["matches"] for m in seen]  # the hello's instance counts too
    assert counts[1] == counts[0] + 1 and counts[2] == counts[0]  # the third: a new process
    assert not any(m["again"] for m in seen)
    assert played.process.starts == 2


def test_a_java_bot_plays_without_the_sandbox_too():
    """``--no-sandbox`` compiles with the same javac and runs the jar where it put it."""
    out = io.StringIO()
    call_command(
        "arena", "--game", "rps-poker", str(RPS_STARTER), "builtin:simple", "--rounds", "3",
        "--seed", "2", "--no-progress", "--no-sandbox", stdout=out,
    )  # fmt: skip
    row = next(line for line in out.getvalue().splitlines() if " starter " in line)
    assert row.rstrip(" │").endswith("0"), out.getvalue()  # no faults


#: an RPS Poker bot of class Bot, ``{act}`` in its mainPlay (line 7), ``{public}`` before
#: its class and ``{pick}`` its draft_pick's name
GENERIC = """import java.util.List;

{public}class Bot {
    public int {pick}(List<String> cards) { return 0; }
    public void draftReceive(String card) { }
    public int mainPlay(List<String> hand, String base) {
        {act}
        return 0;
    }
    public void mainPostprocess(String card) { }
}
"""


def generic(tmp_path: Path, name: str, act: str = "", public: str = "public ", pick="draftPick"):
    path = tmp_path / name
    text = GENERIC.replace("{act}", act).replace("{public}", public).replace("{pick}", pick)
    path.write_text(text)
    return path


def test_an_exception_says_where_in_the_file_as_it_was_given(tmp_path, play):
    # the top frame in the bot's file (not the JDK's, which threw), by the file's name as it
    # was given, not the one javac compiled (named after the class: Bot.java)
    played = play(generic(tmp_path, "Given.java", "List.of().get(3);"), bound=20)
    assert played.fault.kind == "exception"
    # (and the call in the file's own words: mainPlay, as a JavaScript bot's, not main_play)
    assert played.fault.reason == (
        "mainPlay raised java.lang.ArrayIndexOutOfBoundsException: Index 3 out of bounds for "
        "length 0 (Given.java, line 7)"
    )


@pytest.mark.parametrize("name", ["Given.java", "Bot.java"])
def test_a_class_that_is_not_public_is_told_to_be(tmp_path, play, name):
    # (named otherwise, the class is not found; named as the file, the host may not make it)
    played = play(generic(tmp_path, name, public=""), bound=20)
    assert played.fault.kind == "startup"
    assert played.fault.reason == 'a Java bot\'s class must be public: write "public class Bot"'


def test_a_method_named_with_a_capital_is_named_so_in_the_refusal(tmp_path, sandbox_config):
    from bots.running.contract import missing_methods
    from bots.running.launch import bot_launch
    from bots.running.process import BotProcess

    path = generic(tmp_path, "Bot.java", pick="DraftPick")
    game = get_game("rps-poker")
    with BotProcess(bot_launch(path, game=game, config=sandbox_config), label="bot") as process:
        hello = process.start(20)
    assert "DraftPick" in hello.methods and "_draft_pick" not in hello.methods
    said = missing_methods(game, hello)
    # the file's methods in its own words (draftReceive, not draft_receive), and the rule
    assert said.startswith("the bot's public class has no method draftPick. "), said
    assert "; this file defines DraftPick, draftReceive, mainPlay, mainPostprocess. " in said
    assert "A Java bot names its methods in camelCase: draftPick, not DraftPick." in said


def test_a_compile_error_names_the_file_as_it_was_given(tmp_path, sandbox_config):
    from bots.languages import get_language
    from bots.sandbox import compiling

    java, game = get_language("java"), get_game("rps-poker")
    source = generic(tmp_path, "Given.java", "int x = undefinedName;").read_bytes()
    for name in ("Given.java", "Other.java"):  # the second: the refusal kept, named anew
        with pytest.raises(compiling.CompileError) as refused:
            compiling.program(java, name, source, game, config=sandbox_config)
        said = str(refused.value)
        assert f"\n{name}:7: error: cannot find symbol" in said
        assert "/bot/" not in said and "Bot.java" not in said


def test_a_sandboxed_java_bot_makes_no_pipe_or_socket_and_its_jvm_still_reads_files(tmp_path, play):
    # each numbers its inode from one counter of the machine's, which a process that made many
    # left for the next to read (bots/languages/java/seal.c, loaded before the bot's class);
    # the JVM's own socket pair, made before, still serves its file channels
    played = play(hostile(tmp_path, "Pipes.java"), bound=30)
    assert played.fault is None, played.stderr[-2000:]
    seen = json.loads(next(line for line in played.stderr.splitlines() if line.startswith("{")))
    assert seen == {
        "pipe": "Operation not permitted",
        "thread_pipe": "Operation not permitted",
        "unix_socket": "Address family not supported by protocol",
        "temp_file": "ok",
        "cipher": "ok",
        "selector": "ok",
    }


def test_the_compiles_sandbox_has_the_device_the_jdk_seeds_its_secure_random_from():
    # without it the JDK seeds by timing threads that spin: jar, which names its temporary
    # file with a SecureRandom, took 8 s of CPU in every Java compile
    java = get_language("java")
    conf = Path(os.path.realpath(java.runtime())).parents[1] / "conf" / "security"
    settings = (conf / "java.security").read_text()
    source = re.search(r"^securerandom\.source=file:(\S+)$", settings, re.MULTILINE)
    assert source is not None
    assert source.group(1) in COMPILE_DEVICES


def test_a_seal_that_would_let_a_bot_make_pipes_is_the_machines_trouble(monkeypatch):
    # tried as it is built: found once, as the platform's, not as every Java bot's failed start
    from bots.languages import java
    from bots.sandbox import seccomp

    assert java.seal_library.__wrapped__()  # the real one loads and refuses a pipe
    allow_all = seccomp._checked(seccomp._export("bpf", processes=False, rest=False))
    monkeypatch.setattr(seccomp, "inode_filter_bpf", lambda: allow_all)
    with pytest.raises(seccomp.SeccompUnavailable, match="a pipe was made after it loaded"):
        java.seal_library.__wrapped__()
