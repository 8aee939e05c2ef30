"""Where a bot stands, from the command line: ``manage.py standings``, ``upload_bot --wait``,
and a worker that says why it has nothing to do (the worker's log named ids only, and
``worker --batch`` before ``seed_builtins`` exited without a word)."""

from __future__ import annotations

import fcntl
import io
import os
import re
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command, load_command_class
from django.db import transaction

from bots import competition
from bots.arena.command import wrapped
from bots.competition.uploads import retire, upload
from bots.management.commands import upload_bot
from bots.models import Bot, BotVersion, MatchJob
from bots.worker import Options, Worker
from tests.competition.conftest import builtin_code, misbehaving

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command(*args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


#: the time an idle line starts with, as the log's lines do (to the second)
STAMP = r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d "


def test_a_worker_with_nothing_to_do_says_why(db, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    _, err = run("worker", "--batch", "--display", "log")
    assert re.fullmatch(
        STAMP
        + re.escape(
            "nothing to do: no version waits for validation and no match is queued; no bot "
            "competes in any game yet: `manage.py seed_builtins` enters the built-in bots, "
            "`manage.py upload_bot FILE --user NAME` uploads one"
        ),
        err.strip(),
    )


def test_an_idle_worker_says_when_and_how_often_it_starts_regular_rounds(
    alice, bob, active_bot, monkeypatch
):
    """The idle line had no time, and said "every --ladder-interval seconds" without the
    value."""
    from bots.management.commands.worker import IdleNote

    active_bot(alice, "simple", builtin_code("simple"))
    active_bot(bob, "strong", builtin_code("strong"))
    MatchJob.objects.update(status=MatchJob.DONE)
    said: list[str] = []
    IdleNote(said.append, 3600).idle()
    assert re.fullmatch(
        STAMP
        + re.escape(
            "nothing to do: no version waits for validation and no match is queued; the "
            "games' regular rounds start when idle, every 3600 seconds (--ladder-interval)"
        ),
        said[0],
    )
    _, err = run("worker", "--once", "--display", "log", "--ladder-interval", "0")
    assert err.strip().endswith("this worker starts no regular rounds (--ladder-interval 0)")


def test_the_worker_says_at_start_who_it_is_and_where_its_database_is(db, caplog, monkeypatch):
    """One line at start: its name, lease, claim size and database (never its password)."""
    from types import SimpleNamespace

    from bots import worker
    from bots.worker import database_label

    with caplog.at_level("INFO", logger="bots"):
        run("worker", "--once", "--display", "log", "--name", "w-start", "--claim", "8")
    start = [r.getMessage() for r in caplog.records if "event=worker.start" in r.getMessage()]
    assert start == [f"event=worker.start name=w-start lease=60 claim=8 db={database_label()}"]
    found = {"HOST": "db.internal", "PORT": "5433", "NAME": "arena", "USER": "arena",
             "PASSWORD": "sesame"}  # fmt: skip
    monkeypatch.setattr(worker, "connection", SimpleNamespace(vendor="postgresql",
                                                              settings_dict=found))  # fmt: skip
    assert database_label() == "db.internal:5433/arena"
    found |= {"HOST": "", "PORT": ""}
    assert database_label() == "localhost:5432/arena"


def test_a_worker_whose_database_cannot_be_reached_stops_at_once_saying_so(tmp_path):
    """A wrong DATABASE_URL: the worker said so only after the pool's 30 s, and --once never
    exited. Now one line, at once."""
    env = {k: v for k, v in os.environ.items() if k not in {"REDIS_URL"}}
    env |= {
        "DATABASE_URL": "postgres://arena:sesame@127.0.0.1:1/arena",
        "CARD_ARENA_VAR": str(tmp_path),
        "SECRET_KEY": "shared-by-every-process",  # (else a line says that it is not)
    }
    began = time.monotonic()
    done = subprocess.run(
        [sys.executable, "manage.py", "worker", "--once", "--display", "log"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert time.monotonic() - began < 20
    assert done.returncode == 1
    [line] = done.stderr.splitlines()
    assert line.startswith(
        "CommandError: cannot reach the database 127.0.0.1:1/arena (DATABASE_URL): "
        'connection failed: connection to server at "127.0.0.1", port 1 failed: '
    )
    assert "Connection refused" in line and "sesame" not in line


def test_the_worker_help_gives_every_default_and_says_what_poll_is(monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    parser = load_command_class("bots", "worker").create_parser("manage.py", "worker")
    text = " ".join(parser.format_help().split("options:", 1)[1].split())
    for option, default in [
        ("--lease SECONDS", "(default 60)"),
        ("--max-attempts N", "(default 3)"),
        ("--max-claims N", "(default 20)"),
        ("--keep-processes N", "default 8)"),
        ("--ladder-interval SECONDS", "default 3600)"),
        ("--claim N", "default 32)"),
    ]:
        assert default in text.split(option, 1)[1].split(" --", 1)[0], option
    assert (
        "--poll SECONDS how long to wait before looking again when there is nothing to do "
        "(default 1)" in text
    )


def test_a_worker_says_a_game_needs_a_second_bot(alice, active_bot):
    active_bot(alice, "lonely", builtin_code("simple"))
    _, err = run("worker", "--once", "--display", "log")
    assert "a round needs two active bots of a game; these have one: RPS Poker (1)" in err


def test_standings_show_rank_rating_and_the_latest_fault(alice, bob, active_bot, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    active_bot(alice, "strong", builtin_code("strong"))
    active_bot(bob, "touchy", misbehaving("if base == 'S7':\n    return 99"))
    MatchJob.objects.all().delete()
    competition.start_round_robin("rps-poker", 3, seed=11)
    assert Worker(Options(validate=False), name="w1").run(batch=True) == 6
    out, _ = run("standings")
    lines = out.splitlines()
    assert "RPS Poker" in lines
    header = next(line for line in lines if line.lstrip().startswith("rank"))
    assert header.split() == ["rank", "bot", "rating", "matches", "faults"]
    first = lines[lines.index(header) + 1].split()
    assert first[:2] == ["1", "alice/strong"] and first[3:] == ["6", "0"]
    out, _ = run("standings", "--user", "bob")
    assert "alice/strong" not in out
    assert "bob/touchy: v1 active: rank 2 of 2, rating " in out
    assert "  latest fault: invalid in match " in out
    assert all(len(line) <= 80 for line in out.splitlines())


def test_standings_of_chosen_bots_say_what_the_game_ranks_and_a_placement_once(
    alice, bob, carol, active_bot, monkeypatch
):
    """``--user``/``--bot`` said "no bot ranked yet" of a game that ranked others, and printed
    a bot's placement twice ("v1 active: placement matches 0 of 4 played", then "placement
    matches: 0 of 4 played")."""
    monkeypatch.setenv("COLUMNS", "80")
    active_bot(alice, "strong", builtin_code("strong"))
    active_bot(bob, "simple", builtin_code("simple"))
    MatchJob.objects.all().delete()
    competition.start_round_robin("rps-poker", 3, seed=11)
    assert Worker(Options(validate=False), name="w1").run(batch=True) == 6
    with transaction.atomic():
        newcomer = active_bot(carol, "new", builtin_code("simple"))
        placement = competition.schedule_placement(newcomer)
    total = placement.jobs.count()
    out, _ = run("standings", "--user", "carol")
    assert out.count(f"placement matches 0 of {total} played") == 1, out
    assert "placement matches:" not in out
    retire(newcomer.bot)
    out, _ = run("standings", "--user", "carol")
    assert out.splitlines()[1:] == [
        "RPS Poker",
        "none of these bots is ranked; the game ranks 2 bots (manage.py standings --game",
        "  rps-poker)",
        "carol/new: retired: no version competes",
    ]
    out, _ = run("standings")
    assert "no bot ranked yet" not in out and "none of these" not in out


def test_a_placement_says_its_withdrawn_matches_were_not_played(
    alice, bob, carol, active_bot, monkeypatch
):
    """A placement whose matches against a retired bot were withdrawn read "24 of 24 played"
    (its withdrawn matches counted as played)."""
    monkeypatch.setenv("COLUMNS", "80")
    active_bot(alice, "strong", builtin_code("strong"))
    active_bot(bob, "simple", builtin_code("simple"))
    MatchJob.objects.all().delete()
    with transaction.atomic():
        newcomer = active_bot(carol, "new", builtin_code("simple"))
        placement = competition.schedule_placement(newcomer)
    total = placement.jobs.count()
    retire(Bot.objects.get(name="simple"))
    withdrawn = placement.jobs.filter(status=MatchJob.FAILED).count()
    assert 0 < withdrawn < total
    Worker(Options(validate=False), name="w1").run(batch=True)
    out, _ = run("standings", "--user", "carol")
    said = " ".join(out.split())
    assert (
        f"placement matches: {total - withdrawn} of {total} played, {withdrawn} withdrawn "
        "(not played: a bot in them was withdrawn)" in said
    ), out
    assert all(len(line) <= 80 for line in out.splitlines())


def test_standings_say_why_a_version_is_rejected_or_waiting(alice, db, settings):
    settings.BOTS_PER_PERSON_PER_GAME = 0  # (a person with several bots in one game)
    upload(alice, "rps-poker", "waiting", "waiting.py", builtin_code("simple").encode())
    rejected = upload(alice, "rps-poker", "broken", "broken.py", b"class Bot:\n    pass\n")
    BotVersion.objects.filter(pk=rejected.pk).update(
        status=BotVersion.REJECTED, reason="startup: no method draft_pick"
    )
    out, _ = run("standings", "--user", "alice")
    assert "alice/broken: v1 rejected: startup: no method draft_pick" in out
    assert "alice/waiting: v1 waits for a worker to validate it: no worker is at work" in out
    # a name nobody has is said so, not as a person without bots
    with pytest.raises(CommandError, match="^no user 'nobody': check the spelling of --user$"):
        run("standings", "--user", "nobody")
    User.objects.create_user("bob")
    with pytest.raises(CommandError, match="no bots of 'bob'"):
        run("standings", "--user", "bob")


def test_standings_keep_a_compilers_lines_as_lines(alice, db, monkeypatch):
    # "37 |     return first ? 0 : undefined_thing;       |      ^~~~" ran together in one
    # paragraph, the caret pointing at nothing
    monkeypatch.setenv("COLUMNS", "80")
    version = upload(alice, "rps-poker", "broken", "broken.py", b"class Bot:\n    pass\n")
    lines = [
        "broken.cpp: In member function 'int Bot::main_play(const std::vector<std::string>&, "
        "const std::string&)':",
        "broken.cpp:37:24: error: 'undefined_thing' was not declared in this scope",
        "   37 |     return first ? 0 : undefined_thing;",
        "      |                        ^~~~~~~~~~~~~~~",
    ]
    reason = "startup: C++ compile error\n" + "\n".join(lines)
    BotVersion.objects.filter(pk=version.pk).update(status=BotVersion.REJECTED, reason=reason)
    out, _ = run("standings", "--user", "alice")
    said = out.splitlines()
    assert "alice/broken: v1 rejected: startup: C++ compile error" in said
    assert lines[2] in said and lines[3] in said  # (whole, and the caret under its column)
    assert said.index(lines[3]) == said.index(lines[2]) + 1
    assert max(len(line) for line in said) <= 80, out


def test_standings_fit_80_columns_unless_the_terminal_says_otherwise(alice, db, monkeypatch):
    # bash does not export COLUMNS: standings wrapped a rejected bot's reason at 120 columns
    # in a terminal of 80 (the terminal then cut "draft_r" / "eceive")
    from games.engine.terminal import console_width

    monkeypatch.delenv("COLUMNS", raising=False)
    version = upload(alice, "rps-poker", "broken", "broken.py", b"class Bot:\n    pass\n")
    reason = (
        "startup: class Bot has no method draft_pick, draft_receive, main_play, "
        "main_postprocess. An RPS Poker bot needs draft_pick(cards), draft_receive(card), "
        "main_play(hand, base), main_postprocess(card)"
    )
    BotVersion.objects.filter(pk=version.pk).update(status=BotVersion.REJECTED, reason=reason)
    out, _ = run("standings", "--user", "alice")
    assert max(len(line) for line in out.splitlines()) <= 80, out
    assert f"alice/broken: v1 rejected: {reason}" in " ".join(out.split())
    # a terminal: its own width, whatever COLUMNS says; else COLUMNS
    monkeypatch.setenv("COLUMNS", "120")
    master, follower = os.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 72, 0, 0))
    with os.fdopen(follower, "w") as terminal:
        assert console_width(terminal) == 72
    os.close(master)
    assert console_width(io.StringIO()) == 120


def test_upload_wait_follows_the_version_to_its_rank(
    alice, active_bot, tmp_path, monkeypatch, settings
):
    monkeypatch.setenv("COLUMNS", "80")
    settings.BOTS_PER_PERSON_PER_GAME = 0  # (a person with several bots in one game)
    active_bot(alice, "strong", builtin_code("strong"))
    path = tmp_path / "mine.py"
    path.write_text(builtin_code("simple").replace('name = "simple"', 'name = "rps-mine"'))
    # a worker plays one placement match between two looks of the command
    worker = Worker(Options(claim=1), name="w1")
    monkeypatch.setattr(upload_bot.Command, "pause", lambda _self, _s: worker.step())
    # (bounded: a validation deferred again and again is a failure here, not a half hour's
    # wait for the command's default timeout)
    out, _ = run("upload_bot", str(path), "--user", "alice", "--wait", "--timeout", "300")
    version = BotVersion.objects.get(bot__name="rps-mine")
    stored = (
        f"stored alice/rps-mine v1 (validating) (id {version.pk}): named as mine.py says; "
        "--name chooses another"
    )
    assert out.splitlines() == [
        *wrapped(stored, 80).splitlines(),  # (over 80 columns: wrapped)
        f"active: alice/rps-mine v1 (active) (id {version.pk})",
        *[f"v1 active: placement matches {n} of 4 played" for n in range(4)],
        f"v1 active: rank {version.bot.leaderboard_row.rank} of 2, rating "
        f"{version.bot.leaderboard_row.conservative:.2f}",
    ]


def test_upload_wait_gives_up_after_its_timeout_saying_where_the_bot_stands(
    alice, tmp_path, monkeypatch
):
    monkeypatch.setenv("COLUMNS", "80")
    path = tmp_path / "mine.py"
    path.write_text(builtin_code("simple"))
    out, err = io.StringIO(), io.StringIO()
    with pytest.raises(CommandError) as waited:
        call_command("upload_bot", str(path), "--user", "alice", "--defer", "--wait",
                     "--timeout", "0", stdout=out, stderr=err)  # fmt: skip
    assert str(waited.value) == "still waiting after 0 s (where it stands: above)"
    said = out.getvalue().splitlines()
    assert all(len(line) <= 80 for line in said)
    assert " ".join(line.strip() for line in said).endswith(
        "--name chooses another v1 waits for a worker to validate it: no worker is at work now; "
        "is `manage.py worker` running?"
    )
    assert err.getvalue() == "manage.py standings --user alice shows where it stands\n"


def test_the_terminal_panel_says_why_the_worker_waits(db):
    from rich.console import Console

    from bots.worker.display import worker_panel

    console = Console(record=True, width=80)
    console.print(worker_panel(Worker(Options(), name="w-idle")))
    text = " ".join(console.export_text().split())
    assert "waiting for work" in text
    assert "no bot competes in any game yet: `manage.py seed_builtins`" in text.replace("│ ", "")


def test_the_panels_rate_is_its_last_stretch_of_work_and_its_last_frame_says_stopped(db):
    """The rate was the worker's whole life's, sinking while it waited; its last frame after
    SIGTERM still said "waiting for work"."""
    from rich.console import Console

    from bots.worker.display import played_line, worker_panel

    worker = Worker(Options(), name="w-rate")
    c = worker.counters
    c.played = 10
    c.stepped(True, began=c.started, played_before=10)  # a first stretch: 10 more played
    c.played, c.busy_ended = 20, c.started + 2.0
    c.stepped(False, began=c.started + 2.0, played_before=20)  # idle since
    assert played_line(c) == "20, 0 faults (5.00/s over its last 2.0 s of work)"
    c.busy_ended = c.started + 2.0  # idle steps leave it as it was
    c.stepped(False, began=c.started + 600.0, played_before=20)
    assert played_line(c) == "20, 0 faults (5.00/s over its last 2.0 s of work)"
    assert played_line(Worker(Options(), name="w-new").counters) == "0, 0 faults"

    def frame(**options) -> str:
        console = Console(record=True, width=80)
        console.print(worker_panel(worker, **options))
        return " ".join(console.export_text().split())

    assert "now │ waiting for work" in frame()
    assert "now │ stopped" in frame(stopped=True) and "why" not in frame(stopped=True)


def test_the_rich_display_ends_on_a_frame_that_says_stopped(db, capsys):
    run("worker", "--batch", "--display", "rich", "--name", "w-rich")
    frames = capsys.readouterr().out
    last = frames[frames.rfind("worker w-rich") :]
    assert "stopped" in last and "waiting for work" not in last


def test_the_workers_log_names_the_bots_besides_their_ids(alice, active_bot, caplog, settings):
    settings.BOTS_PER_PERSON_PER_GAME = 0  # (a person with several bots in one game)
    active_bot(alice, "strong", builtin_code("strong"))
    version = upload(alice, "rps-poker", "mine", "mine.py", builtin_code("simple").encode())
    worker = Worker(Options(claim=1), name="w1")
    with caplog.at_level("INFO", logger="bots"):
        assert worker.step() and worker.step()
    text = caplog.text
    assert f"event=version.validated version={version.pk} status=active reason='' " in text
    assert "bot='alice/mine v1'" in text
    done = next(line for line in text.splitlines() if "event=job.done" in line)
    assert "'alice/mine'" in done and "'alice/strong'" in done
    assert " game=rps-poker " in done  # four games have a house/simple


def test_upload_shows_a_rejected_bots_log_without_its_escape_sequences(
    alice, tmp_path, monkeypatch
):
    """The validation log holds what the bot wrote: a terminal shows its escapes, never acts
    on them (a bot clearing the screen or rewriting the lines above)."""

    def rejected(version):
        version.status = BotVersion.REJECTED
        version.reason = "exception: \x1b[2Jall clear"
        version.validation_log = "bot stderr:\n\x1b]0;owned\x07\x1b[1A\x1b[2Kvalidation passed\n"
        return version

    monkeypatch.setattr(upload_bot, "validate", rejected)
    path = tmp_path / "mine.py"
    path.write_text(builtin_code("simple"))
    err = io.StringIO()
    with pytest.raises(CommandError) as refused:
        call_command("upload_bot", str(path), "--user", "alice", stderr=err, stdout=io.StringIO())
    assert str(refused.value) == "v1 rejected at validation (why: above)"
    assert err.getvalue().endswith("\nrejected: exception: \\x1b[2Jall clear\n")
    assert "\x1b" not in err.getvalue() and "\x07" not in err.getvalue()
    assert "\\x1b]0;owned\\x07\\x1b[1A\\x1b[2Kvalidation passed" in err.getvalue()
