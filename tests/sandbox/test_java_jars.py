"""The Last Card kit's built AIs: a jar from the kit's ``mvn package`` plays as the strategy
class in it, with Card Arena's own kit classes (never the jar's copies), taken apart in the
compiler's sandbox. Real javac, real JVM, real bubblewrap."""

from __future__ import annotations

import io
import json
import shutil
import zipfile

import pytest
from django.core.management import call_command

from bots.competition.uploads import UploadError, check_code
from bots.languages import get_language
from bots.sandbox import compiling
from bots.sandbox.compiling import CompileError
from games.registry import get_game
from tests.sandbox.jars import LAX_CHECKER, NAIVE, build_jar, last_card, mine, naive_jar

pytestmark = pytest.mark.skipif(shutil.which("javac") is None, reason="needs a JDK")

JAVA = get_language("java")
LAST_CARD = get_game("last-card")

HELPER = "package com.orchestral.shark;\n\npublic class Helper {\n}\n"


def test_a_kit_built_jar_plays_with_card_arenas_kit_classes_not_the_jars_copies(tmp_path):
    # the jar's own move checker would pass every move: Card Arena's is used, so the naive
    # AI, which checks each card with it, makes no illegal move
    jar = naive_jar(tmp_path, kit={"LastCardMoveChecker.java": LAX_CHECKER})
    bot = mine(last_card(str(jar), "--games", "12", seed=7), jar)
    assert bot["name"] == "Naive"
    assert bot["faults"] == 0 and bot["illegal_moves"] == 0
    assert bot["cards_played"] > 0


def test_a_jar_strategy_throwing_says_where_in_its_own_source(tmp_path):
    # the strategy's frame, by its class's source file (the jar was built from it), not the
    # adapter's or the host's
    throws = NAIVE.read_text().replace(
        "        // The naive strategy simply plays the first playable card in its hand",
        '        if (true) throw new IllegalStateException("no idea");',
    )
    jar = build_jar(tmp_path, {"YourStrategy.java": throws})
    bot = mine(last_card(str(jar), "--games", "1"), jar)
    assert bot["fault_kinds"] == {"exception": 1}
    assert bot["fault_reports"][0]["reason"].endswith(
        "java.lang.IllegalStateException: no idea (YourStrategy.java, line 20)"
    )


def refusal(jar: bytes, game=LAST_CARD) -> str:
    with pytest.raises(CompileError) as refused:
        compiling.program(JAVA, "upload.jar", jar, game)
    return str(refused.value)


def _two_strategies() -> dict[str, str]:
    other = NAIVE.read_text().replace("class YourStrategy", "class OtherStrategy")
    return {"YourStrategy.java": NAIVE.read_text(), "OtherStrategy.java": other}


@pytest.mark.parametrize(
    ("sources", "extra", "said"),
    [
        ({"Helper.java": HELPER}, {}, "strategy (CardGameStrategy): 1 class was looked at"),
        (_two_strategies(), {}, "the jar holds 2 strategies (com.orchestral.shark.OtherStrategy,"),
        (None, {"card_arena/Host.class": b"\xca\xfe"}, "card_arena is Card Arena's own package"),
        (None, {"../escape.class": b"\xca\xfe"}, "an entry with a path outside the jar: ../"),
        (None, {"a/../../up.class": b"\xca\xfe"}, "an entry with a path outside the jar: a/../"),
        (None, {"zeros.bin": bytes(40 << 20)}, "the jar unpacks to more than 32 MiB"),
        (
            None,
            {"com/orchestral/shark/Card.class/x": b""},
            "the jar's entry com/orchestral/shark/Card.class/x cannot be unpacked",
        ),
        (None, {f"many/{n}": b"" for n in range(4100)}, "entries; the most a bot's jar may"),
    ],
    ids=[
        "no-strategy",
        "two-strategies",
        "platform-package",
        "path-outside",
        "path-up-from-inside",
        "bomb",
        "under-a-file",
        "entries",
    ],
)
def test_a_jar_that_is_not_one_kit_strategy_is_refused_saying_why(tmp_path, sources, extra, said):
    if sources is None:
        jar = naive_jar(tmp_path, extra=extra)
    else:
        jar = build_jar(tmp_path, sources, extra=extra)
    message = refusal(jar.read_bytes())
    assert message.startswith("Java compile error\n")
    assert said in message


def test_a_jar_entry_whose_name_holds_two_dots_is_a_file_like_any_other(tmp_path):
    """It was refused as "an entry with a path outside the jar: x/..y", which it is not."""
    jar = naive_jar(tmp_path, extra={"x/..y": b"notes", "..z": b"more notes"})
    assert compiling.program(JAVA, "upload.jar", jar.read_bytes(), LAST_CARD)


def test_a_jar_built_for_a_newer_java_is_refused_naming_the_release_to_build_for(tmp_path):
    jar = naive_jar(tmp_path)
    newer = tmp_path / "Newer.jar"
    with zipfile.ZipFile(jar) as source, zipfile.ZipFile(newer, "w") as out:
        for entry in source.namelist():
            data = source.read(entry)
            if entry.endswith("YourStrategy.class"):
                data = data[:6] + (65).to_bytes(2, "big") + data[8:]  # Java 21's class files
            out.writestr(entry, data)
    message = refusal(newer.read_bytes())
    assert (
        "com.orchestral.shark.YourStrategy was built for Java 21, a newer Java than Card Arena's"
        " Java 17: build it for Java 17 or older (maven.compiler.release 17)"
    ) in message


def test_a_jar_is_taken_only_for_a_game_with_a_kit(tmp_path):
    message = refusal(naive_jar(tmp_path).read_bytes(), get_game("rps-poker"))
    assert "a built jar is taken for a game that gives Java bots a kit" in message


def test_a_jar_upload_is_kept_as_text_and_given_back_as_the_jar(tmp_path):
    jar = naive_jar(tmp_path).read_bytes()
    kept = check_code(jar, "Naive.jar")
    assert kept.isascii() and "\x00" not in kept
    assert JAVA.kept_file(kept) == (".jar", jar)
    assert JAVA.kept_file(NAIVE.read_text()) is None
    with pytest.raises(UploadError, match=r"the file is not a jar \(a zip archive"):
        check_code(b"public class YourStrategy {}\n", "YourStrategy.jar")
    # what a version keeps compiles as the jar did
    assert compiling.program(JAVA, "Naive.java", kept.encode(), LAST_CARD).startswith(b"PK")


def test_the_kits_own_configuration_of_jar_folders_plays_last_card(tmp_path, capsys, monkeypatch):
    """The kit's ``config.json``: a folder of built jars and no ``"game"``; a jar fits only a
    game with a Java kit, so the arena plays Last Card and says so."""
    monkeypatch.setenv("COLUMNS", "400")  # the note's long paths on one line
    folder = tmp_path / "ai-jars"
    folder.mkdir()
    jar = naive_jar(tmp_path)
    for name in ("Naive.jar", "Naive2.jar", "Naive3.jar", "Naive4.jar"):
        (folder / name).write_bytes(jar.read_bytes())
    (folder / "notes.txt").write_text("not a bot\\n")
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"ai_dirs": ["ai-jars"], "num_games": 4}))
    out, results = io.StringIO(), tmp_path / "r.json"
    call_command(
        "arena", "--config", str(config), "--no-progress", "--json", str(results), stdout=out,
    )  # fmt: skip
    said = capsys.readouterr().err  # (the notes go to the terminal's stderr)
    assert f'{config} names no "game": playing last-card, the only game it fits' in said
    data = json.loads(results.read_text())
    assert data["game"] == "last-card" and data["matches"] == 4
    assert sorted(b["name"] for b in data["bots"]) == ["Naive", "Naive2", "Naive3", "Naive4"]
    assert all(b["faults"] == 0 for b in data["bots"])
