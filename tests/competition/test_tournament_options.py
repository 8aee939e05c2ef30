"""A tournament's matches are played with the game's options it was started with
(``start_tournament --option num_cards=6``), checked and named in errors as the arena's."""

from __future__ import annotations

import io

import pytest
from django.core.management import CommandError, call_command
from django.db import transaction

from bots.competition.uploads import activate
from bots.models import Bot, BotVersion, Match, MatchJob, Tournament
from bots.worker import Options, Worker
from games.registry import get_game


def goofspiel_bot(owner, name: str) -> BotVersion:
    code = get_game("goofspiel").builtin_path(name).read_text()
    bot = Bot.objects.create(owner=owner, game="goofspiel", name=name, language="python")
    version = BotVersion.objects.create(
        bot=bot, number=1, code=code, checksum=BotVersion.checksum_of(code)
    )
    with transaction.atomic():
        activate(version)
    return version


def test_a_tournament_plays_with_the_options_it_was_started_with(alice, bob):
    goofspiel_bot(alice, "matching")
    goofspiel_bot(bob, "random")
    MatchJob.objects.all().delete()  # the placements: the tournament is the test
    out = io.StringIO()
    call_command("start_tournament", "--game", "goofspiel", "--rounds", "1", "--seed", "3",
                 "--option", "num_cards=5", "--option", "deals=2", stdout=out)  # fmt: skip
    assert out.getvalue().strip().endswith("(seed 3, num_cards=5, deals=2)")
    tournament = Tournament.objects.get(format=Tournament.ROUND_ROBIN)
    assert tournament.settings["options"] == {"num_cards": 5, "deals": 2}
    assert Worker(Options(validate=False), name="w1").run(batch=True) == 2
    for match in Match.objects.all():
        record = match.record
        assert record["config"] == {"num_cards": 5, "deals": 2, "returns_type": "win_loss"}
        assert record["result"]["deals"] == 2


def test_a_tournaments_option_refused_is_named(db):
    with pytest.raises(CommandError) as refused:
        call_command("start_tournament", "--game", "goofspiel", "--option", "deals=0")
    assert " ".join(str(refused.value).split()) == (  # (wrapped to the terminal's width)
        "--option: goofspiel: deals takes a whole number from 1 to 1000, not 0"
    )
    with pytest.raises(CommandError, match="^--option: kuhn: hands takes an even number"):
        call_command("start_tournament", "--game", "kuhn", "--option", "hands=7")
    assert not Tournament.objects.exists()


def test_start_tournament_says_its_own_line_only(alice, bob, monkeypatch):
    # "2026-12-01 12:05:08,655 INFO bots.competition event=tournament.start tournament=26
    # game=rps-poker jobs=240" came first, even with -v 0: a record of the site's log, shown
    # with -v 2 only (the console handler's level is looked at while the tournament starts)
    import logging

    from bots.management.commands import start_tournament

    goofspiel_bot(alice, "matching")
    goofspiel_bot(bob, "random")
    (console,) = [h for h in logging.getLogger().handlers if h.get_name() == "console"]
    level, during = console.level, []
    start = start_tournament.start_round_robin

    def watched(*args, **kwargs):
        during.append(console.level)
        return start(*args, **kwargs)

    monkeypatch.setattr(start_tournament, "start_round_robin", watched)
    for verbosity in ("0", "1", "2"):
        call_command("start_tournament", "--game", "goofspiel", "-v", verbosity,
                     stdout=io.StringIO())  # fmt: skip
        assert console.level == level
    assert during == [max(level, logging.WARNING)] * 2 + [level]
    assert level < logging.WARNING


def test_start_tournaments_errors_and_help_read_at_80_columns(db, monkeypatch, settings):
    # "... kuhn, ledu" / "c, blackjack-pp ...": its errors were cut by the terminal; its help
    # said nothing of --rounds, --seed and --name, listed no game, gave --move and --bank no
    # default or unit, and named a setting for --worker-seconds' default, not its value
    from django.core.management import load_command_class

    monkeypatch.setenv("COLUMNS", "80")
    settings.WORKER_SECONDS_PER_BOT_PER_TOURNAMENT = 240
    with pytest.raises(CommandError) as refused:
        call_command("start_tournament", "--game", "poker")
    said = f"CommandError: {refused.value}"
    assert all(len(line) <= 80 for line in said.splitlines()), said
    assert " ".join(said.split()) == (
        "CommandError: unknown game 'poker' (known: rps-poker, last-card, uth, kuhn, leduc, "
        "blackjack-pp, goofspiel)"
    )
    command = load_command_class("bots", "start_tournament")
    text = " ".join(command.create_parser("manage.py", "start_tournament").format_help().split())
    assert "--game GAME the game: rps-poker, last-card, uth, kuhn, leduc, blackjack-pp or " in text
    assert "--rounds N rounds of the round robin;" in text
    assert "--seed S the seed of the tournament's deals" in text
    assert "--name NAME the tournament's name on the site" in text
    assert "--move SECONDS seconds a bot may take to answer each call (default: the game's" in text
    assert "--bank SECONDS seconds of time bank per match" in text
    assert "(default: 240, the site's WORKER_SECONDS_PER_BOT_PER_TOURNAMENT)" in text
