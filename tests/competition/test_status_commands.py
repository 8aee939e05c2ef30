"""Where a bot stands, from the command line: ``manage.py standings``, ``upload_bot --wait``,
and a worker that says why it has nothing to do (the worker's log named ids only, and
``worker --batch`` before ``seed_builtins`` exited without a word)."""

from __future__ import annotations

import io

import pytest
from django.core.management import CommandError, call_command

from bots import competition
from bots.competition.uploads import upload
from bots.management.commands import upload_bot
from bots.models import BotVersion, MatchJob
from bots.worker import Options, Worker
from tests.competition.conftest import builtin_code, misbehaving


def run(*args: str) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command(*args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_a_worker_with_nothing_to_do_says_why(db, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    _, err = run("worker", "--batch", "--display", "log")
    assert err.strip() == (
        "nothing to do: no version waits for validation and no match is queued; no bot "
        "competes in any game yet: `manage.py seed_builtins` enters the built-in bots, "
        "`manage.py upload_bot FILE --user NAME` uploads one"
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
    with pytest.raises(CommandError, match="no bots of 'nobody'"):
        run("standings", "--user", "nobody")


def test_upload_wait_follows_the_version_to_its_rank(
    alice, active_bot, tmp_path, monkeypatch, settings
):
    settings.BOTS_PER_PERSON_PER_GAME = 0  # (a person with several bots in one game)
    active_bot(alice, "strong", builtin_code("strong"))
    path = tmp_path / "mine.py"
    path.write_text(builtin_code("simple").replace('name = "simple"', 'name = "rps-mine"'))
    # a worker plays one placement match between two looks of the command
    worker = Worker(Options(claim=1), name="w1")
    monkeypatch.setattr(upload_bot.Command, "pause", lambda _self, _s: worker.step())
    out, _ = run("upload_bot", str(path), "--user", "alice", "--wait")
    version = BotVersion.objects.get(bot__name="rps-mine")
    assert out.splitlines() == [
        f"stored alice/rps-mine v1 (validating) (id {version.pk}): named as mine.py says; "
        "--name chooses another",
        f"active: alice/rps-mine v1 (active) (id {version.pk})",
        *[f"v1 active: placement matches {n} of 4 played" for n in range(4)],
        f"v1 active: rank {version.bot.leaderboard_row.rank} of 2, rating "
        f"{version.bot.leaderboard_row.conservative:.2f}",
    ]


def test_upload_wait_gives_up_after_its_timeout_saying_where_the_bot_stands(alice, tmp_path):
    path = tmp_path / "mine.py"
    path.write_text(builtin_code("simple"))
    with pytest.raises(CommandError) as waited:
        run("upload_bot", str(path), "--user", "alice", "--defer", "--wait", "--timeout", "0")
    assert str(waited.value) == (
        "still waiting after 0 s: v1 waits for a worker to validate it: no worker is at work "
        "now; is `manage.py worker` running? (manage.py standings --user alice shows where it "
        "stands)"
    )


def test_the_terminal_panel_says_why_the_worker_waits(db):
    from rich.console import Console

    from bots.worker.display import worker_panel

    console = Console(record=True, width=80)
    console.print(worker_panel(Worker(Options(), name="w-idle")))
    text = " ".join(console.export_text().split())
    assert "waiting for work" in text
    assert "no bot competes in any game yet: `manage.py seed_builtins`" in text.replace("│ ", "")


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
    assert str(refused.value) == "rejected: exception: \\x1b[2Jall clear"
    assert "\x1b" not in err.getvalue() and "\x07" not in err.getvalue()
    assert "\\x1b]0;owned\\x07\\x1b[1A\\x1b[2Kvalidation passed" in err.getvalue()
