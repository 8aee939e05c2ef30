"""What ``manage.py upload_bot`` says, as a newcomer's first hour read it at an 80-column
terminal: its lines wrapped (up to 291 columns before), no log record among them unless
asked, a file for another game rejected once with the ``--game`` to give, a compile said
before its seconds of silence, and the docs' own example working as written."""

from __future__ import annotations

import contextlib
import io
import logging
import re
import shlex
from pathlib import Path

import pytest
from django.contrib.auth.management.commands import changepassword
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse

from bots.competition import uploads
from bots.management.commands import upload_bot
from bots.models import BotVersion
from bots.worker import Options, Worker
from games.engine.files import safe_filename
from games.registry import get_game
from tests.competition.conftest import builtin_code
from tests.compiles import spy_on_compiles

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def columns(monkeypatch):
    """Lines wrapped to 80 columns where they do not go to a terminal."""
    monkeypatch.setenv("COLUMNS", "80")


def upload(*args: str) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    try:
        call_command("upload_bot", *args, stdout=out, stderr=err)
    finally:
        said = out.getvalue() + err.getvalue()
        assert all(len(line) <= 80 for line in said.splitlines()), said
    return out.getvalue(), err.getvalue()


def joined(text: str) -> str:
    """Lines wrapped for the terminal, joined again."""
    return " ".join(text.split())


def test_its_lines_fit_80_columns(alice, tmp_path):
    # "stored ... named as goofspiel_mine.py says; --name chooses another": 104 columns
    path = tmp_path / "goofspiel_mine.py"
    path.write_text((ROOT / "games/goofspiel/starter.py").read_text())
    out, _ = upload(str(path), "--user", "alice", "--game", "goofspiel")
    version = BotVersion.objects.get()
    *stored, active = out.splitlines()
    assert len(stored) == 2 and stored[1].startswith("  ")  # (the rest of a line, indented)
    assert joined("\n".join(stored)) == (
        f"stored alice/starter v1 (validating) (id {version.pk}): named as goofspiel_mine.py "
        "says; --name chooses another"
    )
    assert active == f"active: alice/starter v1 (active) (id {version.pk})"


def test_a_file_for_another_game_is_refused_with_its_game_before_it_is_stored(
    alice, active_bot, tmp_path
):
    # the Kuhn starter with the default --game (rps-poker), by a person with an RPS Poker bot:
    # "You already have a bot competing in RPS Poker ... (--name rps-mine)", and with --name
    # the file became a version that only its validation refused ("is it for another game?")
    active_bot(alice, "rps-mine", builtin_code("simple"))
    path = tmp_path / "kuhn_mine.py"
    path.write_text((ROOT / "games/kuhn/starter.py").read_text())
    for name in ([], ["--name", "rps-mine"]):
        err = io.StringIO()
        with pytest.raises(CommandError, match=r"^the file was not uploaded \(why: above\)$"):
            call_command(
                "upload_bot", str(path), "--user", "alice", *name, stdout=io.StringIO(), stderr=err
            )
        assert all(len(line) <= 80 for line in err.getvalue().splitlines()), err.getvalue()
        assert joined(err.getvalue()) == (
            "This file looks like a Kuhn poker bot, not an RPS Poker bot: it defines act (Kuhn "
            "poker's method), its text names Kuhn poker, and it has none of draft_pick, "
            "draft_receive, main_play and main_postprocess, the methods an RPS Poker bot needs. "
            "To enter it in Kuhn poker, upload it with --game kuhn."
        )
    assert BotVersion.objects.count() == 1  # rps-mine's own, nothing more
    out, _ = upload(str(path), "--user", "alice", "--game", "kuhn", "--defer")
    assert out.startswith("stored alice/starter v1 (validating)")


def test_a_refused_upload_keeps_no_user_it_created(db, tmp_path):
    """``--create-user`` with a file for another game created the account and then refused
    the file: a typo's account was left behind, with nothing in it."""
    from django.contrib.auth import get_user_model

    path = tmp_path / "kuhn_mine.py"
    path.write_text((ROOT / "games/kuhn/starter.py").read_text())
    err = io.StringIO()
    with pytest.raises(CommandError, match=r"^the file was not uploaded \(why: above\)$"):
        call_command("upload_bot", str(path), "--user", "newcomer", "--create-user",
                     stdout=io.StringIO(), stderr=err)  # fmt: skip
    assert joined(err.getvalue()).endswith("with --game kuhn. (user newcomer was not created)")
    assert not get_user_model().objects.filter(username="newcomer").exists()
    out, _ = upload(str(path), "--user", "newcomer", "--create-user", "--game", "kuhn", "--defer")
    assert out.startswith("created user newcomer,") and "stored newcomer/starter v1" in out
    assert get_user_model().objects.filter(username="newcomer").exists()


def test_a_file_for_another_game_its_upload_cannot_tell_is_told_its_game_once(alice, tmp_path):
    # the reason came twice (the log's "fault:" line and "CommandError: rejected: ..."), 274
    # and 291 columns, and left the newcomer to guess --game. (A file naming the game's
    # method, as this one's comment does, is not refused at the upload: its validation tells.)
    path = tmp_path / "last_card_mine.py"
    path.write_text((ROOT / "games/last_card/starter.py").read_text() + "# not main_play()\n")
    out, err = io.StringIO(), io.StringIO()
    with pytest.raises(CommandError) as rejected:  # (--game: rps-poker by default)
        call_command("upload_bot", str(path), "--user", "alice", stdout=out, stderr=err)
    assert str(rejected.value) == "v1 rejected at validation (why: above)"
    assert all(len(line) <= 80 for line in (out.getvalue() + err.getvalue()).splitlines())
    said = joined(err.getvalue())
    assert said.count("is it for another game?") == 1
    assert said.endswith(
        "fault: startup: class Bot has no method draft_pick, draft_receive, main_play, "
        "main_postprocess. An RPS Poker bot needs draft_pick(cards), draft_receive(card), "
        "main_play(hand, base), main_postprocess(card); this file defines play (Last Card's "
        "method): is it for another game? If so, upload it with --game last-card."
    )
    version = BotVersion.objects.get()
    assert version.status == BotVersion.REJECTED
    assert version.reason.endswith("is it for another game?")  # (the site's words: no --game)


def test_it_shows_no_log_record_unless_asked(alice, tmp_path, monkeypatch):
    # "2026-12-01 02:27:37,198 INFO bots.competition event=placement version=19 jobs=8
    # references=0" among its lines: the console handler of the settings' LOGGING. While the
    # command runs, that handler passes warnings and errors only, unless -v 2; as it was after
    # (the worker's and the server's logs unchanged). (Its level is looked at, not what a
    # placement logs: whether a version is placed within the command depends on the run.)
    (console,) = [h for h in logging.getLogger().handlers if h.get_name() == "console"]
    level = console.level
    during: dict[str, int] = {}
    quiet = upload_bot._quiet_log

    @contextlib.contextmanager
    def watched(*args):
        with quiet(*args):
            during[verbosity] = console.level
            yield

    monkeypatch.setattr(upload_bot, "_quiet_log", watched)
    path = tmp_path / "mine.py"
    for verbosity in ("1", "2"):
        path.write_text(f"{builtin_code('simple')}\n# v{verbosity}\n")
        upload(str(path), "--user", "alice", "--name", "mine", "-v", verbosity)
        assert console.level == level
    assert during == {"1": max(level, logging.WARNING), "2": level}
    assert level < logging.WARNING  # (so -v 1 hides the INFO records it would show)


def test_a_compile_is_said_before_it_starts(alice, tmp_path, monkeypatch):
    # nothing was said for the ~22 s a C++ bot took to compile
    from bots.arena import command

    looked_up = spy_on_compiles(monkeypatch, tmp_path)
    path = tmp_path / "goofspiel_mine.cpp"
    path.write_text((ROOT / "games/goofspiel/starter.cpp").read_text())
    err = io.StringIO()
    with pytest.raises(Exception):  # noqa: B017 - (the spy, or the validation's own end)
        call_command("upload_bot", str(path), "--user", "alice", "--game", "goofspiel",
                     stdout=io.StringIO(), stderr=err)  # fmt: skip
    assert joined(err.getvalue()).startswith(  # (the file as it was given)
        f"compiling {path} in the sandbox (once for this code on this machine)..."
    )
    # the entry the validation looked for is the one the command looked for: once kept,
    # nothing is said
    version = BotVersion.objects.get()
    written = safe_filename(version.filename), version.code.encode()
    assert command.compile_pending(get_game("goofspiel"), *written)
    (kept,) = looked_up
    kept.parent.mkdir(parents=True, exist_ok=True)
    kept.write_bytes(b"kept")
    assert not command.compile_pending(get_game("goofspiel"), *written)


def test_the_docs_example_works_as_written(db, bob, active_bot, tmp_path, monkeypatch):
    # "CommandError: no user 'alice' (see --create-user)" for a newcomer following it
    text = (ROOT / "docs/uploading.md").read_text()
    section = text.split("## From the command line", 1)[1].split("\n## ", 1)[0]
    commands = [line.strip() for line in section.splitlines() if line.startswith("    ")]
    copy, rename, up, standings = commands
    assert copy == "cp games/rps_poker/starter.py rps_mine.py"
    # the copy named by its own name (as it was, it was uploaded as alice/starter, where the
    # docs said rps-mine)
    assert rename == """sed -i 's/name = "starter"/name = "rps-mine"/' rps_mine.py"""
    monkeypatch.chdir(tmp_path)
    starter = (ROOT / "games/rps_poker/starter.py").read_text()
    assert starter.count('name = "starter"') == 1
    (tmp_path / "rps_mine.py").write_text(starter.replace('name = "starter"', 'name = "rps-mine"'))
    active_bot(bob, "strong", builtin_code("strong"))  # (someone to play placement matches)
    worker = Worker(Options(claim=1), name="w1")
    monkeypatch.setattr(upload_bot.Command, "pause", lambda _self, _s: worker.step())
    args = shlex.split(up)
    assert args[:3] == [".venv/bin/python", "manage.py", "upload_bot"]
    out, _ = upload(*args[3:])
    version = BotVersion.objects.get(bot__owner__username="alice")
    # a user made with no password, and My bots (below) shown only to one logged in: the
    # command says how to set one (the docs sent alice to My bots, where she could not log in)
    set_password = "manage.py changepassword alice"
    created = (
        "created user alice, with no password yet: to log in on the site (My bots shows your "
        f"bot's code, log and faults), set one with {set_password} "
    )
    assert joined(out).startswith(created)
    assert f".venv/bin/python {set_password}" in joined(section)
    assert (
        joined(out)
        .removeprefix(created)
        .startswith(
            f"stored alice/rps-mine v1 (validating) (id {version.pk}): named as rps_mine.py says; "
            f"--name chooses another active: alice/rps-mine v1 (active) (id {version.pk})"
        )
    )
    assert re.search(r"^v1 active: rank \d of 2, rating ", out, re.MULTILINE), out
    args = shlex.split(standings)
    assert args[2:] == ["standings", "--user", "alice"]
    said = io.StringIO()
    call_command(*args[2:], stdout=said)
    assert "alice/rps-mine" in said.getvalue()
    # the password set as the command and the docs say, alice logs in and sees her bot
    typed = iter(["a long pass phrase 7", "a long pass phrase 7"])
    monkeypatch.setattr(changepassword.getpass, "getpass", lambda prompt="": next(typed))
    call_command(*shlex.split(set_password)[1:], stdout=io.StringIO())
    client = Client()
    logged_in = {"username": "alice", "password": "a long pass phrase 7"}
    assert client.post("/accounts/login/", logged_in).status_code == 302
    assert "rps-mine" in client.get(reverse("my_bots")).content.decode()


BUSY = (
    "the machine was too busy to compile the bot: in the 120 s it may take, the compile had "
    "only 27.5 s of CPU (under half of its 60 s); no fault of the bot's, nothing was kept, "
    "and it can be tried again"
)


def test_a_compile_the_machine_was_too_busy_for_is_said_and_left_to_a_worker(
    alice, tmp_path, monkeypatch
):
    # a 40-line traceback ending "bots.sandbox.compiling.CompileBusy: ...", at 80 columns,
    # and the version left validating, claimable by a worker at once
    from bots.sandbox.compiling import CompileBusy

    def busy(version):
        raise CompileBusy(BUSY)

    monkeypatch.setattr(upload_bot, "validate", busy)
    path = tmp_path / "tbomb.py"
    path.write_text(builtin_code("simple"))
    out, err = io.StringIO(), io.StringIO()
    with pytest.raises(CommandError) as stopped:  # (exit status 1, its line: no traceback)
        call_command("upload_bot", str(path), "--user", "alice", "--name", "tbomb",
                     stdout=out, stderr=err)  # fmt: skip
    assert str(stopped.value) == "v1 is not validated yet (why: above)"
    assert all(len(line) <= 80 for line in err.getvalue().splitlines()), err.getvalue()
    assert joined(err.getvalue()) == (
        f"v1 was not validated: {BUSY} it waits for a worker (manage.py worker), which will "
        "try again: follow it on My bots or with manage.py standings --user alice"
    )
    version = BotVersion.objects.get()
    assert version.status == BotVersion.VALIDATING
    assert version.validation_lease is not None  # a worker tries again after a pause
    assert version.validation_log.startswith(f"validation waits: {BUSY}")
    # with --wait, it is followed instead
    path.write_text(builtin_code("simple") + "\n# v2\n")
    err = io.StringIO()
    with pytest.raises(CommandError, match="still waiting after 0 s"):
        call_command("upload_bot", str(path), "--user", "alice", "--name", "tbomb", "--wait",
                     "--timeout", "0", stdout=io.StringIO(), stderr=err)  # fmt: skip
    assert "v2 was not validated: the machine was too busy" in joined(err.getvalue())
    assert "a worker (manage.py worker) will validate it; following it:" in joined(err.getvalue())


def test_a_second_bot_is_told_the_option_that_makes_it_a_new_version(alice, active_bot, tmp_path):
    # "... upload your code as a new version of starter, or retire it on My bots first": the
    # site's words; here that is --name starter
    active_bot(alice, "my starter", builtin_code("simple"))
    path = tmp_path / "second.py"
    path.write_text(builtin_code("strong"))
    err = io.StringIO()
    with pytest.raises(CommandError, match=r"^the file was not uploaded \(why: above\)$"):
        call_command("upload_bot", str(path), "--user", "alice", stdout=io.StringIO(), stderr=err)
    assert all(len(line) <= 80 for line in err.getvalue().splitlines()), err.getvalue()
    assert joined(err.getvalue()).endswith(
        "upload your code as a new version of my starter (--name 'my starter'), or retire it "
        "on My bots first."
    )
    # (a bot whose version is being validated is waited for, not retired)
    waiting = "upload your code as a new version of web-js, or wait for the verdict on web-js v2"
    assert upload_bot.at_the_command_line(waiting) == (
        "upload your code as a new version of web-js (--name web-js), or wait for the verdict "
        "on web-js v2"
    )
    two = "upload your code as a new version of one of them, or retire one on My bots first."
    assert upload_bot.at_the_command_line(two) == (
        "upload your code as a new version of one of them (--name and its name), or retire "
        "one on My bots first."
    )


def test_ctrl_c_says_what_was_left_in_a_line(alice, tmp_path, monkeypatch):
    # Ctrl-C during the compile: 55 lines of "Traceback ... KeyboardInterrupt", no word of the
    # version stored and left waiting
    def stopped(*_args, **_kwargs):
        raise KeyboardInterrupt

    path = tmp_path / "mine.py"
    path.write_text(builtin_code("simple"))

    def interrupted(name: str) -> str:
        """What upload_bot says, stopped (it exits with 130)."""
        err = io.StringIO()
        with pytest.raises(SystemExit) as ended:
            call_command("upload_bot", str(path), "--user", "alice", "--name", name,
                         stdout=io.StringIO(), stderr=err)  # fmt: skip
        assert ended.value.code == 130
        return err.getvalue()

    monkeypatch.setattr(upload_bot, "validate", stopped)
    said = interrupted("mine")
    assert all(len(line) <= 80 for line in said.splitlines()), said
    assert joined(said) == (
        "interrupted: v1 is stored and a worker will validate it; follow it with manage.py "
        "standings --user alice"
    )
    # the validation it held is given back: the next worker free takes it at once
    version = BotVersion.objects.get()
    assert version.status == BotVersion.VALIDATING
    assert uploads.claim_validation("w1", 60).pk == version.pk
    # before anything was stored
    monkeypatch.setattr(upload_bot, "upload", stopped)
    assert interrupted("other") == "interrupted: nothing was uploaded\n"


def test_a_file_stored_under_another_name_is_named_as_given_too(alice, tmp_path):
    # uploaded with --name starter, py_syntax.py's traceback named /bot/starter.py and
    # "(starter.py, line 2)", a file its author does not have
    path = tmp_path / "py_syntax.py"
    path.write_text("class Bot:\n    def draft_pick(self, cards)\n        return 0\n")
    err = io.StringIO()
    with pytest.raises(CommandError, match="rejected at validation"):
        call_command("upload_bot", str(path), "--user", "alice", "--name", "starter",
                     stdout=io.StringIO(), stderr=err)  # fmt: skip
    first, *rest = err.getvalue().splitlines()
    assert first == "(your py_syntax.py is stored as starter.py, the name in the lines below)"
    assert "(starter.py, line 2)" in joined("\n".join(rest))


def test_a_java_stack_trace_is_said_to_name_the_file_after_its_public_class(
    alice, tmp_path, monkeypatch
):
    # "(your MyBot.java is stored as java-throw.java, the name in the lines below)", then
    # "at MyBot.mainPlay(MyBot.java:32)": a line below that named it otherwise
    def thrown(version):
        version.status, version.reason = BotVersion.REJECTED, "exception: oops"
        version.validation_log = (
            "stderr of the bot:\njava.lang.IllegalStateException: oops\n"
            "\tat MyBot.mainPlay(MyBot.java:32)\n"
            "fault: exception: mainPlay raised java.lang.IllegalStateException: oops "
            "(java-throw.java, line 32)"
        )
        return version

    monkeypatch.setattr(upload_bot, "validate", thrown)
    path = tmp_path / "MyBot.java"
    path.write_text(get_game("rps-poker").starters["java"].read_text().replace(
        "RpsPokerStarter", "MyBot"))  # fmt: skip
    err = io.StringIO()
    with pytest.raises(CommandError, match="rejected at validation"):
        call_command("upload_bot", str(path), "--user", "alice", "--name", "java-throw",
                     stdout=io.StringIO(), stderr=err)  # fmt: skip
    assert (
        "in the sandbox (once for this code on this machine)... (your MyBot.java is stored as "
        "java-throw.java, the name in the lines below but for "
        "its stack traces, which name it MyBot.java, after its public class: the same file, "
        "the same line numbers) stderr of the bot:"
    ) in joined(err.getvalue())
